// mc sandbox: an in-memory Kubernetes API server on 127.0.0.1 that kubectl can drive.
import * as v from "valibot";
import { command } from "../src/cli/command.ts";
import { defineFlags } from "../src/cli/flags.ts";
import { UserError } from "../src/errors.ts";
import { logger } from "../src/log.ts";
import { startSandbox } from "../src/sandbox/index.ts";
import { meta } from "./commands.ts";

const flags = defineFlags(
  {
    name: {
      type: "string",
      default: "sandbox",
      description: "Cluster, user and context name in the kubeconfig",
      schema: v.pipe(v.string(), v.regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a DNS-1123 label (lowercase letters, digits, '-')")),
    },
    port: {
      type: "string",
      default: "0",
      description: "Port on 127.0.0.1 (0 = any free port)",
      schema: v.pipe(v.string(), v.regex(/^\d+$/, "must be a port number (0 picks a free port)"), v.transform(Number), v.maxValue(65535, "must be at most 65535")),
    },
    tls: { type: "boolean", default: false, description: "Serve HTTPS with a generated CA and a bearer token" },
    // The global --kubeconfig, listed for its meaning here; the runner takes it out of argv.
    kubeconfig: { type: "string", description: "Where to write this sandbox's kubeconfig (written before it reports ready)" },
  },
  { command: "sandbox" },
);

export default command(meta("sandbox"), flags, async (f, g) => {
  const path = g.kubeconfig;
  if (!path) throw new UserError("--kubeconfig: needs a path to write the sandbox's kubeconfig to, e.g. --kubeconfig ./east.kubeconfig");
  // Listen for signals before saying ready, so a stop right after the ready line is clean.
  const stopped = new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  const sb = await startSandbox({ name: f.name, port: f.port, tls: f.tls, kubeconfigPath: path });
  logger("sandbox").info(`sandbox ${f.name} ready at ${sb.url} (kubeconfig ${path})`);
  await stopped;
  await sb.stop();
});
