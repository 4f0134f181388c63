// --mirror-endpoint-slices: mirrors get discovery.k8s.io/v1 EndpointSlices managed by mc instead of v1 Endpoints (regular, headless and the
// gateway mirror; remote-discovery mirrors get neither), ready and serving following gateway liveness, one write per change; switching the
// setting either way converts existing mirrors with no moment without endpoints.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import type { MirrorController } from "../../src/mirror/controller.ts";
import { linkResource } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import { REMOTE_DISCOVERY, remoteEndpoints, remoteService } from "./fixtures.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { cached, read, readEndpoints, startController, writes } from "./harness.ts";

let pair: Pair;
beforeEach(async () => {
  pair = await startPair();
});
afterEach(() => pair.stop());

const ON = { settings: { mirrorEndpointSlices: true } };
const SLICES = { group: "discovery.k8s.io", plural: "endpointslices" };
const slicesOf = (service: string, namespace = "ns1") =>
  (pair.west.store.list(SLICES, { namespace }) as KubeObject[]).filter(
    (s) => s.metadata.labels?.["kubernetes.io/service-name"] === service,
  );
const mcSlices = (service: string, namespace = "ns1") =>
  slicesOf(service, namespace).filter(
    (s) => s.metadata.labels?.["endpointslice.kubernetes.io/managed-by"] === "service-mirror.mc-project.io",
  );
type SliceBody = {
  addressType: string;
  endpoints: Array<{ addresses: string[]; conditions: { ready: boolean; serving: boolean }; hostname?: string }>;
  ports: unknown[];
};
const body = (s: KubeObject | undefined) => s as unknown as SliceBody;

async function exportOne(o: { name?: string; labels?: Record<string, string> } = {}) {
  await pair.eastClient.create(resources.service, remoteService(o));
  await pair.eastClient.create(resources.endpoints, remoteEndpoints({ name: o.name }));
}

/** Stops the controller and deletes its Link (a new one is made by startController), keeping every mirror. */
async function restart(): Promise<void> {
  await pair.controllers.pop()!.stop();
  await pair.westClient.delete(linkResource, DEFAULT_NAMESPACE, "east");
}

/**
 * Records, from every change west commits, whether `service` had endpoints in some form (its
 * Endpoints, or any slice of it) after each change: a conversion must never show `false` once
 * it started `true`.
 */
function presence(service: string): boolean[] {
  const seen: boolean[] = [];
  pair.west.store.onCommit((e) => {
    if (e.object.metadata.namespace !== "ns1") return;
    const about = e.object.metadata.name === service || e.object.metadata.labels?.["kubernetes.io/service-name"] === service;
    if (about) seen.push(readEndpoints(pair.west, "ns1", service) !== undefined || slicesOf(service).length > 0);
  });
  return seen;
}

