// parseLink: any served version into one Link, CRD defaults applied, bad Links rejected with the
// field path and the fix.
import { describe, expect, test } from "bun:test";
import { isSelectedBy, LinkError, parseLink } from "../../src/model/link.ts";

/** A Link as `mc link` (or Linkerd's CLI) writes it, with overrides merged into spec. */
function linkObject(spec: Record<string, unknown> = {}, version = "v1alpha3", extra: Record<string, unknown> = {}) {
  return {
    apiVersion: `multicluster.linkerd.io/${version}`,
    kind: "Link",
    metadata: {
      name: "east",
      namespace: "linkerd-multicluster",
      uid: "u-1",
      resourceVersion: "7",
      creationTimestamp: "2026-12-02T10:00:00Z",
    },
    spec: {
      targetClusterName: "east",
      targetClusterDomain: "cluster.local",
      targetClusterLinkerdNamespace: "linkerd",
      clusterCredentialsSecret: "cluster-credentials-east",
      gatewayAddress: "203.0.113.10,gw.example.com",
      gatewayPort: "4143",
      gatewayIdentity: "linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.cluster.local",
      probeSpec: { path: "/ready", port: "4191", period: "3s" },
      selector: { matchLabels: { "mirror.linkerd.io/exported": "true" } },
      remoteDiscoverySelector: { matchLabels: { "mirror.linkerd.io/exported": "remote-discovery" } },
      ...spec,
    },
    ...extra,
  };
}

describe("parseLink reads every served version into one Link", () => {
  test.each(["v1alpha1", "v1alpha2", "v1alpha3"])("%s: durations become ms, ports numbers, CRD defaults applied", (version) => {
    const link = parseLink(linkObject({}, version));
    expect(link).toMatchObject({
      apiVersion: `multicluster.linkerd.io/${version}`,
      name: "east",
      namespace: "linkerd-multicluster",
      resourceVersion: "7",
      targetClusterName: "east",
      gateway: { addresses: ["203.0.113.10", "gw.example.com"], port: 4143 },
      probe: { path: "/ready", port: 4191, periodMs: 3000, timeoutMs: 30_000, failureThreshold: 3 },
      excludedAnnotations: [],
      excludedLabels: [],
      federatedServiceSelector: null,
    });
  });

  test("explicit timeout and failureThreshold win over the defaults", () => {
    const link = parseLink(
      linkObject({ probeSpec: { path: "/ready", port: "4191", period: "1m", timeout: "500ms", failureThreshold: "5" } }),
    );
    expect(link.probe).toEqual({ path: "/ready", port: 4191, periodMs: 60_000, timeoutMs: 500, failureThreshold: 5 });
  });

  test("a gateway-less link has no gateway, no probe and a selector that selects nothing", () => {
    const link = parseLink(
      linkObject({ gatewayAddress: undefined, gatewayPort: undefined, gatewayIdentity: undefined, probeSpec: {}, selector: undefined }),
    );
    expect([link.gateway, link.probe, link.selector]).toEqual([null, null, null]);
    expect(isSelectedBy(link.selector, { "mirror.linkerd.io/exported": "true" })).toBe(false);
    expect(isSelectedBy(link.remoteDiscoverySelector, { "mirror.linkerd.io/exported": "remote-discovery" })).toBe(true);
  });

  test("an empty selector selects nothing, never everything", () => {
    const link = parseLink(linkObject({ selector: {}, remoteDiscoverySelector: { matchLabels: {}, matchExpressions: [] } }));
    expect([link.selector, link.remoteDiscoverySelector]).toEqual([null, null]);
    expect(isSelectedBy(link.selector, {})).toBe(false);
  });

  test("matchExpressions become requirements", () => {
    const link = parseLink(
      linkObject({
        selector: {
          matchExpressions: [
            { key: "tier", operator: "In", values: ["web"] },
            { key: "legacy", operator: "DoesNotExist" },
          ],
        },
      }),
    );
    expect(isSelectedBy(link.selector, { tier: "web" })).toBe(true);
    expect(isSelectedBy(link.selector, { tier: "web", legacy: "x" })).toBe(false);
  });

  test("a missing domain and Linkerd namespace default to cluster.local and linkerd", () => {
    const link = parseLink(linkObject({ targetClusterDomain: undefined, targetClusterLinkerdNamespace: "" }));
    expect([link.targetClusterDomain, link.targetClusterLinkerdNamespace]).toEqual(["cluster.local", "linkerd"]);
  });

  test("v1alpha3 exclusions and mc's status.gateway are kept", () => {
    const status = { gateway: { alive: true, latency: { p50: "3ms" }, consecutiveFailures: 0 } };
    const link = parseLink(linkObject({ excludedLabels: ["app.kubernetes.io/*"], excludedAnnotations: ["a/b"] }, "v1alpha3", { status }));
    expect(link).toMatchObject({ excludedLabels: ["app.kubernetes.io/*"], excludedAnnotations: ["a/b"], status });
  });
});

