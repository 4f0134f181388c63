// A command is its flag table and what it does with the checked values and the run's global
// flags; the name and description live with the subcommand list in cmd/mc.ts.
import type { ArgsDef, CommandDef, ParsedArgs } from "citty";
import type { FlagRows, Flags, FlagValues } from "./flags.ts";
import { globalsOf, type Globals } from "./globals.ts";

export function command<T extends FlagRows>(flags: Flags<T>, run: (f: FlagValues<T>, g: Globals, args: ParsedArgs<ArgsDef>) => Promise<void> | void): CommandDef<ArgsDef> {
  return { args: flags.args, run: ({ args, data }) => run(flags.parse(args), globalsOf(data), args) };
}
