#!/usr/bin/env bun
// mc: multicluster service mirroring for Kubernetes, wire-compatible with Linkerd's extension.
import { defineCommand, renderUsage, runCommand, type ArgsDef, type CommandDef } from "citty";
import pkg from "../package.json" with { type: "json" };
import { formatError, UserError } from "../src/errors.ts";
import { setLogLevel } from "../src/log.ts";
import { extractGlobals, globalArgs, globals } from "./globals.ts";

const subCommands = {
  sandbox: () => import("./sandbox.ts").then((m) => m.default),
  demo: () => import("./demo.ts").then((m) => m.default),
  serve: () => import("./serve.ts").then((m) => m.default),
  gateways: () => import("./gateways.ts").then((m) => m.default),
  install: () => import("./install.ts").then((m) => m.default),
  allow: () => import("./allow.ts").then((m) => m.default),
  link: () => import("./link.ts").then((m) => m.default),
  unlink: () => import("./unlink.ts").then((m) => m.default),
  uninstall: () => import("./uninstall.ts").then((m) => m.default),
  check: () => import("./check.ts").then((m) => m.default),
};

export const main = defineCommand({
  meta: { name: "mc", version: pkg.version, description: "Multicluster service mirroring for Kubernetes (Linkerd-compatible)" },
  args: globalArgs,
  subCommands,
});

type AnyCommand = CommandDef<ArgsDef>;

async function resolve<T>(value: T | (() => T | Promise<T>) | Promise<T> | undefined): Promise<T | undefined> {
  return typeof value === "function" ? await (value as () => T | Promise<T>)() : await value;
}

/** Finds the command argv names, and the argv that belongs to it. */
async function findCommand(argv: string[]): Promise<{ cmd: AnyCommand; parents: AnyCommand[]; args: string[] }> {
  let cmd = main as unknown as AnyCommand;
  const parents: AnyCommand[] = [];
  let args = argv;
  for (;;) {
    const subs = await resolve(cmd.subCommands);
    const index = args.findIndex((a) => !a.startsWith("-"));
    if (!subs || index !== 0) return { cmd, parents, args };
    const name = args[0]!;
    const sub = subs[name];
    if (!sub) throw new UserError(`unknown command "${name}" for "mc" (commands: ${Object.keys(subs).join(", ")}; see mc --help)`);
    parents.push(cmd);
    cmd = (await resolve(sub)) as AnyCommand;
    args = args.slice(1);
  }
}

/** citty ignores flags it does not know; a tool people trust says so. */
async function rejectUnknownFlags(cmd: AnyCommand, args: string[]): Promise<void> {
  const defs = ((await resolve(cmd.args)) ?? {}) as ArgsDef;
  const known = new Set<string>(["help", "h"]);
  for (const [name, def] of Object.entries(defs)) {
    known.add(name);
    known.add(name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));
    if (def.type === "boolean") known.add(`no-${name}`);
    const aliases = "alias" in def && def.alias !== undefined ? def.alias : [];
    for (const alias of [aliases].flat()) known.add(alias);
  }
  for (const arg of args) {
    if (arg === "--") break;
    const m = /^--?([^=]+)/.exec(arg);
    if (!m || /^-\d/.test(arg)) continue;
    if (!known.has(m[1]!)) throw new UserError(`unknown flag: ${arg.split("=")[0]} (see mc ${(await resolve(cmd.meta))?.name ?? ""} --help)`);
  }
}

const TRUE_WORDS = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const FALSE_WORDS = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/**
 * Flag values as pflag reads them (kubectl, linkerd): `--flag=VALUE` of a boolean is Go's
 * ParseBool (citty takes anything but "false" as true), and a one-letter flag takes its value
 * attached (`-ojson`, `-o=json`) as well as separate (`-o json`).
 */
async function normalizeFlags(cmd: AnyCommand, args: string[]): Promise<string[]> {
  const defs = ((await resolve(cmd.args)) ?? {}) as ArgsDef;
  const booleans = new Set<string>();
  const shortValued = new Set<string>();
  for (const [name, def] of Object.entries(defs)) {
    const aliases = ("alias" in def && def.alias !== undefined ? [def.alias].flat() : []) as string[];
    if (def.type === "boolean") for (const n of [name, name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`), ...aliases]) booleans.add(n);
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
      if (!TRUE_WORDS.has(value) && !FALSE_WORDS.has(value)) throw new UserError(`--${long[1]}: must be true or false, got ${JSON.stringify(value)}`);
      out.push(`--${long[1]}=${TRUE_WORDS.has(value)}`);
      continue;
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

export async function run(argv: string[]): Promise<number> {
  try {
    const args = extractGlobals(argv);
    if (globals.verbose) setLogLevel("debug");
    if (args.length === 1 && args[0] === "--version") {
      process.stdout.write(`${pkg.version}\n`);
      return 0;
    }
    const { cmd, parents, args: own } = await findCommand(args);
    if (own.includes("--help") || own.includes("-h") || (cmd === (main as unknown) && own.length === 0)) {
      const usage = await renderUsage(cmd, parents.at(-1));
      // citty colours usage even when piped: keep colour for terminals only.
      const plain = process.env.NO_COLOR !== undefined || !process.stderr.isTTY;
      process.stderr.write(`${plain ? usage.replace(/\u001b\[[0-9;]*m/g, "") : usage}\n`);
      return 0;
    }
    const normalized = await normalizeFlags(cmd, own);
    await rejectUnknownFlags(cmd, normalized);
    await runCommand(cmd, { rawArgs: normalized });
    return 0;
  } catch (err) {
    process.stderr.write(`error: ${formatError(err)}\n`);
    if (globals.verbose && err instanceof Error && !(err instanceof UserError) && err.stack) process.stderr.write(`${err.stack}\n`);
    return 1;
  }
}

if (import.meta.main) {
  const code = await run(process.argv.slice(2));
  process.exitCode = code;
}
