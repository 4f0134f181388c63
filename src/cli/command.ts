// A command is its name and description, its flag table, and what it does with the checked
// values and the run's global flags.
import type { ArgsDef, CommandDef, CommandMeta, ParsedArgs } from "citty";
import type { FlagRows, Flags, FlagValues } from "./flags.ts";
import { globalsOf, type Globals } from "./globals.ts";

export function command<T extends FlagRows>(
  meta: CommandMeta,
  flags: Flags<T>,
  run: (f: FlagValues<T>, g: Globals, args: ParsedArgs<ArgsDef>) => Promise<void> | void,
): CommandDef<ArgsDef> {
  return { meta, args: flags.args, run: ({ args, data }) => run(flags.parse(args), globalsOf(data), args) };
}
