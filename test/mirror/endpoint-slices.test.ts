// EndpointSlices instead of Endpoints (docs/decisions.md#d42): with --enable-endpoint-slices the controller reads the target's
// EndpointSlices (label kubernetes.io/service-name, ready conditions, hostnames for headless) instead of its Endpoints, and decides the
// same.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import type { MirrorController } from "../../src/mirror/controller.ts";
import type { EndpointsObject } from "../../src/mirror/types.ts";
import { EXPORT, remoteEndpoints, remoteService } from "./fixtures.ts";
import { within } from "../kube/helpers.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { cached, list, read, startController } from "./harness.ts";

// East's slices come from its EndpointSlice controller (selector Services, from Pods) or its mirroring
// controller (hand-written Endpoints).

let pair: Pair;
beforeEach(async () => {
  pair = await startPair();
});
afterEach(() => pair.stop());

const slices = { settings: { enableEndpointSlices: true } };
const mirrorEndpoints = (name = "service-one-east") => read(pair.west, "endpoints", "ns1", name) as EndpointsObject | undefined;
const sliceType = () => pair.east.api.registry.find("discovery.k8s.io", "v1", "endpointslices")!;
const podsType = () => pair.east.api.registry.find("", "v1", "pods")!;

/** Resolves once the controller's slice cache holds `service`'s slices as east stores them, then drains. */
async function slicesSeen(ctl: MirrorController, service = "service-one") {
  const informer = ctl.informers.remoteEndpointSlices!;
  const ofService = (s: KubeObject) => s.metadata.namespace === "ns1" && s.metadata.labels?.["kubernetes.io/service-name"] === service;
  const done = () => {
    const stored = pair.east.store.list(sliceType(), { namespace: "ns1" }).filter(ofService);
    const cachedSlices = informer.cache.list().filter(ofService);
    return (
      stored.length === cachedSlices.length &&
      stored.every((s) => informer.cache.get("ns1", s.metadata.name!)?.metadata.resourceVersion === s.metadata.resourceVersion)
    );
  };
  if (!done()) {
    await within(
      new Promise<void>((resolve) => {
        const off = informer.on(() => {
          if (!done()) return;
          off();
          resolve();
        });
      }),
      `the slices of ${service} in the cache`,
    );
  }
  await ctl.drain();
}

/** Pods `app=<app>` in east (the sandbox's kubelet starts them Running and Ready). */
function pods(app: string, n: number, o: { hostnames?: string; port?: number } = {}) {
  for (let i = 0; i < n; i++) {
    const name = `${app}-${i}`;
    pair.east.api.create(
      podsType(),
      "ns1",
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, namespace: "ns1", labels: { app } },
        spec: {
          ...(o.hostnames && { hostname: name, subdomain: o.hostnames }),
          containers: [{ name: "c", image: "i", ports: [{ name: "p1", containerPort: o.port ?? 8080 }] }],
        },
      },
      { fieldManager: "test" },
    );
  }
}

