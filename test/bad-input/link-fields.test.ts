// Each Link field invalid in turn, the way a user writes one: refused by the CRD or reported by the controller, naming the field.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { KubeError, resources, type KubeObject } from "../../src/kube/index.ts";
import { linkResource } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import { serve } from "../../src/serve/serve.ts";
import { proberFactory } from "../../src/prober/index.ts";
import { recordingLog } from "../helpers/log.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { untilStatus } from "../mirror/harness.ts";
import { credentialsSecret, linkObject, remoteService } from "../mirror/fixtures.ts";
import type { Sandbox } from "../../src/sandbox/index.ts";
import type { KubeClient } from "../../src/kube/index.ts";

// Each Link field invalid in turn, the way a user writes one: created through the API server
// (whose CRD schema may refuse it first, naming the field), otherwise served by the controller
// (`serve()`, as `mc serve` runs it), which logs one error line naming the field path and the
// fix, mirrors nothing, and writes only what reports it (docs/decisions.md#d53): the Link's Ready
// condition False with reason InvalidLink, and one Warning Event on the Link, both naming the
// field. A valid Link afterwards mirrors at once.

let pair: Pair;
let east: Sandbox;
let west: Sandbox;
let westClient: KubeClient;
beforeAll(async () => {
  pair = await startPair({ namespaces: ["ns1"] });
  ({ east, west, westClient } = pair);
  await pair.eastClient.create(resources.service, remoteService());
  await westClient.create(resources.secret, credentialsSecret("east", east.kubeconfig));
});
afterAll(() => pair?.stop());

/** The Link `east` with its spec changed; `undefined` values remove the field. */
function badLink(spec: Record<string, unknown>, extra: Record<string, unknown> = {}): KubeObject {
  const link = linkObject({ gatewayAddress: "192.0.2.10" });
  const merged = { ...(link.spec as Record<string, unknown>), ...spec };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  return { ...link, spec: merged, ...extra };
}

type Outcome =
  | { by: "api"; message: string }
  | {
      by: "controller";
      errors: string[];
      written: string[];
      ready: { status?: string; reason?: string; message?: string } | undefined;
      events: Array<{ type?: string; reason?: string; message?: string }>;
    };

/** Creates the Link; if the API server takes it, serves it until the controller calls it invalid. */
async function attempt(link: KubeObject): Promise<Outcome> {
  try {
    await westClient.create(linkResource, link);
  } catch (err) {
    if (err instanceof KubeError && err.code === 422) return { by: "api", message: err.message };
    throw err;
  }
  const written: string[] = [];
  const off = west.store.onCommit((e) => written.push(`${e.type} ${e.key} ${e.object.metadata.name}`));
  const log = recordingLog();
  const serving = await serve({
    local: westClient,
    namespace: DEFAULT_NAMESPACE,
    linkName: "east",
    adminAddr: "127.0.0.1:0",
    leaderElect: false,
    log,
    settings: { probeAddress: { "": "127.0.0.1:1" } },
    controller: { proberFactory: proberFactory() },
  });
  let ready: { status?: string; reason?: string; message?: string } | undefined;
  let events: Array<{ type?: string; reason?: string; message?: string }>;
  try {
    await untilStatus(serving.supervisor!, "invalid-link");
    await serving.supervisor!.settle();
    const stored = west.store.get({ group: "multicluster.linkerd.io", plural: "links" }, DEFAULT_NAMESPACE, "east") as {
      status?: { conditions?: Array<{ type: string; status?: string; reason?: string; message?: string }> };
    };
    ready = stored.status?.conditions?.find((c) => c.type === "Ready");
    // The Events this attempt wrote (the commits name them).
    events = written
      .filter((w) => w.startsWith("ADDED /events "))
      .map(
        (w) =>
          west.store.get({ group: "", plural: "events" }, DEFAULT_NAMESPACE, w.split(" ")[2]!) as {
            involvedObject?: { kind?: string };
            type?: string;
            reason?: string;
            message?: string;
          },
      )
      .filter((e) => e.involvedObject?.kind === "Link")
      .map(({ type, reason, message }) => ({ type, reason, message }));
  } finally {
    await serving.stop();
    off();
    await westClient.delete(linkResource, DEFAULT_NAMESPACE, "east");
  }
  return { by: "controller", errors: log.at("error"), written, ready, events };
}

