// The mirror controller against two sandboxes with the real client: Linkerd's service-mirror
// scenarios (docs/linkerd-compatibility.md#linkerd-tests) for gateway mode, plus mc's own (orphans,
// foreign names, writes).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import type { EndpointsObject } from "../../src/mirror/types.ts";
import { linkResource } from "../../src/model/link.ts";
import { recordingLog } from "../kube/helpers.ts";
import { EXPORT, fakeResolver, remoteEndpoints, remoteService } from "./fixtures.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { cached, list, read, readLink, startController, writes } from "./harness.ts";

let pair: Pair;
beforeEach(async () => {
  pair = await startPair();
});
afterEach(() => pair.stop());

async function exportService(o: Parameters<typeof remoteService>[0] = {}, eps: Parameters<typeof remoteEndpoints>[0] | null = {}) {
  const svc = await pair.eastClient.create(resources.service, remoteService(o));
  const ep =
    eps === null
      ? undefined
      : await pair.eastClient.create(
          resources.endpoints,
          remoteEndpoints({ name: o.name, namespace: o.namespace, labels: o.labels, ...eps }),
        );
  return { svc, ep };
}

const mirror = (name = "service-one-east", ns = "ns1") => read(pair.west, "services", ns, name);
const mirrorEndpoints = (name = "service-one-east", ns = "ns1") => read(pair.west, "endpoints", ns, name) as EndpointsObject | undefined;

