// Every bad flag of mc link, install and allow: one line naming the flag and the fix, exit 1,
// nothing on stdout. Validation runs before any cluster is contacted, so no sandbox is needed.
import { describe, expect, test } from "bun:test";
import { runMc } from "./run-mc.ts";

async function expectFlagError(argv: string[], message: string): Promise<void> {
  const r = await runMc(argv);
  expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 1, stdout: "", stderr: `error: ${message}\n` });
}

const link = (...args: string[]) => ["link", "--cluster-name", "east", ...args];

describe("mc link rejects bad flags", () => {
  test.each<[string, string[], string]>([
    ["a missing cluster name", ["link"], "--cluster-name: is required: the target cluster's name, e.g. --cluster-name east"],
    [
      "a cluster name that is not a DNS label",
      ["link", "--cluster-name", "East_1"],
      `--cluster-name: must be a DNS-1123 label (lowercase letters, digits, '-'), got "East_1"`,
    ],
    [
      "a cluster name too long for probe-gateway-<name>",
      ["link", "--cluster-name", "a".repeat(50)],
      `--cluster-name: must be at most 49 characters (probe-gateway-<name> must fit in 63), got "${"a".repeat(50)}"`,
    ],
    [
      "a bad namespace",
      link("--namespace", "Multi"),
      `--namespace: must be a namespace name (lowercase letters, digits, '-'), got "Multi"`,
    ],
    [
      "a bad Linkerd namespace",
      link("-L", "l5d!"),
      `--linkerd-namespace: must be a namespace name (lowercase letters, digits, '-'), got "l5d!"`,
    ],
    [
      "an API server address that is not a URL",
      link("--api-server-address", "10.0.0.1:6443"),
      `--api-server-address: must be an http(s) URL such as https://203.0.113.10:6443, got "10.0.0.1:6443"`,
    ],
    [
      "a bad service account name",
      link("--service-account-name", "Bad Name"),
      `--service-account-name: must be a DNS-1123 name (lowercase letters, digits, '-', '.'), got "Bad Name"`,
    ],
    [
      "a bad gateway name",
      link("--gateway-name", "gw_1"),
      `--gateway-name: must be a DNS-1123 name (lowercase letters, digits, '-', '.'), got "gw_1"`,
    ],
    [
      "a bad gateway namespace",
      link("--gateway-namespace", "NS"),
      `--gateway-namespace: must be a namespace name (lowercase letters, digits, '-'), got "NS"`,
    ],
    [
      "a gateway address that is neither IP nor hostname",
      link("--gateway-addresses", "203.0.113.10,bad_host"),
      `--gateway-addresses: must be comma-separated IPs or hostnames, e.g. 203.0.113.10,gw.example.com; "bad_host" is neither, got "203.0.113.10,bad_host"`,
    ],
    [
      "a loopback gateway address (Endpoints refuse it)",
      link("--gateway-addresses", "203.0.113.10,127.0.0.1"),
      `--gateway-addresses: "127.0.0.1" may not be in the loopback range (127.0.0.0/8, ::1/128): Kubernetes refuses it in Endpoints, so no mirror could point at it; give an address other clusters reach the gateway at, got "203.0.113.10,127.0.0.1"`,
    ],
    [
      "a link-local gateway address",
      link("--gateway-addresses", "fe80::1"),
      `--gateway-addresses: "fe80::1" may not be in the link-local range (169.254.0.0/16, fe80::/10): Kubernetes refuses it in Endpoints, so no mirror could point at it; give an address other clusters reach the gateway at, got "fe80::1"`,
    ],
    ["a gateway port out of range", link("--gateway-port", "70000"), `--gateway-port: must be a port number from 1 to 65535, got "70000"`],
    [
      "a gateway port that is not a number",
      link("--gateway-port", "https"),
      `--gateway-port: must be a port number from 1 to 65535, got "https"`,
    ],
    [
      "a selector that does not parse",
      link("-l", "a b=c"),
      `--selector: cannot parse selector term "a b=c" in "a b=c" (use kubectl's selector syntax, e.g. mirror.linkerd.io/exported=true), got "a b=c"`,
    ],
    [
      "a bad remote discovery selector",
      link("--remote-discovery-selector", "x in (a"),
      `--remote-discovery-selector: cannot parse selector term "x in (a" in "x in (a" (use kubectl's selector syntax, e.g. mirror.linkerd.io/exported=true), got "x in (a"`,
    ],
    [
      "a bad federated service selector",
      link("--federated-service-selector", "=member"),
      `--federated-service-selector: invalid label key "=member" in selector "=member" (use kubectl's selector syntax, e.g. mirror.linkerd.io/exported=true), got "=member"`,
    ],
    [
      "a bad excluded annotation",
      link("--excluded-annotations", "ok/key,not a key"),
      `--excluded-annotations: must be comma-separated keys such as example.com/owner, or prefixes such as argocd.argoproj.io/*; "not a key" is neither, got "ok/key,not a key"`,
    ],
    [
      "a bare * as an excluded label",
      link("--excluded-labels", "*"),
      `--excluded-labels: must be comma-separated keys such as example.com/owner, or prefixes such as argocd.argoproj.io/*; "*" is neither, got "*"`,
    ],
    [
      "an image with spaces",
      link("--image", "my image"),
      `--image: must be an image reference such as ghcr.io/mc-project/mc:0.1.0, got "my image"`,
    ],
    ["an unknown log level", link("--log-level", "verbose"), `--log-level: must be one of error, warn, info, debug, trace, got "verbose"`],
    ["an unknown log format", link("--log-format", "xml"), `--log-format: must be one of plain, json, got "xml"`],
    [
      "a retry limit that is not a number",
      link("--service-mirror-retry-limit", "many"),
      `--service-mirror-retry-limit: must be a whole number of retries, got "many"`,
    ],
    ["an unknown output format", link("-o", "table"), `--output: must be one of yaml, json, got "table"`],
    [
      "a stray argument",
      link("--gateway", "false"),
      `unexpected argument "false": boolean flags take their value after =, e.g. --gateway=false`,
    ],
    ["an unknown flag", link("--gateway-adresses", "1.2.3.4"), "unknown flag: --gateway-adresses (see mc link --help)"],
    [
      "--selector with --gateway=false",
      link("--gateway=false", "-l", "app=web"),
      "--selector and --gateway=false are mutually exclusive: a link without a gateway mirrors only remote-discovery and federated services",
    ],
    [
      "--gateway-addresses with --gateway=false",
      link("--gateway=false", "--gateway-addresses", "203.0.113.10"),
      "--gateway-addresses and --gateway=false are mutually exclusive: a link without a gateway mirrors only remote-discovery and federated services",
    ],
    [
      "--gateway-port with --gateway=false",
      link("--gateway=false", "--gateway-port", "443"),
      "--gateway-port and --gateway=false are mutually exclusive: a link without a gateway mirrors only remote-discovery and federated services",
    ],
  ])("%s", async (_, argv, message) => {
    await expectFlagError(argv, message);
  });
});

