#!/usr/bin/env bun
// mc: multicluster service mirroring for Kubernetes, wire-compatible with Linkerd's extension.
// Each subcommand is its name and one line here (all the root's usage needs) and a module
// loaded only when it runs or shows its own help; src/cli/run.ts does flags, help and errors.
import { defineCommand } from "citty";
import pkg from "../package.json" with { type: "json" };
import { GLOBAL_ARGS } from "../src/cli/globals.ts";
import { lazyCommand, runCli } from "../src/cli/run.ts";

const subCommands = {
  sandbox: lazyCommand("sandbox", "Start an in-memory Kubernetes API server (for tests, demos, and trying mc)", () => import("./sandbox.ts")),
  demo: lazyCommand("demo", "Link two in-memory clusters and watch services mirror, with live gateway health", () => import("./demo.ts")),
  serve: lazyCommand("serve", "Run the service mirror controller for one Link: mirror the target's exported Services into this cluster", () => import("./serve.ts")),
  gateways: lazyCommand("gateways", "Show the health of each linked target's gateway (from the Links' status)", () => import("./gateways.ts")),
  install: lazyCommand("install", "Print the manifests for a cluster that will be linked to: gateway, remote access account, Link CRD", () => import("./install.ts")),
  allow: lazyCommand("allow", "Print a remote access account (ServiceAccount, token, RBAC) for another source cluster", () => import("./allow.ts")),
  link: lazyCommand("link", "Print, for the source cluster, the credentials, Link and controller that mirror this (target) cluster", () => import("./link.ts")),
  unlink: lazyCommand("unlink", "Print, for kubectl delete -f -, everything mc link made for a link, and that cluster's mirrors", () => import("./unlink.ts")),
  uninstall: lazyCommand("uninstall", "Print, for kubectl delete -f -, every object of the multicluster extension (refuses while Links exist)", () => import("./uninstall.ts")),
  check: lazyCommand("check", "Check that the links of this (source) cluster work: credentials, trust, controllers, gateways, mirrors", () => import("./check.ts")),
};

export const main = defineCommand({
  meta: { name: "mc", version: pkg.version, description: "Multicluster service mirroring for Kubernetes (Linkerd-compatible)" },
  args: GLOBAL_ARGS,
  subCommands,
});

/** Runs mc with argv (no `bun`, no script path); returns the exit code. */
export const run = (argv: string[]): Promise<number> => runCli(main, argv);

if (import.meta.main) process.exitCode = await run(process.argv.slice(2));
