// Whether a target Service has ready endpoints is read from its Endpoints whatever their labels (docs/decisions.md#d41).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import type { EndpointsObject } from "../../src/mirror/types.ts";
import { EXPORT, remoteEndpoints, remoteService } from "./fixtures.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { cached, read, startController } from "./harness.ts";

// A selector-less Service (a database outside the cluster) has hand-managed Endpoints that carry none
// of its labels — the endpoints controller copies labels only for Services with a selector, and only
// after a lag — yet its mirror must point at the gateway, follow the Endpoints emptying and refilling,
// and survive a repair.

let pair: Pair;
beforeEach(async () => {
  pair = await startPair();
});
afterEach(() => pair.stop());

const gatewaySubsets = [
  {
    addresses: [{ ip: "192.0.2.127" }],
    ports: [
      { name: "port1", protocol: "TCP", port: 888 },
      { name: "port2", protocol: "TCP", port: 888 },
    ],
  },
];
const mirrorEndpoints = () => read(pair.west, "endpoints", "ns1", "service-one-east") as EndpointsObject | undefined;

describe("Endpoints without the Service's labels", () => {
  test("a selector-less export with hand-managed, unlabelled Endpoints is mirrored with ready endpoints, follows them emptying and refilling, and keeps them through a repair", async () => {
    const ctl = await startController(pair, {});
    const svc = await pair.eastClient.create(resources.service, remoteService({ labels: { ...EXPORT, app: "db" } }));
    const ep = await pair.eastClient.create<KubeObject>(resources.endpoints, {
      ...remoteEndpoints({ labels: {} }),
      metadata: { name: "service-one", namespace: "ns1" },
    });
    expect((ep.metadata as { labels?: unknown }).labels).toBeUndefined();
    await cached(ctl.informers.remoteServices, svc);
    await cached(ctl.informers.remoteEndpoints, ep);
    await ctl.drain();
    expect(mirrorEndpoints()?.subsets).toEqual(gatewaySubsets);

    const emptied = await pair.eastClient.update(resources.endpoints, { ...ep, subsets: [] });
    await cached(ctl.informers.remoteEndpoints, emptied);
    await ctl.drain();
    expect(mirrorEndpoints()?.subsets ?? []).toEqual([]);

    const refilled = await pair.eastClient.update<KubeObject>(resources.endpoints, { ...emptied, subsets: remoteEndpoints().subsets });
    await cached(ctl.informers.remoteEndpoints, refilled);
    await ctl.drain();
    expect(mirrorEndpoints()?.subsets).toEqual(gatewaySubsets);

    await ctl.refresh();
    await ctl.drain();
    expect(mirrorEndpoints()?.subsets).toEqual(gatewaySubsets);
  });
});