describe("parseLink rejects a bad Link with the field path and the fix", () => {
  test.each<[string, Record<string, unknown>, string]>([
    [
      "bare-number period",
      { probeSpec: { path: "/ready", port: "4191", period: "3" } },
      `Link linkerd-multicluster/east: spec.probeSpec.period: must be a Go duration such as "3s" (a bare number has no unit: write "3s"), got "3"`,
    ],
    [
      "zero period",
      { probeSpec: { path: "/ready", port: "4191", period: "0s" } },
      `spec.probeSpec.period: must be at least 1s (shorter probes the gateway in a hot loop), e.g. "3s", got "0s"`,
    ],
    [
      "a period under 1s",
      { probeSpec: { path: "/ready", port: "4191", period: "1ns" } },
      `Link linkerd-multicluster/east: spec.probeSpec.period: must be at least 1s (shorter probes the gateway in a hot loop), e.g. "3s", got "1ns"`,
    ],
    [
      "a timeout under 100ms",
      { probeSpec: { path: "/ready", port: "4191", period: "3s", timeout: "10ms" } },
      `Link linkerd-multicluster/east: spec.probeSpec.timeout: must be at least 100ms, e.g. "30s", got "10ms"`,
    ],
    [
      "bad timeout",
      { probeSpec: { path: "/ready", port: "4191", period: "3s", timeout: "soon" } },
      `spec.probeSpec.timeout: must be a Go duration such as "30s", got "soon"`,
    ],
    [
      "bad failureThreshold",
      { probeSpec: { path: "/ready", port: "4191", period: "3s", failureThreshold: "0" } },
      `spec.probeSpec.failureThreshold: must be a positive whole number written as a string, e.g. "3", got "0"`,
    ],
    ["numeric port", { gatewayPort: 4143 }, "spec.gatewayPort: must be a string (every Link spec value is a string: quote it), got 4143"],
    [
      "port out of range",
      { gatewayPort: "70000" },
      `spec.gatewayPort: must be a port number 1-65535 written as a string, e.g. "4143", got "70000"`,
    ],
    [
      "bad probe port",
      { probeSpec: { path: "/ready", port: "http", period: "3s" } },
      `spec.probeSpec.port: must be a port number 1-65535 written as a string, e.g. "4191", got "http"`,
    ],
    ["port without address", { gatewayAddress: "" }, "spec.gatewayAddress: is required when spec.gatewayPort is set"],
    ["address without port", { gatewayPort: "" }, "spec.gatewayPort: is required when spec.gatewayAddress is set"],
    [
      "bad address",
      { gatewayAddress: "203.0.113.10,not an address" },
      `spec.gatewayAddress: must be comma-separated IPs or hostnames, e.g. "203.0.113.10,gw.example.com"; "not an address" is neither`,
    ],
    [
      "probe path without port",
      { probeSpec: { path: "/ready", period: "3s" } },
      "spec.probeSpec.port: is required when spec.probeSpec.path is set",
    ],
    [
      "probe path without period",
      { probeSpec: { path: "/ready", port: "4191" } },
      "spec.probeSpec.period: is required when spec.probeSpec.path is set",
    ],
    [
      "relative probe path",
      { probeSpec: { path: "ready", port: "4191", period: "3s" } },
      `spec.probeSpec.path: must start with "/", e.g. "/ready", got "ready"`,
    ],
    [
      "missing cluster name",
      { targetClusterName: undefined },
      "spec.targetClusterName: is required: the target cluster's name (mc link sets it from --cluster-name)",
    ],
    [
      "bad cluster name",
      { targetClusterName: "East_1" },
      `spec.targetClusterName: must be a DNS-1123 label (lowercase letters, digits, '-'; at most 63), got "East_1"`,
    ],
    [
      "missing credentials",
      { clusterCredentialsSecret: "" },
      "spec.clusterCredentialsSecret: is required: the Secret with the target's kubeconfig",
    ],
    [
      "bad operator",
      { selector: { matchExpressions: [{ key: "a", operator: "Equals" }] } },
      `spec.selector.matchExpressions[0].operator: must be one of In, NotIn, Exists, DoesNotExist, got "Equals"`,
    ],
    [
      "selector label key the API server rejects",
      { selector: { matchLabels: { "bad key!": "x" } } },
      `spec.selector: matchLabels: "bad key!" is not a valid label key (an optional DNS-subdomain prefix and '/', then at most 63`,
    ],
    [
      "selector label value the API server rejects",
      { selector: { matchLabels: { app: "true false" } } },
      `spec.selector: matchLabels["app"]: "true false" is not a valid label value (at most 63 letters`,
    ],
    [
      "expression key the API server rejects",
      { selector: { matchExpressions: [{ key: "-a", operator: "Exists" }] } },
      `spec.selector: matchExpressions[0].key: "-a" is not a valid label key`,
    ],
    [
      "expression value the API server rejects",
      { selector: { matchExpressions: [{ key: "a", operator: "In", values: ["ok", "no way"] }] } },
      `spec.selector: matchExpressions[0].values: "no way" is not a valid label value`,
    ],
    [
      "In with no values",
      { selector: { matchExpressions: [{ key: "a", operator: "In", values: [] }] } },
      "spec.selector: matchExpressions[0].values: must not be empty when operator is In (list the label values to match)",
    ],
    [
      "Exists with values",
      { remoteDiscoverySelector: { matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] } },
      "spec.remoteDiscoverySelector: matchExpressions[0].values: must be empty when operator is Exists",
    ],
    ["bad exclusion list", { excludedLabels: "a,b" }, `spec.excludedLabels: must be a list of strings, got "a,b"`],
  ])("%s", (_, spec, message) => {
    let caught: unknown;
    try {
      parseLink(linkObject(spec));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(LinkError);
    expect((caught as Error).message).toContain(message);
    expect((caught as Error).message.startsWith("Link linkerd-multicluster/east: spec.")).toBe(true);
  });

  test("an unknown apiVersion lists the served ones", () => {
    expect(() => parseLink({ ...linkObject(), apiVersion: "multicluster.linkerd.io/v1" })).toThrow(
      `Link linkerd-multicluster/east: apiVersion: must be one of multicluster.linkerd.io/v1alpha1, multicluster.linkerd.io/v1alpha2, multicluster.linkerd.io/v1alpha3, got "multicluster.linkerd.io/v1"`,
    );
  });

  test("a Link without spec says so", () => {
    const { spec: _, ...noSpec } = linkObject();
    expect(() => parseLink(noSpec)).toThrow(
      /^Link linkerd-multicluster\/east: spec: is required: an object with the link.s fields \(re-run mc link\)$/,
    );
  });

  test("the error carries the field path for callers that report it", () => {
    try {
      parseLink(linkObject({ probeSpec: { path: "/ready", port: "4191", period: "3" } }));
    } catch (err) {
      expect((err as LinkError).field).toBe("spec.probeSpec.period");
    }
  });
});
