// mc demo: two in-memory clusters, east and west, ready for kubectl. (The full link-and-mirror
// walk-through arrives with the controller; until then this shows the sandboxes working.)
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineCommand } from "citty";
import { logger } from "../src/log.ts";
import { startSandbox } from "../src/sandbox/index.ts";

export default defineCommand({
  meta: { name: "demo", description: "Run two in-memory clusters (east, west) and show how to drive them" },
  args: {
    hold: { type: "boolean", description: "Keep serving until Ctrl-C (default: only when run in a terminal)" },
  },
  async run({ args }) {
    const log = logger("demo");
    const dir = await mkdtemp(join(tmpdir(), "mc-demo-"));
    const east = await startSandbox({ name: "east", kubeconfigPath: join(dir, "east.kubeconfig") });
    const west = await startSandbox({ name: "west", kubeconfigPath: join(dir, "west.kubeconfig") });
    const svc = east.api.registry.find("", "v1", "services")!;
    east.api.create(svc, "default", {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", labels: { "mirror.linkerd.io/exported": "true" } },
      spec: { ports: [{ name: "http", port: 80 }] },
    }, { fieldManager: "mc-demo" });
    log.info(`sandbox east ready at ${east.url}`);
    log.info(`sandbox west ready at ${west.url}`);
    process.stdout.write(
      [
        "Two sandbox clusters are running:",
        `  kubectl --kubeconfig ${east.kubeconfigPath} get services -A`,
        `  kubectl --kubeconfig ${west.kubeconfigPath} get namespaces`,
        "east exports default/web (label mirror.linkerd.io/exported=true).",
        "",
      ].join("\n"),
    );
    const hold = args.hold ?? process.stdin.isTTY === true;
    if (hold) {
      log.info("serving until Ctrl-C");
      await new Promise<void>((resolve) => {
        process.once("SIGINT", () => resolve());
        process.once("SIGTERM", () => resolve());
      });
    }
    await Promise.all([east.stop(), west.stop()]);
  },
});
