#!/usr/bin/env bun
// mc: multicluster service mirroring for Kubernetes, wire-compatible with Linkerd's extension.
// Subcommands load lazily: `mc --help` lists them from cmd/help.ts's groups and loads none.
// src/cli/run.ts does the global flags, help and errors.
import { defineCommand, type ArgsDef } from "citty";
import pkg from "../package.json" with { type: "json" };
import { GLOBAL_ARGS } from "../src/cli/globals.ts";
import { runCli } from "../src/cli/run.ts";
import { COMMANDS, type CommandName } from "./commands.ts";
import { COMMAND_GROUPS, HELP } from "./help.ts";

const subCommands = {
  sandbox: () => import("./sandbox.ts").then((m) => m.default),
  demo: () => import("./demo.ts").then((m) => m.default),
  serve: () => import("./serve.ts").then((m) => m.default),
  gateways: () => import("./gateways.ts").then((m) => m.default),
  install: () => import("./install.ts").then((m) => m.default),
  allow: () => import("./allow.ts").then((m) => m.default),
  link: () => import("./link.ts").then((m) => m.default),
  "link-gen": () => import("./link-gen.ts").then((m) => m.default),
  unlink: () => import("./unlink.ts").then((m) => m.default),
  uninstall: () => import("./uninstall.ts").then((m) => m.default),
  check: () => import("./check.ts").then((m) => m.default),
  completion: () => import("./completion.ts").then((m) => m.default),
  // Hidden: what the completion script calls on each TAB.
  complete: () => import("./complete.ts").then((m) => m.completeCommand(argsOf)),
} satisfies Record<CommandName | "complete", unknown>;

/** A command's flag table, for completion (loads that one command only). */
async function argsOf(name: string): Promise<ArgsDef | undefined> {
  if (!(name in COMMANDS)) return undefined;
  const args = (await subCommands[name as CommandName]()).args;
  return (typeof args === "function" ? await args() : await args) as ArgsDef | undefined;
}

export const main = defineCommand({
  meta: { name: "mc", version: pkg.version, description: "Multicluster service mirroring for Kubernetes (Linkerd-compatible)" },
  args: GLOBAL_ARGS,
  subCommands,
});

const HELP_TEXT = { groups: COMMAND_GROUPS, commands: HELP };

/** Runs mc with argv (no `bun`, no script path); returns the exit code. */
export const run = (argv: string[]): Promise<number> => runCli(main, argv, HELP_TEXT);

// Run as a program, help and the version go straight to fd 1 (Bun.stdout), not through Node's
// process.stdout, which is slow to make; `run` (for in-process tests) keeps process.stdout.
if (import.meta.main) process.exitCode = await runCli(main, process.argv.slice(2), HELP_TEXT, (text) => Bun.write(Bun.stdout, text));
