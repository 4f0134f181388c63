// mc's subcommands, one line each: the root's usage lists them without loading any command
// module (cmd/mc.ts loads one when it runs), and each command heads its own usage with its line.
export const COMMANDS = {
  sandbox: "Start an in-memory Kubernetes API server (for tests, demos, and trying mc)",
  demo: "Link two in-memory clusters and watch services mirror, with live gateway health",
  serve: "Run the service mirror controller for one Link: mirror the target's exported Services into this cluster",
  gateways: "Show the health of each linked target's gateway (from the Links' status)",
  install: "Print the manifests for a cluster that will be linked to: gateway, remote access account, Link CRD",
  allow: "Print a remote access account (ServiceAccount, token, RBAC) for another source cluster",
  link: "Print, for the source cluster, the credentials, Link and controller that mirror this (target) cluster",
  "link-gen": "Print, for the source cluster, the credentials and Link only, for a controller its install renders (Linkerd's link-gen)",
  unlink: "Print, for kubectl delete -f -, everything mc link made for a link, and that cluster's mirrors",
  uninstall: "Print, for kubectl delete -f -, every object of the multicluster extension (refuses while Links exist)",
  check: "Check that the links of this (source) cluster work: credentials, trust, controllers, gateways, mirrors",
  completion: "Print the shell completion script for bash, zsh, fish or powershell",
} as const;

export type CommandName = keyof typeof COMMANDS;

/** citty's `meta` of a subcommand. */
export const meta = (name: CommandName) => ({ name, description: COMMANDS[name] });
