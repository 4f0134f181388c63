// mc link: run against the target; prints what the source applies (credentials, Link, controller).
// The flags are src/cli/link-flags.ts's table (the demo and the benchmark share its defaults).
import { defineCommand } from "citty";
import { globalsOf } from "../src/cli/globals.ts";
import { LINK_FLAGS, linkOptions } from "../src/cli/link-flags.ts";
import { buildLinkBundle } from "../src/linker/link.ts";
import { formatManifests } from "../src/manifests/output.ts";
import { meta } from "./commands.ts";

export default defineCommand({
  meta: meta("link"),
  args: LINK_FLAGS.args,
  async run({ args, data }) {
    const { options, output } = linkOptions(args, globalsOf(data));
    process.stdout.write(formatManifests(await buildLinkBundle(options), output));
  },
});
