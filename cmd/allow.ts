// mc allow: one more remote access account on a target, for another source cluster
// (docs/linkerd-compatibility.md#unlink).
import * as v from "valibot";
import pkg from "../package.json" with { type: "json" };
import { command } from "../src/cli/command.ts";
import { defineFlags } from "../src/cli/flags.ts";
import { MANIFEST_OUTPUT, namespaceFlag, REMOTE_ACCESS_FLAGS } from "../src/cli/groups.ts";
import { buildAllow } from "../src/linker/install.ts";
import { formatManifests } from "../src/manifests/output.ts";
import * as V from "../src/model/values.ts";
import { meta } from "./commands.ts";

const SA_EXAMPLE = "the account another source cluster will use, e.g. --service-account-name linkerd-service-mirror-remote-access-west";

const flags = defineFlags(
  {
    "service-account-name": {
      type: "string",
      description: "Name of the ServiceAccount to create (required)",
      schema: v.pipe(v.string(`is required: ${SA_EXAMPLE}`), v.nonEmpty(`is required: ${SA_EXAMPLE}`), V.objectName),
    },
    namespace: namespaceFlag(),
    ...REMOTE_ACCESS_FLAGS,
    "ignore-cluster": { type: "boolean", default: false, description: "Do not check the cluster for an existing account" },
    output: MANIFEST_OUTPUT,
  },
  { command: "allow" },
);

export default command(meta("allow"), flags, async (f, g) => {
  const objects = await buildAllow({
    namespace: f.namespace,
    serviceAccount: f.serviceAccountName,
    version: pkg.version,
    access: { endpointSlices: f.endpointSlicesAccess, remoteDiscovery: f.remoteDiscoveryAccess, namespaces: f.namespacesAccess },
    ignoreCluster: f.ignoreCluster,
    kubeconfig: g.kubeconfig,
    context: g.context,
  });
  process.stdout.write(formatManifests(objects, f.output));
});
