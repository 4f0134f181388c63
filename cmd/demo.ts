// mc demo: install, link, mirror and gateway health on two in-memory clusters (east, west).
import { join, relative } from "node:path";
import { command } from "../src/cli/command.ts";
import { defineFlags } from "../src/cli/flags.ts";
import { runDemo } from "../src/demo/walkthrough.ts";
import { logger, setLogLevel } from "../src/log.ts";
import { meta } from "./commands.ts";

const flags = defineFlags(
  {
    hold: { type: "boolean", description: "Keep both clusters and the controller running until Ctrl-C", defaultText: "true in a terminal" },
  },
  { command: "demo" },
);

export default command(meta("demo"), flags, async (f, g) => {
  // The walk-through is the output; the controller's own logs only with --verbose.
  if (!g.verbose) setLogLevel("warn");
  const say = (line: string) => process.stdout.write(`${line}\n`);
  say("mc demo: two in-memory clusters, east (target) and west (source)");
  const demo = await runDemo(say);
  const hold = f.hold ?? process.stdin.isTTY === true;
  // How to run mc again from here: from a checkout `bun cmd/mc.ts`, else the binary on PATH.
  const script = process.argv[1] ?? "";
  const mc = script.endsWith(".ts") ? `bun ${relative(process.cwd(), script) || script}` : "mc";
  if (hold) {
    say("");
    say("Everything keeps running; try:");
    say(`  kubectl --kubeconfig ${join(demo.dir, "west.kubeconfig")} get services,endpoints -n default`);
    say(`  kubectl --kubeconfig ${join(demo.dir, "west.kubeconfig")} get links -n linkerd-multicluster`);
    say(`  ${mc} --kubeconfig ${join(demo.dir, "west.kubeconfig")} gateways`);
    say(`  ${mc} --kubeconfig ${join(demo.dir, "west.kubeconfig")} check`);
    say(`  kubectl --kubeconfig ${join(demo.dir, "east.kubeconfig")} label service web -n default mirror.linkerd.io/exported-`);
    say("Ctrl-C stops it.");
    await new Promise<void>((resolve) => {
      process.once("SIGINT", () => resolve());
      process.once("SIGTERM", () => resolve());
    });
  }
  logger("demo").debug("stopping");
  await demo.stop();
});
