// mc allow: one more remote access account on a target, for another source cluster (SPEC §8).
import { defineCommand } from "citty";
import * as v from "valibot";
import pkg from "../package.json" with { type: "json" };
import { UserError } from "../src/errors.ts";
import { buildAllow } from "../src/linker/install.ts";
import { formatManifests, OUTPUT_FORMATS } from "../src/manifests/output.ts";
import { DEFAULT_NAMESPACE } from "../src/model/names.ts";
import * as V from "../src/model/values.ts";
import { parseFlags } from "./flags.ts";
import { globals } from "./globals.ts";

const SA_EXAMPLE = "the account another source cluster will use, e.g. --service-account-name linkerd-service-mirror-remote-access-west";

const Flags = v.object({
  "service-account-name": v.pipe(v.string(`is required: ${SA_EXAMPLE}`), v.nonEmpty(`is required: ${SA_EXAMPLE}`), V.objectName),
  namespace: V.namespace,
  "ignore-cluster": v.boolean(),
  output: V.oneOf(OUTPUT_FORMATS),
});

export default defineCommand({
  meta: { name: "allow", description: "Print a remote access account (ServiceAccount, token, RBAC) for another source cluster" },
  args: {
    "service-account-name": { type: "string", description: "Name of the ServiceAccount to create (required)" },
    namespace: { type: "string", default: DEFAULT_NAMESPACE, description: "Namespace of the multicluster extension" },
    "ignore-cluster": { type: "boolean", default: false, description: "Do not check the cluster for an existing account" },
    output: { type: "string", alias: "o", default: "yaml", description: "Output format: yaml or json" },
  },
  async run({ args }) {
    if (args._.length > 0) throw new UserError(`unexpected argument ${JSON.stringify(args._[0])}: boolean flags take their value after =, e.g. --ignore-cluster=true`);
    const f = parseFlags(Flags, { ...args, "service-account-name": args["service-account-name"] });
    const objects = await buildAllow({
      namespace: f.namespace,
      serviceAccount: f["service-account-name"],
      version: pkg.version,
      ignoreCluster: f["ignore-cluster"],
      kubeconfig: globals.kubeconfig,
      context: globals.context,
    });
    process.stdout.write(formatManifests(objects, f.output));
  },
});
