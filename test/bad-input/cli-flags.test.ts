// Every CLI flag with a wrong value, as a user types it: `bun cmd/mc.ts …` as a subprocess (so these survive any refactor of how commands
// parse flags).
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MC } from "../helpers/mc.ts";

// Each answer is one line on stderr that names the flag (or argument) and the fix, exit code 1,
// nothing on stdout — and nothing written: no command reaches a cluster before its flags are valid
// (KUBECONFIG points at a server that refuses connections, so a flag checked too late would show up as
// a connection error), and `mc sandbox` writes no kubeconfig. Rows: argv, what the line names, the
// hint it gives.

const dir = mkdtempSync(join(tmpdir(), "mc-bad-flags-"));
const KUBECONFIG_IN = join(dir, "refusing.kubeconfig");
const KUBECONFIG_OUT = join(dir, "never-written.kubeconfig");
const GARBAGE_DB = join(dir, "garbage.db");
writeFileSync(
  KUBECONFIG_IN,
  "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\nusers: [{name: u, user: {token: abc}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n",
);
writeFileSync(GARBAGE_DB, "not a database\n");
const place = (s: string) =>
  s.replaceAll("KUBECONFIG_IN", KUBECONFIG_IN).replaceAll("KUBECONFIG_OUT", KUBECONFIG_OUT).replaceAll("GARBAGE_DB", GARBAGE_DB);