describe("mc install rejects bad flags", () => {
  const install = (...args: string[]) => ["install", "--ignore-cluster", ...args];
  test.each<[string, string[], string]>([
    ["a gateway port of 0", install("--gateway-port", "0"), `--gateway-port: must be a port number from 1 to 65535, got "0"`],
    [
      "a probe port out of range",
      install("--gateway-probe-port", "99999"),
      `--gateway-probe-port: must be a port number from 1 to 65535, got "99999"`,
    ],
    [
      "a probe period that is not whole seconds",
      install("--gateway-probe-seconds", "1.5"),
      `--gateway-probe-seconds: must be a whole number of seconds, got "1.5"`,
    ],
    ["a probe period of zero", install("--gateway-probe-seconds", "0"), "--gateway-probe-seconds: must be at least 1 (seconds), got 0"],
    [
      "an unknown Service type",
      install("--gateway-service-type", "ExternalName"),
      `--gateway-service-type: must be one of LoadBalancer, NodePort, ClusterIP, got "ExternalName"`,
    ],
    ["a bad namespace", install("--namespace", "a.b"), `--namespace: must be a namespace name (lowercase letters, digits, '-'), got "a.b"`],
    [
      "a bad trust domain",
      install("--identity-trust-domain", "Not_A_Domain"),
      `--identity-trust-domain: must be a DNS domain such as cluster.local, got "Not_A_Domain"`,
    ],
    ["an unknown output format", install("-o", "xml"), `--output: must be one of yaml, json, got "xml"`],
  ])("%s", async (_, argv, message) => {
    await expectFlagError(argv, message);
  });
});

describe("mc allow rejects bad flags", () => {
  test("a missing service account name says which flag to pass", async () => {
    await expectFlagError(
      ["allow", "--ignore-cluster"],
      "--service-account-name: is required: the account another source cluster will use, e.g. --service-account-name linkerd-service-mirror-remote-access-west",
    );
  });

  test("a service account name that is not a DNS name", async () => {
    await expectFlagError(
      ["allow", "--ignore-cluster", "--service-account-name", "West!"],
      `--service-account-name: must be a DNS-1123 name (lowercase letters, digits, '-', '.'), got "West!"`,
    );
  });
});

describe("with --ignore-cluster nothing is read", () => {
  test("mc install renders from flags and defaults", async () => {
    const r = await runMc(["install", "--ignore-cluster", "--identity-trust-domain", "root.example", "--gateway-service-type", "NodePort"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain(
      "mirror.linkerd.io/gateway-identity: linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.root.example",
    );
    expect(r.stdout).toContain("type: NodePort");
  });

  test("mc allow renders the namespace and the account", async () => {
    const r = await runMc(["allow", "--ignore-cluster", "--service-account-name", "remote-west", "-o", "json"]);
    expect(r.code).toBe(0);
    const kinds = JSON.parse(r.stdout).items.map((o: { kind: string; metadata: { name: string } }) => `${o.kind}/${o.metadata.name}`);
    expect(kinds).toEqual([
      "Namespace/linkerd-multicluster",
      "ClusterRole/remote-west",
      "ServiceAccount/remote-west",
      "Secret/remote-west-token",
      "ClusterRoleBinding/remote-west",
    ]);
  });
});
