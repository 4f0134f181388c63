// The controller's own writes come back through its local informers; those echoes requeue
// nothing (the reconcile that wrote them already knows), while a change someone else makes to
// a mirror is noticed and repaired.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import { createMetrics } from "../../src/metrics.ts";
import type { EndpointsObject } from "../../src/mirror/types.ts";
import { remoteEndpoints, remoteService } from "./fixtures.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { cached, read, startController } from "./harness.ts";

let pair: Pair;
beforeEach(async () => {
  pair = await startPair();
});
afterEach(() => pair.stop());

describe("echoes of the controller's own writes", () => {
  test("requeue nothing, even when the echo beats the write's response; a foreign edit of the mirror is requeued and repaired", async () => {
    const metrics = createMetrics();
    const ctl = await startController(pair, {}, { metrics });
    const reconciles = async () => (await metrics.reconcileDuration.get()).values.find((v) => v.metricName?.endsWith("_count"))?.value ?? 0;
    const before = await reconciles();
    const svc = await pair.eastClient.create(resources.service, remoteService());
    const ep = await pair.eastClient.create(resources.endpoints, remoteEndpoints());
    await cached(ctl.informers.remoteServices, svc);
    await cached(ctl.informers.remoteEndpoints, ep);
    await ctl.drain();
    const mirror = read(pair.west, "services", "ns1", "service-one-east")!;
    const mirrorEps = read(pair.west, "endpoints", "ns1", "service-one-east") as EndpointsObject;
    // Whichever came first, the write's response or its watch event, both are in now.
    await cached(ctl.informers.services, mirror);
    await cached(ctl.informers.endpoints, mirrorEps);
    while (await ctl.processNext());
    // One reconcile wrote both; neither write's echo ran another, whatever came first.
    expect((await reconciles()) - before).toBe(1);

    const edited = await pair.westClient.patch<KubeObject>(resources.endpoints, "ns1", "service-one-east", { subsets: [] });
    await cached(ctl.informers.endpoints, edited);
    await ctl.drain();
    expect((read(pair.west, "endpoints", "ns1", "service-one-east") as EndpointsObject).subsets).toEqual(mirrorEps.subsets);
  });
});
