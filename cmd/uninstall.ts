// mc uninstall: print, for `kubectl delete -f -`, everything labelled as the multicluster extension's.
import { defineCommand } from "citty";
import * as v from "valibot";
import { UserError } from "../src/errors.ts";
import { connect } from "../src/kube/index.ts";
import { planUninstall } from "../src/linker/uninstall.ts";
import { toStubs } from "../src/linker/unlink.ts";
import { formatManifests, OUTPUT_FORMATS } from "../src/manifests/output.ts";
import * as V from "../src/model/values.ts";
import { parseFlags } from "./flags.ts";
import { globals } from "./globals.ts";

const Flags = v.object({ output: V.oneOf(OUTPUT_FORMATS) });

export default defineCommand({
  meta: { name: "uninstall", description: "Print, for kubectl delete -f -, every object of the multicluster extension (refuses while Links exist)" },
  args: {
    output: { type: "string", alias: "o", default: "yaml", description: "Output format: yaml or json" },
  },
  async run({ args }) {
    if (args._.length > 0) throw new UserError(`unexpected argument ${JSON.stringify(args._[0])}: mc uninstall takes flags only`);
    const f = parseFlags(Flags, args);
    const client = await connect({ kubeconfig: globals.kubeconfig, context: globals.context });
    process.stdout.write(formatManifests(toStubs(await planUninstall(client)), f.output));
  },
});
