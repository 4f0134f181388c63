// mc uninstall: print, for `kubectl delete -f -`, everything labelled as the multicluster extension's.
import { command } from "../src/cli/command.ts";
import { defineFlags } from "../src/cli/flags.ts";
import { MANIFEST_OUTPUT } from "../src/cli/groups.ts";
import { connect } from "../src/kube/index.ts";
import { planUninstall } from "../src/linker/uninstall.ts";
import { toStubs } from "../src/linker/unlink.ts";
import { formatManifests } from "../src/manifests/output.ts";
import { meta } from "./commands.ts";

const flags = defineFlags({ output: MANIFEST_OUTPUT }, { command: "uninstall" });

export default command(meta("uninstall"), flags, async (f, g) => {
  const client = await connect({ kubeconfig: g.kubeconfig, context: g.context });
  process.stdout.write(formatManifests(toStubs(await planUninstall(client)), f.output));
});
