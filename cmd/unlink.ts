// mc unlink: print, for `kubectl delete -f -`, what `mc link` and its controller made for one link.
import { command } from "../src/cli/command.ts";
import { defineFlags } from "../src/cli/flags.ts";
import { linkerdNamespaceFlag, MANIFEST_OUTPUT, namespaceFlag } from "../src/cli/groups.ts";
import { connect } from "../src/kube/index.ts";
import { planUnlink, toStubs } from "../src/linker/unlink.ts";
import { logger } from "../src/log.ts";
import { formatManifests } from "../src/manifests/output.ts";
import * as V from "../src/model/values.ts";
import { meta } from "./commands.ts";

const flags = defineFlags(
  {
    "cluster-name": {
      type: "string",
      default: "",
      description: "The linked (target) cluster to unlink (required)",
      suggest: "links",
      schema: V.clusterName,
    },
    namespace: namespaceFlag("Namespace of the Link and its controller"),
    "linkerd-namespace": linkerdNamespaceFlag("Namespace of Linkerd's control plane (the credentials Secret copy)"),
    "only-controller": {
      type: "boolean",
      default: false,
      description: "Only the controller; keep the Link, its Secrets, Lease and mirrors",
    },
    output: MANIFEST_OUTPUT,
  },
  { command: "unlink" },
);

export default command(meta("unlink"), flags, async (f, g) => {
  const client = await connect({ kubeconfig: g.kubeconfig, context: g.context });
  const plan = await planUnlink(client, {
    clusterName: f.clusterName,
    namespace: f.namespace,
    linkerdNamespace: f.linkerdNamespace,
    onlyController: f.onlyController,
  });
  const log = logger("unlink");
  for (const line of plan.leftAlone) log.warn(line);
  for (const line of [...plan.membersLeft, ...plan.installed]) log.info(line);
  process.stdout.write(formatManifests(toStubs(plan.objects), f.output));
});
