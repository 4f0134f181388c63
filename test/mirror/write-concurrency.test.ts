// A new mirror's two writes go out together: its Endpoints are sent while its Service's create is
// still unanswered (kube takes an Endpoints whose Service does not exist yet), so a sync costs one
// round trip per mirror, not two; a failed one of the pair is retried without losing the other.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { resources, type KubeClient, type KubeObject, type ResourceType } from "../../src/kube/index.ts";
import { EXPORT, remoteEndpoints, remoteService } from "./fixtures.ts";
import { startPair, within, type Pair } from "../helpers/clusters.ts";
import { cached, read, startController } from "./harness.ts";

let pair: Pair;
beforeEach(async () => {
  pair = await startPair();
});
afterEach(() => pair.stop());

/** West's client with its mirror Service creates held until `release()`; every create is recorded as it is sent and answered. */
function gatedWest(west: KubeClient) {
  const events: string[] = [];
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let endpointsAnswered = () => {};
  const endpointsWritten = new Promise<void>((resolve) => (endpointsAnswered = resolve));
  const create = async <T extends KubeObject>(res: ResourceType, obj: T, ...rest: unknown[]): Promise<T> => {
    const what = `${res.plural} ${obj.metadata.name}`;
    events.push(`sent ${what}`);
    if (res.plural === "services" && obj.metadata.name === "service-one-east") await gate;
    const out = await (west.create as (...a: unknown[]) => Promise<T>).call(west, res, obj, ...rest);
    events.push(`answered ${what}`);
    if (res.plural === "endpoints" && obj.metadata.name === "service-one-east") endpointsAnswered();
    return out;
  };
  const client = new Proxy(west, { get: (target, p, receiver) => (p === "create" ? create : Reflect.get(target, p, receiver)) });
  return { client, events, release, endpointsWritten };
}

test("a new mirror's Endpoints are sent before its Service's create is answered, and both are written", async () => {
  const west = gatedWest(pair.westClient);
  const ctl = await startController(pair, { probe: null }, { local: west.client });
  const svc = await pair.eastClient.create(resources.service, remoteService({ labels: EXPORT }));
  const ep = await pair.eastClient.create(resources.endpoints, remoteEndpoints({}));
  await cached(ctl.informers.remoteServices, svc);
  await cached(ctl.informers.remoteEndpoints, ep);
  const drained = ctl.drain();
  try {
    // Were the writes one after the other, the Endpoints would wait for the held Service forever.
    await within(west.endpointsWritten, "the mirror's Endpoints to be written while its Service is held");
    expect(west.events.filter((e) => e.includes("service-one-east"))).toEqual([
      "sent services service-one-east",
      "sent endpoints service-one-east",
      "answered endpoints service-one-east",
    ]);
  } finally {
    west.release();
  }
  await drained;
  expect(read(pair.west, "services", "ns1", "service-one-east")).toBeDefined();
  expect(read(pair.west, "endpoints", "ns1", "service-one-east")).toBeDefined();
  expect(ctl.outcome("ns1/service-one")).toBe("mirrored");
});

test("when the Service's create fails, the Endpoints written beside it stay known: the retry creates the Service only", async () => {
  const sent: string[] = [];
  let failNext = true;
  const west = pairClient(pair.westClient, async (res, name) => {
    sent.push(`${res} ${name}`);
    if (res === "services" && name === "service-one-east" && failNext) {
      failNext = false;
      throw new Error("connection reset");
    }
  });
  const ctl = await startController(pair, { probe: null }, { local: west });
  const svc = await pair.eastClient.create(resources.service, remoteService({ labels: EXPORT }));
  const ep = await pair.eastClient.create(resources.endpoints, remoteEndpoints({}));
  await cached(ctl.informers.remoteServices, svc);
  await cached(ctl.informers.remoteEndpoints, ep);
  await ctl.drain();
  expect(sent.filter((s) => s.includes("service-one-east"))).toEqual([
    "services service-one-east",
    "endpoints service-one-east",
    "services service-one-east",
  ]);
  expect(read(pair.west, "services", "ns1", "service-one-east")).toBeDefined();
  expect(read(pair.west, "endpoints", "ns1", "service-one-east")).toBeDefined();
  expect(ctl.outcome("ns1/service-one")).toBe("mirrored");
});

/** West's client with `before` run ahead of every create (it may throw, failing that create). */
function pairClient(west: KubeClient, before: (plural: string, name: string | undefined) => Promise<void>): KubeClient {
  const create = async (res: ResourceType, obj: KubeObject, ...rest: unknown[]) => {
    await before(res.plural, obj.metadata.name);
    return (west.create as (...a: unknown[]) => Promise<KubeObject>).call(west, res, obj, ...rest);
  };
  return new Proxy(west, { get: (target, p, receiver) => (p === "create" ? create : Reflect.get(target, p, receiver)) });
}
