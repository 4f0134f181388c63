// The one way mc's commands run: global flags out of argv (passed to the command as citty's `data`, never kept in module state), the
// subcommand found and loaded, its flags read as pflag reads them, unknown flags refused, then citty runs it.
import { runCommand, type ArgsDef, type CommandDef } from "citty";
import { formatError, UserError } from "../errors.ts";
import { flushLogs, setLogLevel } from "../log.ts";
import { FALSE_WORDS, TRUE_WORDS } from "../model/values.ts";
import { extractGlobals } from "./globals.ts";
import { helpWidth, renderUsage, type CommandGroup, type CommandHelp } from "./usage.ts";

// Help (`--help`, `-h`, `mc help [cmd]`, a bare `mc`) goes to stdout with exit 0; any error is one
// line on stderr with exit 1, a stack only with `-v` and only for errors that are not the user's to
// fix.

type AnyCommand = CommandDef<ArgsDef>;

async function resolve<T>(value: T | (() => T | Promise<T>) | Promise<T> | undefined): Promise<T | undefined> {
  return typeof value === "function" ? await (value as () => T | Promise<T>)() : await value;
}

const argsOf = async (cmd: AnyCommand): Promise<ArgsDef> => ((await resolve(cmd.args)) ?? {}) as ArgsDef;
const aliasesOf = (def: ArgsDef[string]): string[] => ("alias" in def && def.alias !== undefined ? [def.alias].flat() : []);
const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** Finds the command argv names, and the argv that belongs to it. */
async function findCommand(
  root: AnyCommand,
  argv: string[],
  listed?: readonly string[],
): Promise<{ cmd: AnyCommand; parents: AnyCommand[]; args: string[] }> {
  let cmd = root;
  const parents: AnyCommand[] = [];
  let args = argv;
  for (;;) {
    const subs = await resolve(cmd.subCommands);
    const index = args.findIndex((a) => !a.startsWith("-"));
    if (!subs || index !== 0) return { cmd, parents, args };
    const name = args[0]!;
    const sub = subs[name];
    if (!sub)
      throw new UserError(`unknown command "${name}" for "mc" (commands: ${(listed ?? Object.keys(subs)).join(", ")}; see mc --help)`);
    parents.push(cmd);
    cmd = (await resolve(sub)) as AnyCommand;
    args = args.slice(1);
  }
}

/** citty ignores flags it does not know; a tool people trust says so. */
async function rejectUnknownFlags(cmd: AnyCommand, path: string, args: string[]): Promise<void> {
  const known = new Set<string>(["help", "h"]);
  for (const [name, def] of Object.entries(await argsOf(cmd))) {
    known.add(name);
    known.add(kebab(name));
    if (def.type === "boolean") known.add(`no-${name}`);
    for (const alias of aliasesOf(def)) known.add(alias);
  }
  for (const arg of args) {
    if (arg === "--") break;
    const m = /^--?([^=]+)/.exec(arg);
    if (!m || /^-\d/.test(arg)) continue;
    if (!known.has(m[1]!)) throw new UserError(`unknown flag: ${arg.split("=")[0]} (see ${path} --help)`);
  }
}

/**
 * Flag values as pflag reads them (kubectl, linkerd): `--flag=VALUE` of a boolean is Go's
 * ParseBool (citty takes anything but "false" as true), `--flag false` is refused (pflag reads
 * "false" as an argument, and a silent `true` would be worse), and a one-letter flag takes its
 * value attached (`-ojson`, `-o=json`) as well as separate (`-o json`).
 */
async function normalizeFlags(cmd: AnyCommand, args: string[]): Promise<string[]> {
  const booleans = new Set<string>();
  const shortValued = new Set<string>();
  for (const [name, def] of Object.entries(await argsOf(cmd))) {
    const aliases = aliasesOf(def);
    if (def.type === "boolean") for (const n of [name, kebab(name), ...aliases]) booleans.add(n);
    else if (def.type === "string") for (const a of aliases) if (a.length === 1) shortValued.add(a);
  }
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      out.push(...args.slice(i));
      break;
    }
    const long = /^--([^=]+)=(.*)$/s.exec(arg);
    if (long && booleans.has(long[1]!)) {
      const value = long[2]!;
      if (!TRUE_WORDS.has(value) && !FALSE_WORDS.has(value))
        throw new UserError(`--${long[1]}: must be true or false, got ${JSON.stringify(value)}`);
      out.push(`--${long[1]}=${TRUE_WORDS.has(value)}`);
      continue;
    }
    const next = args[i + 1];
    if (
      /^--?[^=-][^=]*$/.test(arg) &&
      booleans.has(arg.replace(/^--?/, "")) &&
      next !== undefined &&
      (TRUE_WORDS.has(next) || FALSE_WORDS.has(next))
    ) {
      throw new UserError(`unexpected argument ${JSON.stringify(next)}: boolean flags take their value after =, e.g. ${arg}=${next}`);
    }
    const short = /^-([A-Za-z])(=?)(.+)$/s.exec(arg);
    if (short && shortValued.has(short[1]!)) {
      out.push(`-${short[1]}`, short[3]!);
      continue;
    }
    out.push(arg);
  }
  return out;
}