describe("--enable-endpoint-slices", () => {
  test("a selector export is mirrored from the slices of its Pods, goes empty when they are all not ready and comes back", async () => {
    const ctl = await startController(pair, {}, slices);
    expect(ctl.informers.remoteEndpoints).toBeUndefined();
    pods("web", 2);
    const svc = await pair.eastClient.create(resources.service, {
      ...remoteService(),
      spec: { selector: { app: "web" }, ports: [{ name: "port1", port: 555, targetPort: "p1" }] },
    });
    await cached(ctl.informers.remoteServices, svc);
    await slicesSeen(ctl);
    expect(mirrorEndpoints()?.subsets).toEqual([
      { addresses: [{ ip: "192.0.2.127" }], ports: [{ name: "port1", protocol: "TCP", port: 888 }] },
    ]);
    for (const p of ["web-0", "web-1"]) pair.east.api.kubelet.setPodReady("ns1", p, false);
    await slicesSeen(ctl);
    expect(mirrorEndpoints()?.subsets ?? []).toEqual([]);
    pair.east.api.kubelet.setPodReady("ns1", "web-1", true);
    await slicesSeen(ctl);
    expect(mirrorEndpoints()?.subsets?.[0]?.addresses).toEqual([{ ip: "192.0.2.127" }]);
  });

  test("a selector-less export reads the slices mirrored from its hand-written Endpoints", async () => {
    const ctl = await startController(pair, {}, slices);
    const svc = await pair.eastClient.create(resources.service, remoteService());
    await pair.eastClient.create(resources.endpoints, { ...remoteEndpoints(), metadata: { name: "service-one", namespace: "ns1" } });
    await cached(ctl.informers.remoteServices, svc);
    await slicesSeen(ctl);
    expect(mirrorEndpoints()?.subsets?.[0]?.addresses).toEqual([{ ip: "192.0.2.127" }]);
  });

  test("it is the slices that decide: a Service with a ready slice and no Endpoints is mirrored ready; without the flag it is not", async () => {
    const svc = await pair.eastClient.create(resources.service, remoteService());
    const slice: KubeObject = {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { name: "service-one-abc", namespace: "ns1", labels: { "kubernetes.io/service-name": "service-one" } },
      addressType: "IPv4",
      endpoints: [{ addresses: ["10.0.0.1"], conditions: { ready: true } }],
      ports: [{ name: "port1", port: 555, protocol: "TCP" }],
    };
    pair.east.api.create(sliceType(), "ns1", slice as never, { fieldManager: "test" });
    await startController(pair, {}, slices);
    expect(read(pair.west, "services", "ns1", "service-one-east")).toBeDefined();
    expect(mirrorEndpoints()?.subsets?.[0]?.addresses).toEqual([{ ip: "192.0.2.127" }]);
    await pair.controllers.pop()!.stop();
    await pair.westClient.delete(resources.service, "ns1", "service-one-east");
    await pair.westClient.delete(
      { apiVersion: "multicluster.linkerd.io/v1alpha3", kind: "Link", plural: "links", namespaced: true },
      "linkerd-multicluster",
      "east",
    );
    await startController(pair, {});
    expect(svc.metadata.name).toBe("service-one");
    expect(mirrorEndpoints()?.subsets ?? []).toEqual([]);
  });

  test("a headless export gets endpoint mirrors from its slices' hostnames, labelled like the exported Service's mirror", async () => {
    const ctl = await startController(
      pair,
      { gatewayAddress: "192.0.2.129", gatewayPort: "889" },
      { settings: { ...slices.settings, enableHeadlessServices: true } },
    );
    pods("db", 2, { hostnames: "service-one" });
    const svc = await pair.eastClient.create(resources.service, {
      ...remoteService({ headless: true, labels: { ...EXPORT, lk: "lv" } }),
      spec: { clusterIP: "None", selector: { app: "db" }, ports: [{ name: "port1", port: 555, targetPort: 555 }] },
    });
    await cached(ctl.informers.remoteServices, svc);
    await slicesSeen(ctl);
    expect(list(pair.west, "services", "ns1").map((s) => s.metadata.name)).toEqual(["db-0-east", "db-1-east", "service-one-east"]);
    expect(read(pair.west, "services", "ns1", "db-0-east")!.metadata.labels).toEqual({
      lk: "lv",
      "mirror.linkerd.io/mirrored-service": "true",
      "mirror.linkerd.io/cluster-name": "east",
      "mirror.linkerd.io/link-uid": ctl.link.uid!,
      "mirror.linkerd.io/headless-mirror-svc-name": "service-one-east",
    });
    const hosts = mirrorEndpoints()!
      .subsets![0]!.addresses!.map((a) => a.hostname)
      .sort();
    expect(hosts).toEqual(["db-0", "db-1"]);
    pair.east.api.delete(podsType(), "ns1", "db-1");
    await slicesSeen(ctl);
    expect(list(pair.west, "services", "ns1").map((s) => s.metadata.name)).toEqual(["db-0-east", "service-one-east"]);
  });
});