describe("mirroring an exported Service", () => {
  test("a Service exported after start is mirrored with exactly 2 writes, and the Link status is not written", async () => {
    const log = recordingLog();
    const ctl = await startController(pair, { probe: null }, { log });
    const before = writes(pair.west);
    const { svc, ep } = await exportService({ labels: { ...EXPORT, lk: "lv" } });
    await cached(ctl.informers.remoteServices, svc);
    await cached(ctl.informers.remoteEndpoints, ep!);
    await ctl.drain();
    expect(writes(pair.west) - before).toBe(2);
    const m = mirror()!;
    expect(m.metadata.labels).toEqual({
      lk: "lv",
      "mirror.linkerd.io/mirrored-service": "true",
      "mirror.linkerd.io/cluster-name": "east",
      "mirror.linkerd.io/link-uid": ctl.link.uid!,
    });
    expect(m.metadata.annotations).toEqual({
      "mirror.linkerd.io/remote-svc-fq-name": "service-one.ns1.svc.cluster.local",
      "mirror.linkerd.io/remote-resource-version": svc.metadata.resourceVersion!,
    });
    expect((m.spec as { ports: unknown[] }).ports).toEqual([
      { name: "port1", protocol: "TCP", port: 555, targetPort: 555 },
      { name: "port2", protocol: "TCP", port: 666, targetPort: 666 },
    ]);
    expect((m.spec as { selector?: unknown }).selector).toBeUndefined();
    expect(mirrorEndpoints()!.subsets).toEqual([
      {
        addresses: [{ ip: "192.0.2.127" }],
        ports: [
          { name: "port1", protocol: "TCP", port: 888 },
          { name: "port2", protocol: "TCP", port: 888 },
        ],
      },
    ]);
    expect(mirrorEndpoints()!.metadata.annotations?.["mirror.linkerd.io/remote-gateway-identity"]).toBe("gateway-identity");
    expect(readLink(pair.west)?.status).toBeUndefined();
    expect(ctl.outcome("ns1/service-one")).toBe("mirrored");
    expect(log.at("info").filter((l) => l.includes("service-one"))).toEqual(["mirrored ns1/service-one as ns1/service-one-east"]);
  });

  test("Services exported before start are mirrored at start; an idle resync then makes 0 writes", async () => {
    await exportService();
    await exportService({ name: "service-two" });
    const ctl = await startController(pair, {});
    expect(mirror()).toBeDefined();
    expect(mirror("service-two-east")).toBeDefined();
    expect(read(pair.west, "endpoints", "linkerd-multicluster", "probe-gateway-east")).toBeDefined();
    const before = writes(pair.west);
    await ctl.refresh();
    await ctl.drain();
    await ctl.refresh();
    await ctl.drain();
    expect(writes(pair.west)).toBe(before);
  });

  test("changed ports reach the mirror Service and Endpoints, and the remote-resource-version follows (Linkerd: updates service ports)", async () => {
    await exportService();
    const ctl = await startController(pair, {});
    const current = await pair.eastClient.get<KubeObject>(resources.service, "ns1", "service-one");
    const updated = await pair.eastClient.update(resources.service, {
      ...current,
      spec: {
        ...(current.spec as object),
        ports: [
          { name: "port1", port: 111 },
          { name: "port3", port: 333 },
        ],
      },
    });
    await cached(ctl.informers.remoteServices, updated);
    const before = writes(pair.west);
    await ctl.drain();
    expect(writes(pair.west) - before).toBe(2);
    expect((mirror()!.spec as { ports: Array<{ port: number; name: string }> }).ports.map((p) => `${p.name}:${p.port}`)).toEqual([
      "port1:111",
      "port3:333",
    ]);
    expect(mirrorEndpoints()!.subsets?.[0]?.ports).toEqual([
      { name: "port1", protocol: "TCP", port: 888 },
      { name: "port3", protocol: "TCP", port: 888 },
    ]);
    expect(mirror()!.metadata.annotations?.["mirror.linkerd.io/remote-resource-version"]).toBe(updated.metadata.resourceVersion);
  });

  test("labels and annotations changed in the target reach the mirror; excluded ones never do", async () => {
    await exportService();
    const ctl = await startController(pair, { excludedLabels: ["internal/*"], excludedAnnotations: ["secret-note"] });
    const patched = await pair.eastClient.patch<KubeObject>(resources.service, "ns1", "service-one", {
      metadata: {
        labels: { "new-label": "x", "internal/team": "a" },
        annotations: { note: "hi", "secret-note": "no", "service.kubernetes.io/topology-mode": "Auto" },
      },
    });
    await cached(ctl.informers.remoteServices, patched);
    await ctl.drain();
    expect(mirror()!.metadata.labels?.["new-label"]).toBe("x");
    expect(mirror()!.metadata.labels?.["internal/team"]).toBeUndefined();
    expect(mirror()!.metadata.annotations?.note).toBe("hi");
    expect(Object.keys(mirror()!.metadata.annotations ?? {}).sort()).toEqual([
      "mirror.linkerd.io/remote-resource-version",
      "mirror.linkerd.io/remote-svc-fq-name",
      "note",
    ]);
  });

  test("an export label removed in the target deletes the mirror Service and Endpoints (Linkerd: RemoteServiceUnexported)", async () => {
    await exportService();
    const ctl = await startController(pair, {});
    const patched = await pair.eastClient.patch<KubeObject>(resources.service, "ns1", "service-one", {
      metadata: { labels: { "mirror.linkerd.io/exported": null } },
    });
    await cached(ctl.informers.remoteServices, patched, true);
    await ctl.drain();
    expect(mirror()).toBeUndefined();
    expect(mirrorEndpoints()).toBeUndefined();
    expect(ctl.outcome("ns1/service-one")).toBeUndefined();
  });

  test("a deleted target Service deletes its mirror; deleting a Service that was never exported changes nothing (Linkerd: TestOnDelete)", async () => {
    const { svc } = await exportService();
    const plain = await pair.eastClient.create(resources.service, remoteService({ name: "plain", labels: {} }));
    const ctl = await startController(pair, {});
    await pair.eastClient.delete(resources.service, "ns1", "plain");
    await pair.eastClient.delete(resources.service, "ns1", "service-one");
    await cached(ctl.informers.remoteServices, svc, true);
    await ctl.drain();
    expect(mirror()).toBeUndefined();
    expect(list(pair.west, "services", "ns1")).toEqual([]);
    expect(plain.metadata.name).toBe("plain");
  });

  test("a target change the mirror does not copy (another ready pod) writes nothing (Linkerd: TestOnUpdate, same resource version)", async () => {
    const { ep } = await exportService();
    const ctl = await startController(pair, {});
    const before = writes(pair.west);
    const more = await pair.eastClient.update(resources.endpoints, {
      ...ep!,
      subsets: remoteEndpoints({ ready: ["10.0.0.1", "10.0.0.2"] }).subsets,
    });
    await cached(ctl.informers.remoteEndpoints, more);
    await ctl.drain();
    expect(writes(pair.west)).toBe(before);
  });

  test("a Link with no selector mirrors nothing and removes the mirrors it had (Linkerd: TestEmptyRemoteSelectors)", async () => {
    await exportService();
    const first = await startController(pair, {});
    expect(mirror()).toBeDefined();
    await first.stop();
    await pair.westClient.delete(linkResource, "linkerd-multicluster", "east");
    const ctl = await startController(pair, { selector: null });
    expect(ctl.informers.remoteServices).toBeUndefined();
    expect(list(pair.west, "services", "ns1")).toEqual([]);
  });

  test("a target whose endpoints all go away leaves the mirror without subsets, and they return with the endpoints", async () => {
    const { ep } = await exportService();
    const ctl = await startController(pair, {});
    const emptied = await pair.eastClient.update(resources.endpoints, { ...ep!, subsets: [] });
    await cached(ctl.informers.remoteEndpoints, emptied);
    await ctl.drain();
    expect(mirrorEndpoints()!.subsets ?? []).toEqual([]);
    const refilled = await pair.eastClient.update(resources.endpoints, { ...emptied, subsets: remoteEndpoints().subsets });
    await cached(ctl.informers.remoteEndpoints, refilled);
    await ctl.drain();
    expect(mirrorEndpoints()!.subsets?.[0]?.addresses).toEqual([{ ip: "192.0.2.127" }]);
  });
});

