// A command's flags as one table. Each row is a flag's name, alias, default and help text (what citty parses and prints) and its valibot
// schema (what checks and converts the value), so a flag is declared once: `args` is citty's definition, `parse` the checked values under
// camelCase keys (`--gateway-port` → `gatewayPort`), or a UserError naming the first bad flag and the fix, e.g.
import * as v from "valibot";
import { UserError } from "../errors.ts";
import type { HelpArg } from "./usage.ts";

// `--cluster-name: must be a DNS-1123 label (…), got "East_1"`. Pure.

/** A row's schema takes the flag's string, or undefined when it is unset and has no default. */
type Schema = v.GenericSchema<any, unknown>;

/** What only the help text reads (src/cli/usage.ts). */
interface HelpFields {
  /** The VALUE of `--flag=VALUE` in the help (default: the choices, or the name's last word). */
  value?: string;
  /** The default in words, where it is no literal: `(default the kubeconfig's)`. */
  defaultText?: string;
}

interface StringFlag extends HelpFields {
  type: "string";
  alias?: string;
  default?: string;
  description: string;
  /** The values completion offers (default: a picklist schema's). */
  choices?: readonly string[];
  /** Names completion reads from outside (src/cli/completion.ts): the cluster's Links. */
  suggest?: "links";
  /** Checks and converts the value: a string, or undefined when unset with no default. Without one, the string as given. */
  schema?: Schema;
}

interface BooleanFlag extends HelpFields {
  type: "boolean";
  alias?: string;
  default?: boolean;
  description: string;
}

/** A positional argument (`mc serve LINK_NAME`): passed through as given; the command checks it. */
interface PositionalFlag {
  type: "positional";
  required?: boolean;
  description: string;
  /** What completion offers for it: these values, or names read from outside. */
  choices?: readonly string[];
  suggest?: "links";
}

type FlagRow = StringFlag | BooleanFlag | PositionalFlag;
export type FlagRows = Record<string, FlagRow>;

type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

type RowValue<R extends FlagRow> = R extends { schema: infer S extends Schema }
  ? v.InferOutput<S>
  : R extends { type: "boolean" }
    ? R extends { default: boolean }
      ? boolean
      : boolean | undefined
    : R extends { default: string }
      ? string
      : string | undefined;

/** The checked values of a table's flags, under camelCase keys. */
export type FlagValues<T extends FlagRows> = { [K in keyof T & string as CamelCase<K>]: RowValue<T[K]> };

export interface Flags<T extends FlagRows> {
  readonly rows: T;
  /** citty's `args`: what it parses and what the usage text shows. */
  readonly args: Record<string, HelpArg>;
  /**
   * Checks and converts citty's parsed args (a flag it did not set takes the row's default, so
   * `parse({})` is what the command does given no flags). Throws a UserError naming the first
   * bad flag; arguments beyond the table's positionals are refused (`--flag false`, pflag's
   * mistake, the runner has refused already with the fix).
   */
  parse(args: Record<string, unknown>): FlagValues<T>;
}

export interface FlagsOptions {
  /** The command's name, for the stray-argument error: `mc check takes flags only`. */
  command: string;
  /** An example for that error: `mc gateways takes flags only (e.g. --cluster-name east)`. */
  example?: string;
}

export const camelCase = (name: string): string => name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

export function defineFlags<const T extends FlagRows>(rows: T, options: FlagsOptions): Flags<T> {
  const entries = Object.entries(rows);
  const flagOf = new Map(entries.map(([name]) => [camelCase(name), name]));
  const args: Record<string, HelpArg> = {};
  const shape: Record<string, Schema> = {};
  for (const [name, row] of entries) {
    args[name] = citty(row);
    shape[camelCase(name)] = row.type === "string" && row.schema ? row.schema : v.any();
  }
  const schema = v.object(shape);
  const positionals = entries.filter(([, row]) => row.type === "positional").map(([name]) => name.toUpperCase());
  const takes = positionals.length > 0 ? `only flags and ${positionals.join(" ")}` : "flags only";
  const strayHint = `mc ${options.command} takes ${takes}${options.example ? ` (e.g. ${options.example})` : ""}`;

  return {
    rows,
    args,
    parse(parsed) {
      const stray = ((parsed._ as string[] | undefined) ?? [])[positionals.length];
      if (stray !== undefined) throw new UserError(`unexpected argument ${JSON.stringify(stray)}: ${strayHint}`);
      const input: Record<string, unknown> = {};
      for (const [name, row] of entries) input[camelCase(name)] = parsed[name] ?? ("default" in row ? row.default : undefined);
      const result = v.safeParse(schema, input);
      if (result.success) return result.output as FlagValues<T>;
      const issue = result.issues[0];
      const key = String(issue.path?.[0]?.key ?? "");
      const got = issue.input === undefined ? "" : `, got ${JSON.stringify(issue.input)}`;
      throw new UserError(`--${flagOf.get(key) ?? key}: ${issue.message}${got}`);
    },
  };
}

/** The values of some rows only (a group of a larger table), e.g. the Link spec's. */
export function valuesOf<G extends FlagRows>(group: G, values: Record<string, unknown>): FlagValues<G> {
  return Object.fromEntries(Object.keys(group).map((name) => [camelCase(name), values[camelCase(name)]])) as FlagValues<G>;
}

/** citty's arg, with what help and completion read beside it (src/cli/usage.ts's HelpArg). */
function citty(row: FlagRow): HelpArg {
  if (row.type === "positional") {
    const { type, required, description, choices, suggest } = row;
    return { type, ...(required !== undefined && { required }), description, ...(choices && { choices }), ...(suggest && { suggest }) };
  }
  const { schema, value, choices, ...def } = row as StringFlag;
  const options = choices ?? picklistOptions(schema);
  return { ...def, ...(value !== undefined && { valueHint: value }), ...(options && { choices: options }) };
}

/** The options of a picklist schema (`V.oneOf`), bare or as the first step of a pipe. */
function picklistOptions(schema: Schema | undefined): readonly string[] | undefined {
  const s = schema as
    | { type?: string; options?: readonly string[]; pipe?: Array<{ type?: string; options?: readonly string[] }> }
    | undefined;
  if (s?.type === "picklist") return s.options;
  const first = s?.pipe?.[0];
  return first?.type === "picklist" ? first.options : undefined;
}

/**
 * Which of `names` hold a value other than their row's default (as checked, so `30s` and `30000ms`
 * are one value): the flags a user set, for refusing those another flag makes meaningless.
 */
export function changedFlags<T extends FlagRows>(flags: Flags<T>, values: FlagValues<T>, names: ReadonlyArray<keyof T & string>): string[] {
  return names.filter((name) => {
    const row = flags.rows[name] as FlagRow;
    if (row.type === "positional") return false;
    const given = (values as Record<string, unknown>)[camelCase(name)];
    let def: unknown = row.default;
    if (row.type === "string" && row.schema) {
      const parsed = v.safeParse(row.schema, row.default);
      def = parsed.success ? parsed.output : undefined;
    }
    return JSON.stringify(given ?? null) !== JSON.stringify(def ?? null);
  });
}

/** `--a`, `--a and --b`, `--a, --b and --c`. */
export function flagList(names: readonly string[]): string {
  const f = names.map((n) => (n.startsWith("-") ? n : `--${n}`));
  return f.length <= 1 ? (f[0] ?? "") : `${f.slice(0, -1).join(", ")} and ${f.at(-1)}`;
}
