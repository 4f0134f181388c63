// mc gateways: the health of every linked target's gateway, read from the Links' status.gateway
// on the source cluster (no port-forward, no Prometheus).
import { defineCommand } from "citty";
import * as v from "valibot";
import { UserError } from "../src/errors.ts";
import { gatewaysOutput } from "../src/gateways/read.ts";
import { GATEWAY_OUTPUTS } from "../src/gateways/render.ts";
import { connect } from "../src/kube/index.ts";
import { DurationError, parseDuration } from "../src/model/duration.ts";
import { DEFAULT_NAMESPACE } from "../src/model/names.ts";
import * as V from "../src/model/values.ts";
import { parseFlags } from "./flags.ts";
import { globals } from "./globals.ts";

const wait = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    try {
      const ms = parseDuration(dataset.value.trim());
      if (ms >= 0) return ms;
    } catch (err) {
      if (!(err instanceof DurationError)) throw err;
    }
    const bare = /^\d+$/.test(dataset.value.trim()) ? ` (a bare number has no unit: write ${dataset.value.trim()}s)` : "";
    addIssue({ message: `must be a duration such as 30s or 2m${bare}` });
    return NEVER;
  }),
);

const Flags = v.object({
  namespace: V.namespace,
  "cluster-name": v.optional(V.clusterName),
  output: V.oneOf(GATEWAY_OUTPUTS),
  wait,
});

export default defineCommand({
  meta: { name: "gateways", description: "Show the health of each linked target's gateway (from the Links' status)" },
  args: {
    namespace: { type: "string", default: DEFAULT_NAMESPACE, description: "Namespace of the multicluster extension (where the Links are)" },
    "cluster-name": { type: "string", default: "", description: "Only the Link to this target cluster" },
    output: { type: "string", alias: "o", default: "table", description: "Output format: table or json" },
    wait: { type: "string", alias: "w", default: "0s", description: "Wait up to this long for every Link to report a fresh status, e.g. 30s" },
  },
  async run({ args }) {
    if (args._.length > 0) throw new UserError(`unexpected argument ${JSON.stringify(args._[0])}: mc gateways takes flags only (e.g. --cluster-name east)`);
    const f = parseFlags(Flags, { ...args, "cluster-name": args["cluster-name"] || undefined });
    const client = await connect({ kubeconfig: globals.kubeconfig, context: globals.context });
    const out = await gatewaysOutput({ client, namespace: f.namespace, clusterName: f["cluster-name"], output: f.output, waitMs: f.wait });
    process.stdout.write(out);
  },
});