describe("gateway liveness and addresses", () => {
  test("a dead gateway moves mirror addresses to notReadyAddresses, an update keeps them there, and recovery makes them ready (Linkerd: TestServiceCreatedGatewayAlive)", async () => {
    await exportService();
    const ctl = await startController(pair, {});
    ctl.setAlive(false);
    await ctl.drain();
    expect(mirrorEndpoints()!.subsets).toEqual([expect.objectContaining({ notReadyAddresses: [{ ip: "192.0.2.127" }] })]);
    expect((read(pair.west, "endpoints", "linkerd-multicluster", "probe-gateway-east") as EndpointsObject).subsets).toEqual([
      { addresses: [{ ip: "192.0.2.127" }], ports: [{ name: "mc-probe", protocol: "TCP", port: 4191 }] },
    ]);
    const patched = await pair.eastClient.patch<KubeObject>(resources.service, "ns1", "service-one", {
      metadata: { labels: { "new-label": "x" } },
    });
    await cached(ctl.informers.remoteServices, patched);
    await ctl.drain();
    expect(mirror()!.metadata.labels?.["new-label"]).toBe("x");
    expect(mirrorEndpoints()!.subsets?.[0]?.addresses).toBeUndefined();
    ctl.setAlive(true);
    await ctl.drain();
    expect(mirrorEndpoints()!.subsets?.[0]?.addresses).toEqual([{ ip: "192.0.2.127" }]);
  });

  test("a Service exported while the gateway is down gets not-ready Endpoints, made ready when it comes back (Linkerd: TestServiceCreatedGatewayDown)", async () => {
    const ctl = await startController(pair, {});
    ctl.setAlive(false);
    await ctl.drain();
    const { svc, ep } = await exportService();
    await cached(ctl.informers.remoteServices, svc);
    await cached(ctl.informers.remoteEndpoints, ep!);
    await ctl.drain();
    expect(mirrorEndpoints()!.subsets).toEqual([expect.objectContaining({ notReadyAddresses: [{ ip: "192.0.2.127" }] })]);
    ctl.setAlive(true);
    await ctl.drain();
    expect(mirrorEndpoints()!.subsets?.[0]?.addresses).toEqual([{ ip: "192.0.2.127" }]);
  });

  test("alternating liveness reports settle on the last one (Linkerd: TestGatewayAliveSynchronization)", async () => {
    await exportService();
    const ctl = await startController(pair, {});
    for (let i = 0; i < 1024; i++) ctl.setAlive(i % 2 === 1);
    await ctl.drain();
    expect(mirrorEndpoints()!.subsets?.[0]?.addresses).toEqual([{ ip: "192.0.2.127" }]);
  });

  test("a gateway hostname resolves to all its addresses, and a changed address reaches every Endpoints on the next refresh", async () => {
    await exportService();
    const clock = new ManualClock();
    const resolver = fakeResolver({ "gw.east.example": ["192.0.2.20", "192.0.2.10"] });
    const ctl = await startController(
      pair,
      { gatewayAddress: "gw.east.example" },
      { resolver, clock, settings: { endpointRefreshPeriod: 60_000 } },
    );
    expect(mirrorEndpoints()!.subsets?.[0]?.addresses).toEqual([{ ip: "192.0.2.10" }, { ip: "192.0.2.20" }]);
    resolver.table["gw.east.example"] = ["198.51.100.7"];
    clock.advance(60_000);
    await ctl.refreshing;
    await ctl.drain();
    expect(mirrorEndpoints()!.subsets?.[0]?.addresses).toEqual([{ ip: "198.51.100.7" }]);
    expect((read(pair.west, "endpoints", "linkerd-multicluster", "probe-gateway-east") as EndpointsObject).subsets?.[0]?.addresses).toEqual(
      [{ ip: "198.51.100.7" }],
    );
  });
});

