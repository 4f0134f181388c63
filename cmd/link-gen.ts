// mc link-gen: Linkerd 2.18's name for what `mc link --controller=false` prints — the credentials
// Secrets and the Link, no controller — for a source whose controllers its install renders
// (`mc install --controllers`, GitOps). Linkerd's link-gen flags, from mc link's table.
import { defineFlags } from "../src/cli/flags.ts";
import { command } from "../src/cli/command.ts";
import { LINK_FLAGS, linkOptions } from "../src/cli/link-flags.ts";
import { buildLinkBundle } from "../src/linker/link.ts";
import { formatManifests } from "../src/manifests/output.ts";
import { meta } from "./commands.ts";

/** mc link's flags that are not the controller's (Linkerd's link-gen has no controller flags). */
const LINK_GEN_ROWS = [
  "cluster-name",
  "namespace",
  "linkerd-namespace",
  "api-server-address",
  "service-account-name",
  "gateway-name",
  "gateway-namespace",
  "gateway-addresses",
  "gateway-port",
  "gateway",
  "selector",
  "remote-discovery-selector",
  "federated-service-selector",
  "excluded-annotations",
  "excluded-labels",
  "selector-allow-empty",
  "output",
] as const satisfies ReadonlyArray<keyof typeof LINK_FLAGS.rows>;

const flags = defineFlags(
  Object.fromEntries(LINK_GEN_ROWS.map((name) => [name, LINK_FLAGS.rows[name]])) as Pick<
    typeof LINK_FLAGS.rows,
    (typeof LINK_GEN_ROWS)[number]
  >,
  {
    command: "link-gen",
  },
);

export default command(meta("link-gen"), flags, async (_f, g, args) => {
  const { options, output } = linkOptions({ ...args, controller: "false" }, g);
  process.stdout.write(formatManifests(await buildLinkBundle(options), output));
});
