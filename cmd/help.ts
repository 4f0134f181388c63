// What each command's --help says beyond its one line (cmd/commands.ts) and its flags: a paragraph where one helps, and Examples — every
// README line that runs the command among them (test/cmd/help-fits.test.ts fails when one is missing) — and the groups `mc --help` lists
// the commands in. Read by src/cli/run.ts; loads no command.
import type { CommandGroup, CommandHelp } from "../src/cli/usage.ts";
import { COMMANDS, type CommandName } from "./commands.ts";

export const HELP: Record<CommandName, CommandHelp> = {
  sandbox: {
    about:
      "It serves until Ctrl-C. The kubeconfig (cluster, user and context named after --name) is written before it says ready. " +
      "--linkerd makes it a cluster with Linkerd installed, so the README's walk on real clusters runs on two of them.",
    examples: [
      {
        command: "mc sandbox --name east --tls --linkerd --trust-anchor trust-anchor.pem --kubeconfig east.kubeconfig",
        comment: "east and west, sharing one trust anchor",
      },
      { command: "mc sandbox --name west --tls --linkerd --trust-anchor trust-anchor.pem --kubeconfig west.kubeconfig" },
      {
        command: "mc sandbox --name east --kubeconfig ./east.kubeconfig --fail-rate 0.1 --latency 50ms",
        comment: "a cluster that misbehaves",
      },
    ],
  },
  demo: {
    about:
      "Installs mc on both clusters, links them, mirrors east's exported web as web-east in west, then stops and starts east's gateway. In a terminal (or with --hold) it keeps running for kubectl and mc to poke at.",
    examples: [{ command: "mc demo" }, { command: "mc demo --hold", comment: "keep the clusters and the controller running" }],
  },
  serve: {
    about:
      "What the Deployment mc link renders runs. It watches the target's exported Services and keeps their mirrors in this cluster, " +
      "probes the target's gateway and writes the Link's status. With several replicas only the holder of the Lease writes. " +
      "Its admin server answers /metrics, /ready and /live.",
    examples: [
      {
        command:
          "mc --kubeconfig west.kubeconfig serve east --fast-failure-detection --probe-address 127.0.0.1:4191 --admin-addr 127.0.0.1:0",
        comment: "outside a cluster: probe a stand-in gateway (or a port-forward) there, admin on a free port",
      },
      {
        command: "mc --kubeconfig west.kubeconfig serve east --probe-direct --admin-addr 127.0.0.1:0",
        comment: "outside a cluster, against reachable gateways: probe their addresses themselves",
      },
      { command: "mc serve --all", comment: "every Link of linkerd-multicluster from one process" },
      {
        command: "mc --context east serve --local --cluster-name east",
        comment: "the local mirror, named in the ClusterSet: east's own ServiceExports imported in east, their conditions written",
      },
    ],
  },
  gateways: {
    about: "Read from each Link's status.gateway, which the Link's controller keeps: no port-forward and no Prometheus.",
    examples: [
      { command: "mc --context west gateways", comment: "CLUSTER ALIVE NUM_SVC LATENCY_P50 …" },
      { command: "mc --context west gateways --cluster-name east -o json" },
      { command: "mc --context west gateways --watch", comment: "then a row again each time it changes, until Ctrl-C" },
    ],
  },
  install: {
    about:
      "On a cluster that will be linked to (a target): the gateway and the remote-access account. On a source: the namespace, " +
      "the Link CRD, the local service mirror and, with --controllers, each Link's controller as Linkerd 2.18's chart renders it. " +
      "The trust domain is read from linkerd-config unless --ignore-cluster.",
    examples: [
      { command: "mc --context east install | kubectl --context east apply -f -", comment: "the target: gateway, remote access, Link CRD" },
      { command: "mc --context west install | kubectl --context west apply -f -", comment: "the source needs the namespace and CRD too" },
      {
        command: "mc --context west install --controllers east | kubectl --context west apply -f -",
        comment: "a source whose install renders east's controller (GitOps; the Link from mc link-gen)",
      },
      {
        command: "mc --context east install --cluster-name east | kubectl --context east apply -f -",
        comment: "its local mirror also imports east's own ServiceExports (Multi-Cluster Services API)",
      },
    ],
  },
  allow: {
    examples: [
      {
        command:
          "mc --context east allow --service-account-name linkerd-service-mirror-remote-access-north | kubectl --context east apply -f -",
        comment: "a second source cluster, north, gets its own account on east",
      },
    ],
  },
  link: {
    about:
      "Run it against the target cluster (east): it reads the remote-access account's token, the gateway's address and Linkerd's " +
      "trust domain there, and prints what the source cluster (west) applies. --controller=false leaves the controller out (GitOps).",
    examples: [
      {
        command: "mc --context east link --cluster-name east | kubectl --context west apply -f -",
        comment: "credentials, Link, controller",
      },
      {
        command: "mc --context east link --cluster-name east --fast-failure-detection | kubectl --context west apply -f -",
        comment: "the same, its controller noticing a hung gateway in < 4 s",
      },
      {
        command: "mc --context east link --cluster-name east --controller=false > east-link.yaml",
        comment: "the Secrets and the Link only",
      },
    ],
  },
  "link-gen": {
    about:
      "The same as mc link --controller=false, under Linkerd 2.18's name: the source's controller for this link is rendered " +
      "by its install (mc install --controllers NAME), which GitOps applies once; this output is the link itself.",
    examples: [
      {
        command: "mc --context east link-gen --cluster-name east | kubectl --context west apply -f -",
        comment: "with mc --context west install --controllers east applied on west",
      },
    ],
  },
  unlink: {
    about:
      "Objects are found by their labels, so it works whichever mc (or Linkerd) version made them. --only-controller keeps the Link, its Secrets and the mirrors.",
    examples: [
      { command: "mc --context west unlink --cluster-name east | kubectl --context west delete -f -", comment: "the link and its mirrors" },
      {
        command: "mc --context west unlink --cluster-name east --only-controller | kubectl --context west delete -f -",
        comment: "only mc link's controller, once mc install --controllers east runs the install's",
      },
    ],
  },
  uninstall: {
    examples: [
      { command: "mc --context west uninstall | kubectl --context west delete -f -", comment: "the extension (once no Link is left)" },
    ],
  },
  completion: {
    about:
      "Completes commands, flags, their values (-o), Link names (read from the cluster, given a second at most) and the " +
      "kubeconfig's contexts. bash needs the bash-completion package.",
    examples: [
      { command: "source <(mc completion bash)", comment: "in ~/.bashrc (bash-completion installed), or ~/.zshrc with zsh" },
      { command: "mc completion fish | source", comment: "fish; PowerShell: mc completion powershell | Out-String | Invoke-Expression" },
    ],
  },
  check: {
    about: "Each check prints as it finishes; a failing one says what to do (docs/checks.md explains each). It exits 1 when a check fails.",
    examples: [
      { command: "mc --context west check --wait 2m", comment: "credentials, trust, controller, gateways, mirrors" },
      { command: "mc --context west check -o short", comment: "only what did not pass" },
      { command: "mc --context west check -o json" },
    ],
  },
};

const GROUPS: ReadonlyArray<readonly [string, readonly CommandName[]]> = [
  ["Link clusters", ["install", "link", "link-gen", "allow", "unlink", "uninstall"]],
  ["Run and inspect", ["serve", "gateways", "check"]],
  ["Try it", ["sandbox", "demo"]],
  ["Shell", ["completion"]],
];

/** `mc --help`'s command groups. */
export const COMMAND_GROUPS: readonly CommandGroup[] = GROUPS.map(([title, names]) => ({
  title,
  commands: names.map((n) => [n, COMMANDS[n]] as const),
}));
