// Issue 16 item 9: a gateway liveness change goes out ahead of routine work. With a new export
// queued (routine), the gateway dying rewrites every existing mirror's Endpoints first; the new
// export is mirrored after, already not ready.
import { afterEach, describe, expect, test } from "bun:test";
import { resources } from "../../src/kube/index.ts";
import { cached, read, readEndpoints, startController, startPair, type Pair } from "./harness.ts";
import { remoteEndpoints, remoteService } from "./fixtures.ts";

let pair: Pair | undefined;
afterEach(async () => {
  await pair?.stop();
  pair = undefined;
});

const notReady = (ep: ReturnType<typeof readEndpoints>) => (ep?.subsets ?? []).every((s) => (s.addresses ?? []).length === 0 && (s.notReadyAddresses ?? []).length > 0);

describe("liveness flips", () => {
  test("go ahead of a queued new export: existing mirrors' Endpoints are rewritten first", async () => {
    pair = await startPair();
    for (const name of ["a", "b"]) {
      await pair.eastClient.create(resources.service, remoteService({ name }));
      await pair.eastClient.create(resources.endpoints, remoteEndpoints({ name }));
    }
    const ctl = await startController(pair);
    expect(readEndpoints(pair.west, "ns1", "a-east")?.subsets?.[0]?.addresses).toBeDefined();
    // The controller's own writes come back as events and queue a and b again: let them, then drain, so the queue is empty.
    for (const name of ["a-east", "b-east"]) {
      await cached(ctl.informers.services, read(pair.west, "services", "ns1", name)!);
      await cached(ctl.informers.endpoints, read(pair.west, "endpoints", "ns1", name)!);
    }
    await ctl.drain();

    // "aa" sorts before "a" and "b" would come first in a plain FIFO too: it is queued before the flip.
    const svc = await pair.eastClient.create(resources.service, remoteService({ name: "aa" }));
    const ep = await pair.eastClient.create(resources.endpoints, remoteEndpoints({ name: "aa" }));
    await cached(ctl.informers.remoteServices, svc);
    await cached(ctl.informers.remoteEndpoints, ep);
    ctl.setAlive(false);

    expect(await ctl.processNext()).toBe(true);
    expect(await ctl.processNext()).toBe(true);
    expect([notReady(readEndpoints(pair.west, "ns1", "a-east")), notReady(readEndpoints(pair.west, "ns1", "b-east"))]).toEqual([true, true]);
    expect(readEndpoints(pair.west, "ns1", "aa-east")).toBeUndefined(); // the routine key still waits

    await ctl.drain();
    expect(notReady(readEndpoints(pair.west, "ns1", "aa-east"))).toBe(true);
  });
});