describe("what the mirror will not do", () => {
  test("a Service exported into a namespace missing locally is skipped with an Event on the target, and mirrored once the namespace appears (Linkerd: TestLocalNamespaceCreatedAfterServiceExport)", async () => {
    await pair.eastClient.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns9" } });
    const { svc } = await exportService({ namespace: "ns9" });
    const ctl = await startController(pair, {});
    expect(read(pair.west, "services", "ns9", "service-one-east")).toBeUndefined();
    const events = list(pair.east, "events", "ns9");
    expect(
      events.map((e) => [
        e.type,
        e.reason,
        e.message,
        (e.involvedObject as { name: string }).name,
        (e.source as { component: string }).component,
      ]),
    ).toEqual([
      [
        "Normal",
        "ServiceMirroringSkipped",
        "Skipped mirroring service: namespace does not exist",
        "service-one",
        "linkerd-service-mirror-east",
      ],
    ]);
    const status = readLink(pair.west)?.status as { mirrorServices: Array<{ remoteRef: unknown; conditions: Array<{ reason: string }> }> };
    expect(status.mirrorServices.map((m) => [m.remoteRef, m.conditions[0]?.reason])).toEqual([
      [{ group: "", kind: "Service", name: "service-one", namespace: "ns9" }, "MissingNamespace"],
    ]);
    const ns = await pair.westClient.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns9" } });
    await cached(ctl.informers.namespaces, ns);
    await ctl.drain();
    expect(read(pair.west, "services", "ns9", "service-one-east")).toBeDefined();
    expect((readLink(pair.west)!.status as { mirrorServices?: unknown }).mirrorServices).toBeUndefined();
    expect(list(pair.east, "events", "ns9").length).toBe(1);
    expect(svc.metadata.name).toBe("service-one");
  });

  test("with namespace creation on, a missing namespace is created with the mirror's labels", async () => {
    await pair.eastClient.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns8" } });
    await exportService({ namespace: "ns8" });
    await startController(pair, {}, { settings: { enableNamespaceCreation: true } });
    expect(read(pair.west, "namespaces", undefined, "ns8")?.metadata.labels).toEqual(
      expect.objectContaining({ "mirror.linkerd.io/mirrored-service": "true", "mirror.linkerd.io/cluster-name": "east" }),
    );
    expect(read(pair.west, "services", "ns8", "service-one-east")).toBeDefined();
  });

  test("a foreign Service already named <svc>-<cluster> is left untouched and reported in an Event, the log and the Link status", async () => {
    const foreign = await pair.westClient.create<KubeObject>(resources.service, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "service-one-east", namespace: "ns1", labels: { app: "mine" } },
      spec: { ports: [{ port: 80 }] },
    });
    await exportService();
    const log = recordingLog();
    const ctl = await startController(pair, {}, { log });
    expect(mirror()!.metadata.resourceVersion).toBe(foreign.metadata.resourceVersion);
    expect(mirrorEndpoints()).toBeUndefined();
    expect(log.at("warn")).toEqual([
      "not mirroring ns1/service-one: Service ns1/service-one-east exists and is not a mirror of east; left alone",
    ]);
    expect(list(pair.west, "events", "ns1").map((e) => [e.type, e.reason, (e.involvedObject as { name: string }).name])).toEqual([
      ["Warning", "ServiceMirroringSkipped", "service-one-east"],
    ]);
    const status = readLink(pair.west)?.status as { mirrorServices: Array<{ conditions: Array<{ reason: string; localRef?: unknown }> }> };
    expect(status.mirrorServices[0]?.conditions[0]).toEqual(
      expect.objectContaining({ reason: "Error", localRef: { group: "", kind: "Service", name: "service-one-east", namespace: "ns1" } }),
    );
    const before = writes(pair.west);
    await ctl.refresh();
    await ctl.drain();
    expect(writes(pair.west)).toBe(before);
    expect(log.at("warn").length).toBe(1);
  });

  test("a mirror the API server rejects as invalid is not retried and is reported with reason Error", async () => {
    // Annotations just under the API server's 256 KiB on the target: with the mirror's own
    // annotations added the mirror is over it, and west answers 422.
    const big = "x".repeat(256 * 1024 - 40);
    await exportService({ name: "big", annotations: { note: big } });
    const ctl = await startController(pair, {}, { settings: { eventRequeueLimit: 1 } });
    expect(ctl.outcome("ns1/big")).toBe("failed");
    const status = readLink(pair.west)?.status as {
      mirrorServices: Array<{ remoteRef: { name: string }; conditions: Array<{ reason: string; message: string }> }>;
    };
    expect(status.mirrorServices.map((m) => [m.remoteRef.name, m.conditions[0]?.reason])).toEqual([["big", "Error"]]);
    expect(status.mirrorServices[0]?.conditions[0]?.message).toContain("422");
  });
  test("a write that keeps failing is retried up to the requeue limit, reported as failed, and repaired by the next refresh", async () => {
    const ctl = await startController(pair, {}, { settings: { eventRequeueLimit: 2 } });
    const { svc } = await exportService();
    await cached(ctl.informers.remoteServices, svc);
    // Every request answered 503 at once: a 429's Retry-After would have the client wait 1 s per
    // answer before the queue sees the failure, so the test's time would depend on the draws.
    pair.west.control.faults.failWith = [503];
    pair.west.control.faults.failRate = 1;
    await ctl.drain();
    expect(ctl.outcome("ns1/service-one")).toBe("failed");
    expect(mirror()).toBeUndefined();
    pair.west.control.faults.failRate = 0;
    await ctl.refresh();
    await ctl.drain();
    expect(ctl.outcome("ns1/service-one")).toBe("mirrored");
    expect(mirror()).toBeDefined();
    expect((readLink(pair.west)?.status as { mirrorServices?: unknown } | undefined)?.mirrorServices).toBeUndefined();
  });
});

describe("orphans at start", () => {
  test("mirrors whose target is gone or no longer selected are deleted at start; the rest are kept (Linkerd: TestGcOrphanedServicesMirroring, plus the selector re-check)", async () => {
    await exportService({ name: "test-service-1" });
    await exportService({ name: "test-service-2" });
    await exportService({ name: "test-service-3" });
    const first = await startController(pair, {});
    expect(list(pair.west, "services", "ns1").map((s) => s.metadata.name)).toEqual([
      "test-service-1-east",
      "test-service-2-east",
      "test-service-3-east",
    ]);
    await first.stop();
    await pair.eastClient.delete(resources.service, "ns1", "test-service-2");
    await pair.eastClient.patch(resources.service, "ns1", "test-service-3", {
      metadata: { labels: { "mirror.linkerd.io/exported": "false" } },
    });
    await pair.westClient.delete(linkResource, "linkerd-multicluster", "east");
    await startController(pair, {});
    expect(list(pair.west, "services", "ns1").map((s) => s.metadata.name)).toEqual(["test-service-1-east"]);
    expect(list(pair.west, "endpoints", "ns1").map((s) => s.metadata.name)).toEqual(["test-service-1-east"]);
  });
});
