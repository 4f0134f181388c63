// Live events never wait behind a resync: the keys a start or a refresh queues for every Service go
// low, a change the target's watch delivers meanwhile goes normal, so it is reconciled next, not
// after thousands of mirrors that are already right.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import { MirrorController } from "../../src/mirror/controller.ts";
import { linkResource, parseLink } from "../../src/model/link.ts";
import { EXPORT, fakeResolver, linkObject, remoteEndpoints, remoteService } from "./fixtures.ts";
import { startPair, within, type Pair } from "../helpers/clusters.ts";
import { cached, list, quiet, read, startController } from "./harness.ts";

const SERVICES = 20;
let pair: Pair;
beforeEach(async () => {
  pair = await startPair();
  for (let i = 0; i < SERVICES; i++) {
    await pair.eastClient.create(resources.service, remoteService({ name: `svc-${i}`, labels: EXPORT }));
    await pair.eastClient.create(resources.endpoints, remoteEndpoints({ name: `svc-${i}` }));
  }
});
afterEach(() => pair.stop());

const relabel = (name: string) =>
  pair.eastClient.patch<KubeObject>(resources.service, "ns1", name, { metadata: { labels: { tier: "live" } } });
const mirrors = () => list(pair.west, "services", "ns1").filter((s) => s.metadata.name?.endsWith("-east"));

/** Runs keys one at a time until `name`'s mirror carries the change; how many ran. Ahead of it only the Link status and the sweep of renamed mirrors (queued normal, before it). */
async function stepsUntilLive(ctl: MirrorController, name: string): Promise<number> {
  for (let steps = 1; await ctl.processNext(); steps++) {
    if (read(pair.west, "services", "ns1", `${name}-east`)?.metadata.labels?.tier === "live") return steps;
  }
  throw new Error(`${name}'s mirror never carried the change`);
}

test("at start, a change made before the first mirrors are written is reconciled first", async () => {
  const link = parseLink(await pair.westClient.create(linkResource, linkObject({ probe: null })));
  const ctl = new MirrorController({
    link,
    namespace: link.namespace,
    local: pair.westClient,
    remote: pair.eastClient,
    manual: true,
    resolver: fakeResolver({}),
    log: quiet,
  });
  pair.controllers.push(ctl);
  ctl.start();
  await within(ctl.synced, "the controller to sync");
  const changed = await relabel("svc-13");
  await cached(ctl.informers.remoteServices, changed);
  expect(await stepsUntilLive(ctl, "svc-13")).toBeLessThanOrEqual(3);
  expect(mirrors().map((s) => s.metadata.name)).toEqual(["svc-13-east"]);
  await ctl.drain();
  expect(mirrors().length).toBe(SERVICES);
});

test("during a refresh's resync of every key, a live change is reconciled next", async () => {
  const ctl = await startController(pair, { probe: null });
  expect(mirrors().length).toBe(SERVICES);
  await ctl.refresh(); // every key queued again
  const changed = await relabel("svc-7");
  await cached(ctl.informers.remoteServices, changed);
  expect(await stepsUntilLive(ctl, "svc-7")).toBeLessThanOrEqual(3);
  await ctl.drain();
});