describe("--mirror-endpoint-slices", () => {
  test("a mirror gets one slice managed by mc, named as the mirror, with the gateway port, the port names and protocols, and no Endpoints", async () => {
    await exportOne();
    const ctl = await startController(pair, {}, ON);
    expect(read(pair.west, "services", "ns1", "service-one-east")).toBeDefined();
    expect(readEndpoints(pair.west, "ns1", "service-one-east")).toBeUndefined();
    const [slice, ...more] = slicesOf("service-one-east");
    expect(more).toEqual([]);
    expect(slice!.metadata.name).toBe("service-one-east");
    expect(slice!.metadata.labels).toEqual({
      "kubernetes.io/service-name": "service-one-east",
      "endpointslice.kubernetes.io/managed-by": "service-mirror.mc-project.io",
      "mirror.linkerd.io/mirrored-service": "true",
      "mirror.linkerd.io/cluster-name": "east",
      "mirror.linkerd.io/link-uid": ctl.link.uid!,
    });
    expect(slice!.metadata.annotations).toEqual({
      "mirror.linkerd.io/remote-svc-fq-name": "service-one.ns1.svc.cluster.local",
      "mirror.linkerd.io/remote-gateway-identity": "gateway-identity",
    });
    expect(body(slice).addressType).toBe("IPv4");
    expect(body(slice).endpoints).toEqual([{ addresses: ["192.0.2.127"], conditions: { ready: true, serving: true } }]);
    expect(body(slice).ports).toEqual([
      { name: "port1", protocol: "TCP", port: 888 },
      { name: "port2", protocol: "TCP", port: 888 },
    ]);
  });

  test("ready and serving follow gateway liveness, with one write per change (no Endpoints for kube to mirror)", async () => {
    await exportOne();
    const ctl = await startController(pair, {}, ON);
    const slice = mcSlices("service-one-east")[0]!;
    await cached(ctl.informers.slices, slice);
    await ctl.drain();
    const before = writes(pair.west);
    ctl.setAlive(false);
    await ctl.drain();
    expect(writes(pair.west) - before).toBe(1);
    expect(body(mcSlices("service-one-east")[0]).endpoints).toEqual([
      { addresses: ["192.0.2.127"], conditions: { ready: false, serving: false } },
    ]);
    expect(slicesOf("service-one-east")).toHaveLength(1); // kube's mirroring controller has no Endpoints to mirror
    ctl.setAlive(true);
    await ctl.drain();
    expect(body(mcSlices("service-one-east")[0]).endpoints[0]!.conditions).toEqual({ ready: true, serving: true });
  });

  test("an unexport deletes the mirror and its slice", async () => {
    await exportOne();
    const ctl = await startController(pair, {}, ON);
    const svc = (await pair.eastClient.get(resources.service, "ns1", "service-one")) as KubeObject;
    const updated = await pair.eastClient.update(resources.service, { ...svc, metadata: { ...svc.metadata, labels: {} } });
    await cached(ctl.informers.remoteServices, updated, true);
    await ctl.drain();
    expect(read(pair.west, "services", "ns1", "service-one-east")).toBeUndefined();
    expect(slicesOf("service-one-east")).toEqual([]);
  });

  test("the gateway mirror is a slice of the probe Service; a remote-discovery mirror has neither slices nor Endpoints", async () => {
    await exportOne({ name: "flat", labels: REMOTE_DISCOVERY });
    await startController(pair, { remoteDiscoverySelector: { matchLabels: REMOTE_DISCOVERY } }, ON);
    expect(readEndpoints(pair.west, DEFAULT_NAMESPACE, "probe-gateway-east")).toBeUndefined();
    const probe = mcSlices("probe-gateway-east", DEFAULT_NAMESPACE);
    expect(probe.map((s) => body(s).endpoints)).toEqual([[{ addresses: ["192.0.2.127"], conditions: { ready: true, serving: true } }]]);
    expect(probe.map((s) => body(s).ports)).toEqual([[{ name: "mc-probe", protocol: "TCP", port: 4191 }]]);
    expect(read(pair.west, "services", "ns1", "flat-east")).toBeDefined();
    expect(slicesOf("flat-east")).toEqual([]);
    expect(readEndpoints(pair.west, "ns1", "flat-east")).toBeUndefined();
  });

  test("a headless export's endpoint mirrors get slices, and the headless mirror's slice lists them by hostname", async () => {
    await pair.eastClient.create(resources.service, remoteService({ headless: true }));
    await pair.eastClient.create(resources.endpoints, remoteEndpoints({ headless: true, ready: [{ ip: "10.0.0.1", hostname: "pod-0" }] }));
    await startController(pair, {}, { settings: { mirrorEndpointSlices: true, enableHeadlessServices: true } });
    const epMirror = read(pair.west, "services", "ns1", "pod-0-east") as KubeObject & { spec: { clusterIP: string } };
    expect(epMirror).toBeDefined();
    expect(body(mcSlices("pod-0-east")[0]).endpoints).toEqual([{ addresses: ["192.0.2.127"], conditions: { ready: true, serving: true } }]);
    expect(body(mcSlices("service-one-east")[0]).endpoints).toEqual([
      { addresses: [epMirror.spec.clusterIP], conditions: { ready: true, serving: true }, hostname: "pod-0" },
    ]);
    expect(body(mcSlices("service-one-east")[0]).ports).toEqual([
      { name: "port1", protocol: "TCP", port: 555 },
      { name: "port2", protocol: "TCP", port: 666 },
    ]);
    expect(readEndpoints(pair.west, "ns1", "pod-0-east")).toBeUndefined();
    expect(readEndpoints(pair.west, "ns1", "service-one-east")).toBeUndefined();
  });

  test("turned on, existing mirrors are converted: their slice is written before their Endpoints go", async () => {
    await exportOne();
    await startController(pair);
    expect(readEndpoints(pair.west, "ns1", "service-one-east")).toBeDefined();
    expect(mcSlices("service-one-east")).toEqual([]);
    const seen = presence("service-one-east");
    await restart();
    await startController(pair, {}, ON);
    expect(readEndpoints(pair.west, "ns1", "service-one-east")).toBeUndefined();
    expect(readEndpoints(pair.west, DEFAULT_NAMESPACE, "probe-gateway-east")).toBeUndefined();
    expect(mcSlices("service-one-east")).toHaveLength(1);
    expect(mcSlices("probe-gateway-east", DEFAULT_NAMESPACE)).toHaveLength(1);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every(Boolean)).toBe(true);
  });

  test("turned off, existing mirrors are converted back: their Endpoints are written before mc's slices go", async () => {
    await exportOne();
    await startController(pair, {}, ON);
    expect(mcSlices("service-one-east")).toHaveLength(1);
    const seen = presence("service-one-east");
    await restart();
    const ctl: MirrorController = await startController(pair);
    await ctl.drain();
    expect(readEndpoints(pair.west, "ns1", "service-one-east")?.subsets?.[0]?.addresses).toEqual([{ ip: "192.0.2.127" }]);
    expect(readEndpoints(pair.west, DEFAULT_NAMESPACE, "probe-gateway-east")).toBeDefined();
    expect(mcSlices("service-one-east")).toEqual([]);
    expect(mcSlices("probe-gateway-east", DEFAULT_NAMESPACE)).toEqual([]);
    expect(seen.every(Boolean)).toBe(true);
  });
});
