// mc sandbox: an in-memory Kubernetes API server on 127.0.0.1 that kubectl can drive.
import { defineCommand } from "citty";
import * as v from "valibot";
import { UserError } from "../src/errors.ts";
import { logger } from "../src/log.ts";
import { startSandbox } from "../src/sandbox/index.ts";
import { globals } from "./globals.ts";
import { parseFlags } from "./flags.ts";

const Flags = v.object({
  name: v.pipe(v.string(), v.regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a DNS-1123 label (lowercase letters, digits, '-')")),
  port: v.pipe(v.string(), v.regex(/^\d+$/, "must be a port number (0 picks a free port)"), v.transform(Number), v.maxValue(65535, "must be at most 65535")),
  tls: v.boolean(),
});

export default defineCommand({
  meta: { name: "sandbox", description: "Start an in-memory Kubernetes API server (for tests, demos, and trying mc)" },
  args: {
    name: { type: "string", default: "sandbox", description: "Cluster, user and context name in the kubeconfig" },
    port: { type: "string", default: "0", description: "Port on 127.0.0.1 (0 = any free port)" },
    tls: { type: "boolean", default: false, description: "Serve HTTPS with a generated CA and a bearer token" },
    kubeconfig: { type: "string", description: "Where to write this sandbox's kubeconfig (written before it reports ready)" },
  },
  async run({ args }) {
    const flags = parseFlags(Flags, { name: args.name, port: args.port, tls: args.tls });
    const path = globals.kubeconfig;
    if (!path) throw new UserError("--kubeconfig: needs a path to write the sandbox's kubeconfig to, e.g. --kubeconfig ./east.kubeconfig");
    // Listen for signals before saying ready, so a stop right after the ready line is clean.
    const stopped = new Promise<void>((resolve) => {
      process.once("SIGINT", () => resolve());
      process.once("SIGTERM", () => resolve());
    });
    const sb = await startSandbox({ name: flags.name, port: flags.port, tls: flags.tls, kubeconfigPath: path });
    logger("sandbox").info(`sandbox ${flags.name} ready at ${sb.url} (kubeconfig ${path})`);
    await stopped;
    await sb.stop();
  },
});