describe("each Link field invalid in turn", () => {
  const rows: [string, KubeObject, string][] = [
    ["targetClusterName missing", badLink({ targetClusterName: undefined }), "spec.targetClusterName: is required"],
    ["targetClusterName not a DNS label", badLink({ targetClusterName: "East_1" }), "spec.targetClusterName: must be a DNS-1123 label"],
    ["clusterCredentialsSecret empty", badLink({ clusterCredentialsSecret: "" }), "spec.clusterCredentialsSecret: is required"],
    [
      "gatewayAddress not an address",
      badLink({ gatewayAddress: "203.0.113.10,not an address" }),
      "spec.gatewayAddress: must be comma-separated IPs or hostnames",
    ],
    [
      "gatewayAddress loopback (Endpoints refuse it)",
      badLink({ gatewayAddress: "203.0.113.10,127.0.0.1" }),
      'spec.gatewayAddress: "127.0.0.1" may not be in the loopback range (127.0.0.0/8, ::1/128): Kubernetes refuses it in Endpoints',
    ],
    [
      "gatewayAddress link-local",
      badLink({ gatewayAddress: "169.254.169.254" }),
      'spec.gatewayAddress: "169.254.169.254" may not be in the link-local range (169.254.0.0/16, fe80::/10)',
    ],
    [
      "gatewayAddress link-local multicast",
      badLink({ gatewayAddress: "ff02::1" }),
      'spec.gatewayAddress: "ff02::1" may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)',
    ],
    [
      "gatewayAddress unspecified",
      badLink({ gatewayAddress: "0.0.0.0" }),
      'spec.gatewayAddress: "0.0.0.0" may not be unspecified (0.0.0.0)',
    ],
    [
      "gatewayAddress missing with a port",
      badLink({ gatewayAddress: "" }),
      "spec.gatewayAddress: is required when spec.gatewayPort is set",
    ],
    ["gatewayPort out of range", badLink({ gatewayPort: "70000" }), "spec.gatewayPort: must be a port number 1-65535"],
    ["gatewayPort a number, not a string", badLink({ gatewayPort: 4143 }), "spec.gatewayPort"],
    [
      "probeSpec.period a bare number",
      badLink({ probeSpec: { path: "/ready", port: "4191", period: "3" } }),
      'spec.probeSpec.period: must be a Go duration such as "3s"',
    ],
    [
      "probeSpec.period zero",
      badLink({ probeSpec: { path: "/ready", port: "4191", period: "0s" } }),
      "spec.probeSpec.period: must be at least 1s",
    ],
    [
      "probeSpec.period under the 1s floor",
      badLink({ probeSpec: { path: "/ready", port: "4191", period: "1ns" } }),
      "spec.probeSpec.period: must be at least 1s",
    ],
    [
      "probeSpec.timeout under the 100ms floor",
      badLink({ probeSpec: { path: "/ready", port: "4191", period: "3s", timeout: "10ms" } }),
      "spec.probeSpec.timeout: must be at least 100ms",
    ],
    [
      "probeSpec.timeout not a duration",
      badLink({ probeSpec: { path: "/ready", port: "4191", period: "3s", timeout: "soon" } }),
      "spec.probeSpec.timeout: must be a Go duration",
    ],
    [
      "probeSpec.failureThreshold zero",
      badLink({ probeSpec: { path: "/ready", port: "4191", period: "3s", failureThreshold: "0" } }),
      "spec.probeSpec.failureThreshold: must be a positive whole number",
    ],
    [
      "probeSpec.port a name",
      badLink({ probeSpec: { path: "/ready", port: "http", period: "3s" } }),
      "spec.probeSpec.port: must be a port number 1-65535",
    ],
    [
      "probeSpec.path relative",
      badLink({ probeSpec: { path: "ready", port: "4191", period: "3s" } }),
      'spec.probeSpec.path: must start with "/"',
    ],
    [
      "selector operator unknown",
      badLink({ selector: { matchExpressions: [{ key: "a", operator: "Equals" }] } }),
      "spec.selector.matchExpressions[0].operator",
    ],
    [
      "selector label key invalid",
      badLink({ selector: { matchLabels: { "bad key!": "x" } } }),
      'spec.selector: matchLabels: "bad key!" is not a valid label key',
    ],
    [
      "selector In without values",
      badLink({ selector: { matchExpressions: [{ key: "a", operator: "In", values: [] }] } }),
      "spec.selector: matchExpressions[0].values: must not be empty when operator is In",
    ],
    [
      "remoteDiscoverySelector Exists with values",
      badLink({ remoteDiscoverySelector: { matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] } }),
      "spec.remoteDiscoverySelector: matchExpressions[0].values: must be empty",
    ],
    ["excludedLabels a string, not a list", badLink({ excludedLabels: "a,b" }), "spec.excludedLabels"],
    ["no spec at all", { ...badLink({}), spec: undefined } as unknown as KubeObject, "spec: is required"],
  ];
  for (const [what, link, field] of rows) {
    test(`${what}: one line naming ${field.split(":")[0]}, nothing mirrored, a Ready condition and a Warning Event naming it`, async () => {
      const outcome = await attempt(link);
      if (outcome.by === "api") {
        // The CRD's schema refused it: kube's 422 names the field.
        expect(outcome.message).toContain("422");
        expect(outcome.message).toContain(field.split(":")[0]!);
        return;
      }
      expect(outcome.errors).toHaveLength(1);
      expect(outcome.errors[0]).toContain(field);
      expect(outcome.errors[0]).toStartWith("Link linkerd-multicluster/east: ");
      expect(outcome.errors[0]).toEndWith("; not mirroring until the Link is fixed");
      // Nothing mirrored: the one write to the Link is its status, and one Event reports it.
      expect(outcome.written.map((w) => w.split(" ").slice(0, 2).join(" ")).sort()).toEqual([
        "ADDED /events",
        "MODIFIED multicluster.linkerd.io/links",
      ]);
      expect(outcome.ready).toMatchObject({ status: "False", reason: "InvalidLink" });
      expect(outcome.ready?.message).toContain(field);
      expect(outcome.events).toHaveLength(1);
      expect(outcome.events[0]).toMatchObject({ type: "Warning", reason: "InvalidLink" });
      expect(outcome.events[0]!.message).toContain(field);
    });
  }

  test("after all that, a valid Link mirrors at once (nothing was left behind to block it)", async () => {
    await westClient.create(linkResource, badLink({}));
    const serving = await serve({
      local: westClient,
      namespace: DEFAULT_NAMESPACE,
      linkName: "east",
      adminAddr: "127.0.0.1:0",
      leaderElect: false,
      log: recordingLog(),
      settings: { probeAddress: { "": "127.0.0.1:1" } },
      controller: { proberFactory: proberFactory() },
    });
    try {
      await untilStatus(serving.supervisor!, "running");
      await serving.supervisor!.controller!.synced;
      await serving.supervisor!.controller!.drain();
      expect(west.store.get({ group: "", plural: "services" }, "ns1", "service-one-east")).toBeDefined();
    } finally {
      await serving.stop();
    }
  });

  test("an unknown apiVersion is not served: the API server answers 404 and stores nothing (parseLink names it if one is read: test/model)", async () => {
    await westClient.delete(linkResource, DEFAULT_NAMESPACE, "east");
    const err = await westClient
      .create({ ...linkResource, apiVersion: "multicluster.linkerd.io/v9" }, { ...badLink({}), apiVersion: "multicluster.linkerd.io/v9" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeError);
    expect((err as KubeError).code).toBe(404);
    expect(west.store.get({ group: "multicluster.linkerd.io", plural: "links" }, DEFAULT_NAMESPACE, "east")).toBeUndefined();
  });
});
