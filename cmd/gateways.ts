// mc gateways: the health of every linked target's gateway, read from the Links' status.gateway
// on the source cluster (no port-forward, no Prometheus).
import { command } from "../src/cli/command.ts";
import { defineFlags } from "../src/cli/flags.ts";
import { durationFlag, namespaceFlag, outputFlag, unlessEmpty } from "../src/cli/groups.ts";
import { UserError } from "../src/errors.ts";
import { gatewaysOutput } from "../src/gateways/read.ts";
import { watchGateways } from "../src/gateways/watch.ts";
import { GATEWAY_OUTPUTS } from "../src/gateways/render.ts";
import { connect } from "../src/kube/index.ts";
import * as V from "../src/model/values.ts";
import { meta } from "./commands.ts";

const flags = defineFlags(
  {
    namespace: namespaceFlag("Namespace of the multicluster extension (where the Links are)"),
    "cluster-name": {
      type: "string",
      default: "",
      description: "Only the Link to this target cluster",
      suggest: "links",
      schema: unlessEmpty(V.clusterName),
    },
    output: outputFlag(GATEWAY_OUTPUTS),
    wait: durationFlag({
      alias: "w",
      default: "0s",
      description: "Wait up to this long for every Link to report a fresh status, e.g. 30s",
      message: "must be a duration such as 30s or 2m",
      min: 0,
      bareNumber: "plain",
    }),
    watch: {
      type: "boolean",
      default: false,
      description:
        "After the table, print each row again when it changes (kubectl get --watch), until Ctrl-C; with -o json, one row per line",
    },
  },
  { command: "gateways", example: "--cluster-name east" },
);

export default command(meta("gateways"), flags, async (f, g) => {
  if (f.watch && f.wait > 0) throw new UserError("--wait and --watch are mutually exclusive: --watch shows each status as it comes");
  const client = await connect({ kubeconfig: g.kubeconfig, context: g.context });
  if (f.watch) {
    const stop = new AbortController();
    process.once("SIGINT", () => stop.abort());
    process.once("SIGTERM", () => stop.abort());
    const write = (text: string) => void process.stdout.write(text);
    return watchGateways({ client, namespace: f.namespace, clusterName: f.clusterName, output: f.output, write, signal: stop.signal });
  }
  const out = await gatewaysOutput({ client, namespace: f.namespace, clusterName: f.clusterName, output: f.output, waitMs: f.wait });
  process.stdout.write(out);
});
