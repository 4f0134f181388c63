// mc unlink: print, for `kubectl delete -f -`, what `mc link` and its controller made for one link.
import { defineCommand } from "citty";
import * as v from "valibot";
import { UserError } from "../src/errors.ts";
import { connect } from "../src/kube/index.ts";
import { planUnlink, toStubs } from "../src/linker/unlink.ts";
import { logger } from "../src/log.ts";
import { formatManifests, OUTPUT_FORMATS } from "../src/manifests/output.ts";
import { DEFAULT_LINKERD_NAMESPACE, DEFAULT_NAMESPACE } from "../src/model/names.ts";
import * as V from "../src/model/values.ts";
import { parseFlags } from "./flags.ts";
import { globals } from "./globals.ts";

const Flags = v.object({
  "cluster-name": V.clusterName,
  namespace: V.namespace,
  "linkerd-namespace": V.namespace,
  "only-controller": v.boolean(),
  output: V.oneOf(OUTPUT_FORMATS),
});

export default defineCommand({
  meta: { name: "unlink", description: "Print, for kubectl delete -f -, everything mc link made for a link, and that cluster's mirrors" },
  args: {
    "cluster-name": { type: "string", default: "", description: "The linked (target) cluster to unlink (required)" },
    namespace: { type: "string", default: DEFAULT_NAMESPACE, description: "Namespace of the Link and its controller" },
    "linkerd-namespace": { type: "string", alias: "L", default: DEFAULT_LINKERD_NAMESPACE, description: "Namespace of Linkerd's control plane (the credentials Secret copy)" },
    "only-controller": { type: "boolean", default: false, description: "Only the controller; keep the Link, its Secrets, Lease and mirrors" },
    output: { type: "string", alias: "o", default: "yaml", description: "Output format: yaml or json" },
  },
  async run({ args }) {
    if (args._.length > 0) throw new UserError(`unexpected argument ${JSON.stringify(args._[0])}: boolean flags take their value after =, e.g. --only-controller=true`);
    const f = parseFlags(Flags, args);
    const client = await connect({ kubeconfig: globals.kubeconfig, context: globals.context });
    const plan = await planUnlink(client, {
      clusterName: f["cluster-name"],
      namespace: f.namespace,
      linkerdNamespace: f["linkerd-namespace"],
      onlyController: f["only-controller"],
    });
    const log = logger("unlink");
    for (const line of plan.leftAlone) log.warn(line);
    process.stdout.write(formatManifests(toStubs(plan.objects), f.output));
  },
});