const ROWS: [string[], string, string][] = [
  [["install", "--ignore-cluster", "--namespace", "Bad_NS"], "--namespace", "must be a namespace name (lowercase letters, digits, '-')"],
  [["install", "--ignore-cluster", "--linkerd-namespace", ""], "--linkerd-namespace", "is required: a namespace name"],
  [["install", "--ignore-cluster", "--gateway-port", "0"], "--gateway-port", "must be a port number from 1 to 65535"],
  [["install", "--ignore-cluster", "--gateway-port", "70000"], "--gateway-port", "must be a port number from 1 to 65535"],
  [["install", "--ignore-cluster", "--gateway-port", "abc"], "--gateway-port", "must be a port number from 1 to 65535"],
  [["install", "--ignore-cluster", "--gateway-probe-port", "x"], "--gateway-probe-port", "must be a port number from 1 to 65535"],
  [["install", "--ignore-cluster", "--gateway-probe-seconds", "-1"], "--gateway-probe-seconds", "must be a whole number of seconds"],
  [["install", "--ignore-cluster", "--gateway-probe-seconds", "abc"], "--gateway-probe-seconds", "must be a whole number of seconds"],
  [["install", "--ignore-cluster", "--gateway-probe-seconds", "0"], "--gateway-probe-seconds", "must be at least 1 (seconds)"],
  [
    ["install", "--ignore-cluster", "--gateway-service-type", "Foo"],
    "--gateway-service-type",
    "must be one of LoadBalancer, NodePort, ClusterIP",
  ],
  [
    ["install", "--ignore-cluster", "--identity-trust-domain", "not a domain!"],
    "--identity-trust-domain",
    "must be a DNS domain such as cluster.local",
  ],
  [["install", "--ignore-cluster", "--output", "xml"], "--output", "must be one of yaml, json"],
  [["install", "--ignore-cluster", "--ha=no"], "--ha", "must be true or false"],
  [["install", "--ignore-cluster", "--service-mirror-credentials=maybe"], "--service-mirror-credentials", "must be true or false"],
  [
    ["allow", "--ignore-cluster", "--service-account-name", "Bad Name"],
    "--service-account-name",
    "must be a DNS-1123 name (lowercase letters, digits, '-', '.')",
  ],
  [
    ["allow", "--ignore-cluster", "--service-account-name", ""],
    "--service-account-name",
    "is required: the account another source cluster will use, e.g. --servi",
  ],
  [
    ["allow", "--ignore-cluster", "--service-account-name", "sa", "--namespace", "_"],
    "--namespace",
    "must be a namespace name (lowercase letters, digits, '-')",
  ],
  [["allow", "--ignore-cluster", "--service-account-name", "sa", "--output", "yaml2"], "--output", "must be one of yaml, json"],
  [["link", "--cluster-name", ""], "--cluster-name", "is required: the target cluster's name, e.g. --cluster-name east"],
  [["link"], "--cluster-name", "is required: the target cluster's name, e.g. --cluster-name east"],
  [["link", "--cluster-name", "East"], "--cluster-name", "must be a DNS-1123 label (lowercase letters, digits, '-')"],
  [["link", "--cluster-name", "a".repeat(60)], "--cluster-name", "must be at most 49 characters (probe-gateway-<name> must fit in 63)"],
  [["link", "--cluster-name", "east", "--namespace", "a_b"], "--namespace", "must be a namespace name (lowercase letters, digits, '-')"],
  [
    ["link", "--cluster-name", "east", "--linkerd-namespace", "!"],
    "--linkerd-namespace",
    "must be a namespace name (lowercase letters, digits, '-')",
  ],
  [
    ["link", "--cluster-name", "east", "--api-server-address", "ftp://x"],
    "--api-server-address",
    "must be an http(s) URL such as https://203.0.113.10:6443",
  ],
  [
    ["link", "--cluster-name", "east", "--service-account-name", "a b"],
    "--service-account-name",
    "must be a DNS-1123 name (lowercase letters, digits, '-', '.')",
  ],
  [
    ["link", "--cluster-name", "east", "--gateway-name", "A"],
    "--gateway-name",
    "must be a DNS-1123 name (lowercase letters, digits, '-', '.')",
  ],
  [
    ["link", "--cluster-name", "east", "--gateway-namespace", "X_y"],
    "--gateway-namespace",
    "must be a namespace name (lowercase letters, digits, '-')",
  ],
  [
    ["link", "--cluster-name", "east", "--gateway-addresses", "not an address!"],
    "--gateway-addresses",
    "must be comma-separated IPs or hostnames, e.g. 203.0.113.10,gw.example",
  ],
  [["link", "--cluster-name", "east", "--gateway-port", "70000"], "--gateway-port", "must be a port number from 1 to 65535"],
  [
    ["link", "--cluster-name", "east", "--selector", "a in ("],
    "--selector",
    'cannot parse selector term "a in (" in "a in (" (use kubectl\'s selecto',
  ],
  [
    ["link", "--cluster-name", "east", "--remote-discovery-selector", "!!"],
    "--remote-discovery-selector",
    'invalid label key "!" in selector "!!" (use kubectl\'s selector syntax,',
  ],
  [
    ["link", "--cluster-name", "east", "--federated-service-selector", "a=b=c"],
    "--federated-service-selector",
    'invalid label value "b=c" in selector "a=b=c" (use kubectl\'s selector ',
  ],
  [
    ["link", "--cluster-name", "east", "--excluded-annotations", "*"],
    "--excluded-annotations",
    "must be comma-separated keys such as example.com/owner, or prefixes su",
  ],
  [
    ["link", "--cluster-name", "east", "--excluded-labels", "a b"],
    "--excluded-labels",
    "must be comma-separated keys such as example.com/owner, or prefixes su",
  ],
  [["link", "--cluster-name", "east", "--image", "a b"], "--image", "must be an image reference such as ghcr.io/mc-project/mc:0.1.0"],
  [["link", "--cluster-name", "east", "--log-level", "loud"], "--log-level", "must be one of error, warn, info, debug, trace"],
  [["link", "--cluster-name", "east", "--log-format", "xml"], "--log-format", "must be one of plain, json"],
  [
    ["link", "--cluster-name", "east", "--service-mirror-retry-limit", "-1"],
    "--service-mirror-retry-limit",
    "must be a whole number of retries",
  ],
  [
    ["link", "--cluster-name", "east", "--service-mirror-retry-limit", "x"],
    "--service-mirror-retry-limit",
    "must be a whole number of retries",
  ],
  [["link", "--cluster-name", "east", "--output", "toml"], "--output", "must be one of yaml, json"],
  [["link", "--cluster-name", "east", "--controller=nah"], "--controller", "must be true, false or shared"],
  [["link", "--cluster-name", "east", "-l", ""], "--selector", '"" selects no Service (an empty selector selects nothing, and the co'],
  [
    ["link", "--cluster-name", "east", "-l", "app in ()"],
    "--selector",
    '"app in ()" can match no Service (app in () lists no values): give on',
  ],
  [
    ["link", "--cluster-name", "east", "--controller-memory-limit", "lots"],
    "--controller-memory-limit",
    "must be a Kubernetes quantity such as 512Mi (or empty: not set)",
  ],
  // A flag the other flags make meaningless is refused, never silently dropped.
  [
    ["link", "--cluster-name", "east", "--controller=shared", "--ha"],
    "--ha",
    "has no effect with --controller=shared (the Link is served by the shared controller that mc install --shared-controller renders, with its own --image and --ha): drop it, or use --controller=true",
  ],
  [
    ["link", "--cluster-name", "east", "--controller=false", "--image=x:1", "--kube-api-qps=5"],
    "--image and --kube-api-qps",
    "have no effect with --controller=false (mc link then renders no controller): drop them, or use --controller=true",
  ],
  [
    ["link", "--cluster-name", "east", "--controller=shared", "--enable-namespace-creation"],
    "--enable-namespace-creation",
    "has no effect with --controller=shared",
  ],
  [
    ["link", "--cluster-name", "east", "--gateway=false", "--gateway-name=gw"],
    "--gateway-name and --gateway=false",
    "are mutually exclusive: a link without a gateway mirrors only remote-discovery and federated services",
  ],
  [
    ["link", "--cluster-name", "east", "--gateway=false", "--fast-failure-detection"],
    "--fast-failure-detection and --gateway=false",
    "are mutually exclusive: a link without a gateway mirrors only remote-discovery and federated services",
  ],
  [["unlink", "--cluster-name", ""], "--cluster-name", "is required: the target cluster's name, e.g. --cluster-name east"],
  [["unlink", "--cluster-name", "BAD"], "--cluster-name", "must be a DNS-1123 label (lowercase letters, digits, '-')"],
  [["unlink", "--cluster-name", "east", "--namespace", "x_y"], "--namespace", "must be a namespace name (lowercase letters, digits, '-')"],
  [["unlink", "--cluster-name", "east", "--linkerd-namespace", ""], "--linkerd-namespace", "is required: a namespace name"],
  [["unlink", "--cluster-name", "east", "--output", "x"], "--output", "must be one of yaml, json"],
  [["uninstall", "--output", "x"], "--output", "must be one of yaml, json"],
  [["check", "--output", "x"], "--output", "must be one of table, json, short"],
  [["check", "--wait", "abc"], "--wait", "must be a duration such as 5m (0s: no retries)"],
  [["check", "--wait", "-1s"], "--wait", "must be a duration such as 5m (0s: no retries)"],
  [["check", "--timeout", "0"], "--timeout", "must be at least 100ms, e.g. 10s"],
  [["check", "--timeout", "abc"], "--timeout", "must be a duration such as 10s"],
  [["check", "--linkerd-namespace", "BAD"], "--linkerd-namespace", "must be a namespace name (lowercase letters, digits, '-')"],
  [["gateways", "--namespace", "x_y"], "--namespace", "must be a namespace name (lowercase letters, digits, '-')"],
  [["gateways", "--cluster-name", "BAD"], "--cluster-name", "must be a DNS-1123 label (lowercase letters, digits, '-')"],
  [["gateways", "--output", "x"], "--output", "must be one of table, json"],
  [["gateways", "--wait", "abc"], "--wait", "must be a duration such as 30s or 2m"],
  [["serve"], "LINK_NAME", "is required: the Link to serve, e.g. mc serve --namespace linkerd-mult"],
  [["serve", "BAD"], "LINK_NAME", "must be a Link name (a DNS-1123 label: lowercase letters, digits, '-')"],
  [["serve", "--namespace", "x_y", "east"], "--namespace", "must be a namespace name (lowercase letters, digits, '-')"],
  [["serve", "--admin-addr", "nope", "east"], "--admin-addr", "must be host:port, e.g. :9999 or 127.0.0.1:0"],
  [["serve", "--log-level", "x", "east"], "--log-level", "must be one of panic, fatal, error, warn, info, debug, trace"],
  [["serve", "--log-format", "x", "east"], "--log-format", "must be one of plain, json"],
  [["serve", "--event-requeue-limit", "x", "east"], "--event-requeue-limit", "must be a whole number of retries"],
  [["serve", "--workers", "0", "east"], "--workers", "must be at least 1 (workers)"],
  [
    ["serve", "--endpoint-refresh-period", "0", "east"],
    "--endpoint-refresh-period",
    "must be at least 10s (each period re-checks every mirror)",
  ],
  [["serve", "--endpoint-refresh-period", "x", "east"], "--endpoint-refresh-period", "must be a positive Go duration such as 1m or 30s"],
  [["serve", "--status-interval", "x", "east"], "--status-interval", "must be a positive Go duration such as 1m or 30s"],
  [
    ["serve", "--endpoint-refresh-period", "1ns", "east"],
    "--endpoint-refresh-period",
    "must be at least 10s (each period re-checks every mirror)",
  ],
  [["serve", "--status-interval", "1ns", "east"], "--status-interval", "must be at least 1s (each one may write the Link)"],
  [
    ["serve", "--leader-elect-retry-period", "1ns", "east"],
    "--leader-elect-retry-period",
    "must be at least 100ms (each one writes or reads the Lease)",
  ],
  [
    ["serve", "--mirror-name-template", "{cluster}-mirror", "east"],
    "--mirror-name-template",
    "must contain {service} (the target Service's name), e.g. {service}-{cluster}",
  ],
  [
    ["serve", "--mirror-name-template", "{service}.{cluster}", "east"],
    "--mirror-name-template",
    "may hold only {service}, {cluster}, {namespace} and lowercase letters, digits and '-'",
  ],
  [
    ["serve", "--mirror-name-template", "{service}-{name}", "east"],
    "--mirror-name-template",
    "may hold only {service}, {cluster}, {namespace} and lowercase letters, digits and '-'",
  ],
  [
    ["serve", "--mirror-name-template", `{service}-${"x".repeat(62)}`, "east"],
    "--mirror-name-template",
    "its own 63 characters leave no room for a name (a Service name has at most 63); shorten it",
  ],
  [
    ["serve", "--namespace-selector", "a,in(", "east"],
    "--namespace-selector",
    'invalid label key "in(" in selector "a,in(" (use kubectl\'s selector syntax on the target\'s Namespace labels, e.g. team=payments)',
  ],
  [["serve", "--namespace-selector", "=x", "east"], "--namespace-selector", 'invalid label key "=x"'],
  [
    ["link", "--cluster-name", "east", "--namespace-selector", "team in (a"],
    "--namespace-selector",
    "(use kubectl's selector syntax on the target's Namespace labels, e.g. team=payments)",
  ],
  [
    ["link", "--cluster-name", "east", "--mirror-name-template", "{cluster}"],
    "--mirror-name-template",
    "must contain {service} (the target Service's name), e.g. {service}-{cluster}",
  ],
  [
    ["link", "--cluster-name", "a".repeat(40), "--mirror-name-template", `{service}-{cluster}-${"z".repeat(21)}`],
    "--mirror-name-template",
    `with cluster ${"a".repeat(40)} its fixed part is 63 characters, which leaves no room for a Service name (at most 63); shorten the template or the cluster name`,
  ],
  [
    ["serve", "--namespace-selector", "team in (", "east"],
    "--namespace-selector",
    "(use kubectl's selector syntax on the target's Namespace labels, e.g. team=payments)",
  ],
  [
    ["link", "--cluster-name", "east", "--namespace-selector", "a=b=c"],
    "--namespace-selector",
    'invalid label value "b=c" in selector "a=b=c" (use kubectl\'s selector syntax on the target\'s Namespace labels',
  ],
  [
    ["serve", "--namespace-map", "shop", "east"],
    "--namespace-map",
    '"shop" is not a pair TARGET=LOCAL (use TARGET=LOCAL,... with namespace names, each local namespace once, e.g. shop=shop-east)',
  ],
  [["serve", "--namespace-map", "a=b=c", "east"], "--namespace-map", '"a=b=c" is not a pair TARGET=LOCAL'],
  [
    ["link", "--cluster-name", "east", "--namespace-map", "shop=web,pay=web"],
    "--namespace-map",
    "shop and pay are both mapped to web (use TARGET=LOCAL,...",
  ],
  [
    ["serve", "--namespace-map", "shop=Shop_East", "east"],
    "--namespace-map",
    '"Shop_East" in "shop=Shop_East" is not a namespace name (lowercase letters, digits, \'-\', at most 63)',
  ],
  [["link", "--cluster-name", "east", "--namespace-map", "shop=a,shop=b"], "--namespace-map", "target namespace shop is mapped twice"],
  [["serve", "--probe-service", "Bad Name", "east"], "--probe-service", "must be a DNS-1123 name (lowercase letters, digits, '-', '.')"],
  [
    ["serve", "--leader-elect-lease-duration", "x", "east"],
    "--leader-elect-lease-duration",
    "must be a positive Go duration such as 1m or 30s",
  ],
  [
    ["serve", "--leader-elect-retry-period", "20s", "east"],
    "--leader-elect-lease-duration",
    "must be longer than --leader-elect-renew-deadline, which must be longe",
  ],
  [["serve", "--leader-elect=perhaps", "east"], "--leader-elect", "must be true or false"],
  [
    ["serve", "east", "--excluded-labels=team"],
    "--excluded-labels",
    "has no effect without --local (a Link's selectors and exclusions are its spec's, set by mc link): drop it, or serve the local mirror with --local",
  ],
  [
    ["serve", "--all", "--excluded-annotations=a", "--federated-service-selector=x=y"],
    "--federated-service-selector and --excluded-annotations",
    "have no effect without --local",
  ],
  [
    ["serve", "--local", "--probe-direct", "--status-interval=5s"],
    "--probe-direct and --status-interval",
    "have no effect with --local (the local mirror probes no gateway and reads no target Endpoints): drop them",
  ],
  [
    ["serve", "east", "--probe-address=north=127.0.0.1:4191"],
    "--probe-address",
    "north= names another Link than east, which this process does not serve: use east=host:port or host:port",
  ],
  [
    ["serve", "--all", "--probe-service=probe-x"],
    "--probe-service",
    "with --all every Link's controller would point this one probe Service at its own gateway",
  ],
  [
    ["serve", "east", "--leader-elect=false", "--identity=me", "--leader-elect-retry-period=1s"],
    "--identity and --leader-elect-retry-period",
    "have no effect with --leader-elect=false (no Lease is held): drop them, or leave leader election on",
  ],
  [["sandbox", "--name", "BAD", "--kubeconfig", "KUBECONFIG_OUT"], "--name", "must be a DNS-1123 label (lowercase letters, digits, '-')"],
  [["sandbox", "--port", "70000", "--kubeconfig", "KUBECONFIG_OUT"], "--port", "must be at most 65535"],
  [["sandbox", "--port", "x", "--kubeconfig", "KUBECONFIG_OUT"], "--port", "must be a port number (0 picks a free port)"],
  [
    ["sandbox", "--drop-watches-every", "x", "--kubeconfig", "KUBECONFIG_OUT"],
    "--drop-watches-every",
    "must be a Go duration such as 5s (0 = never)",
  ],
  [
    ["sandbox", "--drop-watches-every", "1ns", "--kubeconfig", "KUBECONFIG_OUT"],
    "--drop-watches-every",
    "must be 0 (never) or at least 100ms",
  ],
  [["sandbox", "--fail-rate", "2", "--kubeconfig", "KUBECONFIG_OUT"], "--fail-rate", "must be a fraction from 0 to 1, e.g. 0.1"],
  [["sandbox", "--fail-rate", "x", "--kubeconfig", "KUBECONFIG_OUT"], "--fail-rate", "must be a fraction from 0 to 1, e.g. 0.1"],
  [["sandbox", "--latency", "x", "--kubeconfig", "KUBECONFIG_OUT"], "--latency", "must be a Go duration such as 50ms (0 = none)"],
  [["sandbox", "--conflict-rate", "-0.1", "--kubeconfig", "KUBECONFIG_OUT"], "--conflict-rate", "must be a fraction from 0 to 1, e.g. 0.1"],
  [["sandbox", "--data", "dir/", "--kubeconfig", "KUBECONFIG_OUT"], "--data", "must be a file path, e.g. --data ./east.db"],
  [["sandbox"], "--kubeconfig", "needs a path to write the sandbox's kubeconfig to, e.g. --kubeconfig ."],
  [
    ["sandbox", "--data", "/nonexistent-dir/x.db", "--kubeconfig", "KUBECONFIG_OUT"],
    "--data",
    "must be in a directory that exists, e.g. --data ./east.db",
  ],
  [
    ["sandbox", "--data", "GARBAGE_DB", "--kubeconfig", "KUBECONFIG_OUT"],
    "--data",
    "cannot be used as the sandbox's data file (file is not a database); pass a new file",
  ],
  [["--kubeconfig"], "--kubeconfig", "needs a value, e.g. --kubeconfig ./east.kubeconfig"],
  [["--context"], "--context", "needs a value, e.g. --context east"],
  [["--kubeconfig", "/nonexistent/kubeconfig", "check"], "kubeconfig /nonexistent/kubeconfig", "no such file"],
  [["--context", "nowhere", "check"], "kubeconfig KUBECONFIG_IN", 'context "nowhere" not found (contexts: c)'],
  [["demo", "--hold=x"], "--hold", "must be true or false"],
  [["nosuchcommand"], "unknown command", '"nosuchcommand" for "mc" (commands: install, link, link-gen, allow, u'],
  [["install", "--no-such-flag"], "unknown flag", "--no-such-flag (see mc install --help)"],
];