/** What help shows beyond the commands' own definitions (cmd/help.ts). */
export interface HelpText {
  /** The root's subcommands, grouped, as name and one line: its usage loads no command module. */
  groups?: readonly CommandGroup[];
  /** Each command's paragraph and examples, by name. */
  commands?: Readonly<Record<string, CommandHelp>>;
}

/** The usage text of `cmd` (src/cli/usage.ts), wrapped to the terminal (asked of fd 1: `process.stdout` costs ~15 ms to make). */
async function usage(root: AnyCommand, cmd: AnyCommand, parents: AnyCommand[], text: HelpText): Promise<string> {
  const names = await Promise.all([...parents, cmd].map(async (c) => (await resolve(c.meta))?.name ?? ""));
  const meta = await resolve(cmd.meta);
  const isRoot = cmd === root;
  const groups = isRoot ? (text.groups ?? [{ title: "Commands", commands: await loadedSummaries(root) }]) : undefined;
  const isTerminal = (require("node:tty") as typeof import("node:tty")).isatty(1);
  return renderUsage({
    path: names.join(" "),
    description: meta?.description ?? "",
    help: isRoot ? undefined : text.commands?.[meta?.name ?? ""],
    args: isRoot ? {} : await argsOf(cmd),
    globals: await argsOf(root),
    groups,
    width: helpWidth(isTerminal, () => process.stdout.columns),
  });
}

/** The root's visible subcommands and their one lines, loading each (without cmd/help.ts's groups). */
async function loadedSummaries(root: AnyCommand): Promise<Array<readonly [string, string]>> {
  const subs = Object.entries((await resolve(root.subCommands)) ?? {});
  const metas = await Promise.all(
    subs.map(async ([name, sub]) => [name, await resolve(((await resolve(sub)) as AnyCommand).meta)] as const),
  );
  return metas.filter(([, m]) => !m?.hidden).map(([name, m]) => [name, m?.description ?? ""] as const);
}

/** Where help and the version go: process.stdout by default (tests replace its write). */
export type Output = (text: string) => unknown;

/**
 * Runs `mc` with argv (without `bun` and the script); returns the exit code. `text` is what
 * help shows beyond the commands' definitions (the root's groups list the subcommands without
 * loading their modules). `out`
 * takes help and the version: cmd/mc.ts passes Bun's stdout, so `mc --help` never makes Node's
 * process.stdout stream (about half its start-up).
 */
export async function runCli<T extends ArgsDef>(
  top: CommandDef<T>,
  argv: string[],
  text: HelpText = {},
  out: Output = (t) => process.stdout.write(t),
): Promise<number> {
  const root = top as unknown as AnyCommand;
  let verbose = false;
  try {
    const { globals, rest } = extractGlobals(argv);
    verbose = globals.verbose;
    if (verbose) setLogLevel("debug");
    if (rest.length === 1 && rest[0] === "--version") {
      await out(`${(await resolve(root.meta))?.version ?? ""}\n`);
      return 0;
    }
    // `mc help [command]` is `mc [command] --help`.
    const helpWord = rest[0] === "help";
    const listed = text.groups?.flatMap((g) => g.commands.map(([name]) => name));
    const { cmd, parents, args } = await findCommand(root, helpWord ? rest.slice(1) : rest, listed);
    const flags = args.includes("--") ? args.slice(0, args.indexOf("--")) : args;
    if (helpWord || flags.includes("--help") || flags.includes("-h") || (cmd === root && args.length === 0)) {
      await out(await usage(root, cmd, parents, text));
      return 0;
    }
    const normalized = await normalizeFlags(cmd, args);
    const names = await Promise.all([...parents, cmd].map(async (c) => (await resolve(c.meta))?.name ?? ""));
    await rejectUnknownFlags(cmd, names.join(" "), normalized);
    await runCommand(cmd, { rawArgs: normalized, data: globals });
    return 0;
  } catch (err) {
    flushLogs();
    process.stderr.write(`error: ${formatError(err)}\n`);
    if (verbose && err instanceof Error && !(err instanceof UserError) && err.stack) process.stderr.write(`${err.stack}\n`);
    return 1;
  } finally {
    // A command's log lines are written when it returns (in-process callers read its stderr then).
    flushLogs();
  }
}
