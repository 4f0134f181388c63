// mc's usage text, kubectl's layout over citty's command definitions: the one-line description, a paragraph where one helps, Examples, the
// flags sorted by name (then the global ones), each `--flag=VALUE` on its own line and its words under it, wrapped to the width, then the
// usage line. Defaults read `(default …)` everywhere; a boolean that defaults to true shows its `--no-` form on its line.
import type { ArgsDef } from "citty";

// Pure: the width and everything shown come in.

/** A README-style example: the command line and, above it, what it does. */
interface Example {
  command: string;
  comment?: string;
}

/** What a command's help says beyond its one line and its flags. */
export interface CommandHelp {
  /** A paragraph under the one line, where the command needs one. */
  about?: string;
  examples?: readonly Example[];
}

/** The extra fields mc's flag table gives citty's args (citty ignores them). */
export type HelpArg = ArgsDef[string] & { defaultText?: string; choices?: readonly string[]; suggest?: "links" };

export interface CommandGroup {
  title: string;
  commands: ReadonlyArray<readonly [name: string, summary: string]>;
}

export interface UsageInput {
  /** `mc link`. */
  path: string;
  description: string;
  help?: CommandHelp;
  args: ArgsDef;
  globals: ArgsDef;
  /** The root's subcommands, grouped. */
  groups?: readonly CommandGroup[];
  width: number;
}

const FLAG_INDENT = "  ";
const WORDS_INDENT = "      ";

/** The help text of one command (or of the root, with `groups`). */
export function renderUsage(u: UsageInput): string {
  const width = Math.max(40, u.width);
  const out: string[] = [...wrap(u.description, width, "", "")];
  if (u.help?.about) out.push("", ...wrap(u.help.about, width, " ", " "));
  const examples = u.help?.examples ?? [];
  if (examples.length > 0) {
    out.push("", "Examples:");
    examples.forEach((e, i) => {
      if (i > 0 && e.comment) out.push("");
      if (e.comment) out.push(...wrap(`# ${e.comment}`, width, "  ", "  # "));
      out.push(...commandLines(e.command, width));
    });
  }
  const pad = Math.max(0, ...(u.groups ?? []).flatMap((g) => g.commands.map(([name]) => name.length))) + 2;
  for (const group of u.groups ?? []) {
    out.push("", `${group.title}:`);
    for (const [name, summary] of group.commands) out.push(...wrap(summary, width, `  ${name.padEnd(pad)}`, " ".repeat(pad + 2)));
  }
  const entries = Object.entries(u.args) as Array<[string, HelpArg]>;
  const positionals = entries.filter(([, d]) => d.type === "positional");
  if (positionals.length > 0) {
    out.push("", "Arguments:");
    for (const [name, def] of positionals) out.push(`${FLAG_INDENT}${name.toUpperCase()}`, ...words(def, width));
  }
  const flags = entries.filter(([, d]) => d.type !== "positional").sort(([a], [b]) => a.localeCompare(b));
  if (flags.length > 0) out.push("", "Options:", ...flags.flatMap(([name, def]) => flagEntry(name, def, width)));
  // A command may list a global flag among its own, for what it means there (mc sandbox --kubeconfig).
  const globals = (Object.entries(u.globals) as Array<[string, HelpArg]>).filter(([name]) => !(name in u.args));
  if (globals.length > 0) out.push("", "Global options:", ...globals.flatMap(([name, def]) => flagEntry(name, def, width)));
  const args = positionals.map(([name, def]) => (def.required === false ? `[${name.toUpperCase()}]` : name.toUpperCase()));
  const usage = u.groups
    ? `${u.path} <command> [options]`
    : [u.path, ...args, flags.length > 0 ? "[options]" : ""].filter(Boolean).join(" ");
  out.push("", "Usage:", `  ${usage}`);
  if (u.groups) out.push("", `Use "${u.path} <command> --help" for more information about a command.`);
  return `${out.join("\n")}\n`;
}

/** How a flag is written: `-o, --output=yaml|json`, `--gateway, --no-gateway`. */
function flagSpelling(name: string, def: HelpArg): string {
  const aliases = "alias" in def && def.alias !== undefined ? [def.alias].flat() : [];
  const short = aliases.map((a) => `-${a}, `).join("");
  if (def.type === "boolean") return `${short}--${name}${def.default === true ? `, --no-${name}` : ""}`;
  return `${short}--${name}=${valueWord(name, def)}`;
}

/** The VALUE of `--flag=VALUE`: the row's hint, its choices when they are few, else the last word of its name. */
function valueWord(name: string, def: HelpArg): string {
  if (def.valueHint) return def.valueHint;
  const choices = def.choices?.join("|");
  if (choices && choices.length <= 24) return choices;
  return (name.split("-").at(-1) ?? name).toUpperCase();
}

function flagEntry(name: string, def: HelpArg, width: number): string[] {
  return [`${FLAG_INDENT}${flagSpelling(name, def)}`, ...words(def, width)];
}

/** A flag's words and its default, `(default …)`: a boolean's only when true, an empty string's never. */
function flagWords(def: HelpArg): string {
  const d =
    def.defaultText ??
    (def.type === "boolean" ? (def.default === true ? "true" : undefined) : def.default === "" ? undefined : def.default?.toString());
  return [def.description ?? "", d === undefined ? "" : `(default ${d})`].filter(Boolean).join(" ");
}

function words(def: HelpArg, width: number): string[] {
  return wrap(flagWords(def), width, WORDS_INDENT, WORDS_INDENT);
}

/**
 * A command line as shell reads it: too long for the width, it goes on after ` \` on the next
 * line, broken before a `|` where it can be.
 */
function commandLines(command: string, width: number): string[] {
  const max = width - 2;
  const [head, ...piped] = command.split(" | ");
  const parts = [head!, ...piped.map((p) => `| ${p}`)];
  const lines: string[] = [];
  let line = "";
  for (const part of parts) {
    const joined = line === "" ? `  ${part}` : `${line} ${part}`;
    if (line === "" || joined.length <= max) line = joined;
    else {
      lines.push(line);
      line = `      ${part}`;
    }
  }
  lines.push(line);
  const fitted = lines.flatMap((l) => (l.length <= max ? [l] : wrap(l.trim(), max, l.slice(0, l.length - l.trimStart().length), "      ")));
  return fitted.map((l, i) => (i < fitted.length - 1 ? `${l} \\` : l));
}

/** Words filled into lines of at most `width` columns (a word longer than a line stands alone). */
function wrap(text: string, width: number, first: string, rest: string): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = rest;
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  }
  if (!empty || lines.length === 0) lines.push(line.trimEnd());
  return lines;
}

/** The width help wraps to: $COLUMNS when set, a terminal's width, else 80. */
export function helpWidth(isTerminal: boolean, columns: () => number | undefined): number {
  const env = Number(process.env.COLUMNS);
  if (Number.isInteger(env) && env > 0) return env;
  return (isTerminal ? columns() : undefined) || 80;
}
