// mc_propagation_seconds: each change of an exported Service that its mirror has to follow is
// counted once, when the mirror is written for it; a change the mirror does not carry (a target
// address, in gateway mode) counts nothing; a write that fails is counted once, when its retry lands.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import { createMetrics, type Metrics } from "../../src/metrics.ts";
import { EXPORT, remoteEndpoints, remoteService } from "./fixtures.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { cached, read, startController } from "./harness.ts";

let pair: Pair;
beforeEach(async () => {
  pair = await startPair();
});
afterEach(() => pair.stop());

/** The histogram's count and sum for east. */
async function propagations(m: Metrics): Promise<{ count: number; sum: number }> {
  const { values } = await m.propagation.get();
  const of = (name: string) => values.find((v) => v.metricName === name && v.labels.target_cluster_name === "east")?.value ?? 0;
  return { count: of("mc_propagation_seconds_count"), sum: of("mc_propagation_seconds_sum") };
}

test("an export, then a relabel, each counted once when its mirror is written; an address change the mirror does not carry counts nothing", async () => {
  const metrics = createMetrics();
  const ctl = await startController(pair, { probe: null }, { metrics });
  expect((await propagations(metrics)).count).toBe(0);

  const svc = await pair.eastClient.create(resources.service, remoteService({ labels: EXPORT }));
  const ep = await pair.eastClient.create(resources.endpoints, remoteEndpoints({}));
  await cached(ctl.informers.remoteServices, svc);
  await cached(ctl.informers.remoteEndpoints, ep);
  await ctl.drain();
  expect(read(pair.west, "services", "ns1", "service-one-east")).toBeDefined();
  const first = await propagations(metrics);
  expect(first.count).toBe(1);
  expect(first.sum).toBeGreaterThanOrEqual(0);

  const relabelled = await pair.eastClient.patch<KubeObject>(resources.service, "ns1", "service-one", {
    metadata: { labels: { tier: "web" } },
  });
  await cached(ctl.informers.remoteServices, relabelled);
  await ctl.drain();
  expect(read(pair.west, "services", "ns1", "service-one-east")?.metadata.labels?.tier).toBe("web");
  expect((await propagations(metrics)).count).toBe(2);

  const moved = await pair.eastClient.update(resources.endpoints, {
    ...ep,
    ...remoteEndpoints({ ready: ["10.0.0.9"] }),
    metadata: { ...ep.metadata },
  });
  await cached(ctl.informers.remoteEndpoints, moved);
  await ctl.drain();
  expect((await propagations(metrics)).count).toBe(2);
});

test("a change whose write fails is counted once, when the retry writes it", async () => {
  const metrics = createMetrics();
  const ctl = await startController(pair, { probe: null }, { metrics, settings: { eventRequeueLimit: 5 } });
  const svc = await pair.eastClient.create(resources.service, remoteService({ labels: EXPORT }));
  const ep = await pair.eastClient.create(resources.endpoints, remoteEndpoints({}));
  await cached(ctl.informers.remoteServices, svc);
  await cached(ctl.informers.remoteEndpoints, ep);
  pair.west.control.faults.failWith = [500];
  pair.west.control.faults.failRate = 1;
  expect(await ctl.processNext()).toBe(true); // fails: nothing written, nothing counted
  expect((await propagations(metrics)).count).toBe(0);
  pair.west.control.faults.failRate = 0;
  await ctl.drain();
  expect(read(pair.west, "services", "ns1", "service-one-east")).toBeDefined();
  expect((await propagations(metrics)).count).toBe(1);
});