interface Answer {
  code: number;
  stdout: string;
  stderr: string;
}

/** Every row run once, four at a time (each is a Bun start-up). */
const answers = new Map<number, Answer>();
beforeAll(async () => {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < ROWS.length; i = next++) {
      const proc = Bun.spawn(["bun", MC, ...ROWS[i]![0].map(place)], {
        env: { ...process.env, NO_COLOR: "1", KUBECONFIG: KUBECONFIG_IN },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const timer = setTimeout(() => proc.kill(), 15_000); // a command that starts serving instead of failing
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      clearTimeout(timer);
      answers.set(i, { code, stdout, stderr });
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}, 120_000);

describe("a wrong flag value is one line naming the flag and the fix, exit 1, nothing written", () => {
  ROWS.forEach(([argv, names, hint], i) => {
    test(`mc ${argv.map((a) => (a === "" ? '""' : a.length > 24 ? `${a.slice(0, 8)}…` : a)).join(" ")}`, () => {
      const a = answers.get(i)!;
      expect({ code: a.code, stdout: a.stdout }).toEqual({ code: 1, stdout: "" });
      const lines = a.stderr.split("\n").filter((l) => l !== "");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toStartWith(`error: ${place(names)}`);
      expect(lines[0]).toContain(place(hint));
      expect(lines[0]).not.toContain("refused"); // never a cluster read before the flags were checked
    });
  });

  test("mc sandbox wrote no kubeconfig for any of its bad flags", () => {
    expect(existsSync(KUBECONFIG_OUT)).toBe(false);
  });
});
