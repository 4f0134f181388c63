// Liveness flips first (docs/decisions.md#d46): a gateway liveness change goes out ahead of routine
// work. With a new export queued (routine), the gateway dying rewrites every existing mirror's
// Endpoints first; the new export is mirrored after, already not ready.
import { afterEach, describe, expect, test } from "bun:test";
import { resources } from "../../src/kube/index.ts";
import { within } from "../kube/helpers.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { cached, read, readEndpoints, startController } from "./harness.ts";
import { remoteEndpoints, remoteService } from "./fixtures.ts";

let pair: Pair | undefined;
afterEach(async () => {
  await pair?.stop();
  pair = undefined;
});

const notReady = (ep: ReturnType<typeof readEndpoints>) =>
  (ep?.subsets ?? []).every((s) => (s.addresses ?? []).length === 0 && (s.notReadyAddresses ?? []).length > 0);

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
    expect([notReady(readEndpoints(pair.west, "ns1", "a-east")), notReady(readEndpoints(pair.west, "ns1", "b-east"))]).toEqual([
      true,
      true,
    ]);
    expect(readEndpoints(pair.west, "ns1", "aa-east")).toBeUndefined(); // the routine key still waits

    await ctl.drain();
    expect(notReady(readEndpoints(pair.west, "ns1", "aa-east"))).toBe(true);
  });

  test("by default a flip rewrites 32 mirrors' Endpoints at once, twice the routine workers", async () => {
    pair = await startPair();
    const names = Array.from({ length: 34 }, (_, i) => `s${i}`);
    for (const name of names) {
      await pair.eastClient.create(resources.service, remoteService({ name }));
      await pair.eastClient.create(resources.endpoints, remoteEndpoints({ name }));
    }
    const ctl = await startController(pair);
    for (const name of names.map((n) => `${n}-east`)) await cached(ctl.informers.endpoints, read(pair.west, "endpoints", "ns1", name)!);
    await ctl.drain();
    let held = 0;
    let most = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let full!: () => void;
    const allHeld = new Promise<void>((resolve) => (full = resolve));
    const client = pair.westClient as unknown as Record<"update", (...args: unknown[]) => Promise<unknown>>;
    const update = client.update.bind(client);
    client.update = async (...args: unknown[]) => {
      if ((args[0] as { plural: string }).plural !== "endpoints") return update(...args);
      most = Math.max(most, ++held);
      if (held >= 32) full();
      await gate;
      held--;
      return update(...args);
    };
    ctl.setAlive(false);
    const drained = ctl.drain();
    try {
      await within(allHeld, "32 mirrors' Endpoints rewritten at once", 5000);
    } finally {
      open();
    }
    await drained;
    client.update = update;
    expect(most).toBe(32);
    for (const name of names) expect(notReady(readEndpoints(pair.west, "ns1", `${name}-east`))).toBe(true);
  });

  test("fan out up to livenessWorkers at once, beyond workers, and no further", async () => {
    pair = await startPair();
    const names = ["a", "b", "c", "d", "e"];
    for (const name of names) {
      await pair.eastClient.create(resources.service, remoteService({ name }));
      await pair.eastClient.create(resources.endpoints, remoteEndpoints({ name }));
    }
    const ctl = await startController(pair, {}, { settings: { workers: 1 }, livenessWorkers: 3 });
    for (const name of names.map((n) => `${n}-east`)) {
      await cached(ctl.informers.services, read(pair.west, "services", "ns1", name)!);
      await cached(ctl.informers.endpoints, read(pair.west, "endpoints", "ns1", name)!);
    }
    await ctl.drain();

    // Every write of a mirror's Endpoints in ns1 waits at a gate: how many are held at once is how many keys run at once.
    let held = 0;
    let most = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let three!: () => void;
    const threeHeld = new Promise<void>((resolve) => (three = resolve));
    const client = pair.westClient as unknown as Record<"create" | "update" | "patch", (...args: unknown[]) => Promise<unknown>>;
    for (const verb of ["create", "update", "patch"] as const) {
      const original = client[verb].bind(client);
      client[verb] = async (...args: unknown[]) => {
        const res = args[0] as { plural: string };
        const namespace = verb === "patch" ? args[1] : (args[1] as { metadata?: { namespace?: string } }).metadata?.namespace;
        if (res.plural !== "endpoints" || namespace !== "ns1") return original(...args);
        held++;
        most = Math.max(most, held);
        if (held >= 3) three();
        await gate;
        held--;
        return original(...args);
      };
    }
    ctl.setAlive(false);
    const drained = ctl.drain();
    try {
      await within(threeHeld, "three mirrors' Endpoints rewritten at once (livenessWorkers: 3, workers: 1)", 3000);
    } finally {
      open();
    }
    await drained;
    expect(most).toBe(3);
    for (const name of names) expect(notReady(readEndpoints(pair.west, "ns1", `${name}-east`))).toBe(true);
  });
});
