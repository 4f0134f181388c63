// A gateway liveness flip rewrites only the mirror Endpoints of keys nothing else changed (reconcile/liveness.ts), and stays right when it
// races a real change, the initial sync, a flip back, or a mirror deleted meanwhile: each of those keys takes its full reconcile.
import { afterEach, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import type { MirrorController } from "../../src/mirror/controller.ts";
import { createMetrics, type Metrics } from "../../src/metrics.ts";
import { linkResource, parseLink } from "../../src/model/link.ts";
import { within } from "../kube/helpers.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { cached, manualController, read, readEndpoints, startController, writes } from "./harness.ts";
import { linkObject, remoteEndpoints, remoteService } from "./fixtures.ts";

let pair: Pair | undefined;
afterEach(async () => {
  await pair?.stop();
  pair = undefined;
});

type Ep = ReturnType<typeof readEndpoints>;
const notReady = (ep: Ep) =>
  (ep?.subsets ?? []).length > 0 && (ep?.subsets ?? []).every((s) => !s.addresses?.length && (s.notReadyAddresses ?? []).length > 0);
const ready = (ep: Ep) =>
  (ep?.subsets ?? []).length > 0 && (ep?.subsets ?? []).every((s) => (s.addresses ?? []).length > 0 && !s.notReadyAddresses?.length);

async function exportServices(p: Pair, names: string[]): Promise<void> {
  for (const name of names) {
    await p.eastClient.create(resources.service, remoteService({ name }));
    await p.eastClient.create(resources.endpoints, remoteEndpoints({ name }));
  }
}

/** Waits until the controller's caches hold every mirror as written (their echoes came), then drains. */
async function settle(p: Pair, ctl: MirrorController, names: string[]): Promise<void> {
  for (const name of names.map((n) => `${n}-east`)) {
    await cached(ctl.informers.services, read(p.west, "services", "ns1", name)!);
    await cached(ctl.informers.endpoints, read(p.west, "endpoints", "ns1", name)!);
  }
  await ctl.drain();
}

async function liveOnly(m: Metrics): Promise<number> {
  const line = (await m.registry.metrics()).split("\n").find((l) => l.startsWith("mc_liveness_only_reconciles_total{"));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

type Verb = "create" | "update";
/** Holds every write of a mirror Endpoints in ns1 at a gate; `held` resolves once `n` are held. */
function gateEndpoints(p: Pair, n: number) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let count = 0;
  let reached!: () => void;
  const held = new Promise<void>((resolve) => (reached = resolve));
  const client = p.westClient as unknown as Record<Verb, (...args: unknown[]) => Promise<unknown>>;
  const originals = { create: client.create.bind(client), update: client.update.bind(client) };
  for (const verb of ["create", "update"] as const) {
    client[verb] = async (...args: unknown[]) => {
      const res = args[0] as { plural: string };
      const obj = args[1] as KubeObject;
      if (res.plural !== "endpoints" || obj.metadata.namespace !== "ns1") return originals[verb](...args);
      if (++count >= n) reached();
      await gate;
      return originals[verb](...args);
    };
  }
  return {
    /** Resolves once `n` are held (no timeout: race it with what should get there). */
    reached: held,
    held: () => within(held, `${n} mirror Endpoints writes held`, 3000),
    open,
    restore: () => Object.assign(client, originals),
  };
}

describe("the liveness-only path", () => {
  test("a flip rewrites only the Endpoints of mirrors nothing else changed: one write each, no reconcile of the target", async () => {
    pair = await startPair();
    const names = ["a", "b", "c"];
    await exportServices(pair, names);
    const metrics = createMetrics();
    const ctl = await startController(pair, {}, { metrics });
    await settle(pair, ctl, names);
    const services = names.map((n) => read(pair!.west, "services", "ns1", `${n}-east`)!.metadata.resourceVersion);
    const before = writes(pair.west);

    ctl.setAlive(false);
    await ctl.drain();
    expect(names.map((n) => notReady(readEndpoints(pair!.west, "ns1", `${n}-east`)))).toEqual([true, true, true]);
    expect(await liveOnly(metrics)).toBe(3);
    expect(writes(pair.west) - before).toBe(3);
    expect(names.map((n) => read(pair!.west, "services", "ns1", `${n}-east`)!.metadata.resourceVersion)).toEqual(services);

    // And back, on the same path: the first flip's writes were echoes, not changes.
    for (const n of names) await cached(ctl.informers.endpoints, read(pair.west, "endpoints", "ns1", `${n}-east`)!);
    ctl.setAlive(true);
    await ctl.drain();
    expect(names.map((n) => ready(readEndpoints(pair!.west, "ns1", `${n}-east`)))).toEqual([true, true, true]);
    expect(await liveOnly(metrics)).toBe(6);
    expect(writes(pair.west) - before).toBe(6);

    // What it wrote is what a full reconcile wants: a resync (every key touched, reconciled in full) writes nothing.
    for (const n of names) await cached(ctl.informers.endpoints, read(pair.west, "endpoints", "ns1", `${n}-east`)!);
    await ctl.refresh();
    await ctl.drain();
    expect(writes(pair.west) - before).toBe(6);
    expect(await liveOnly(metrics)).toBe(6);
  });

  test("a headless mirror: its endpoint mirrors' Endpoints move, its own (always ready) stay; the same as a full reconcile writes", async () => {
    pair = await startPair();
    await pair.eastClient.create(resources.service, remoteService({ name: "h", headless: true }));
    await pair.eastClient.create(
      resources.endpoints,
      remoteEndpoints({ name: "h", ready: [{ ip: "10.1.0.1", hostname: "pod-0" }], headless: true }),
    );
    const metrics = createMetrics();
    const ctl = await startController(pair, {}, { metrics, settings: { enableHeadlessServices: true } });
    for (const name of ["h-east", "pod-0-east"]) {
      await cached(ctl.informers.services, read(pair.west, "services", "ns1", name)!);
      await cached(ctl.informers.endpoints, read(pair.west, "endpoints", "ns1", name)!);
    }
    await ctl.drain();
    const headless = readEndpoints(pair.west, "ns1", "h-east");
    const podReady = readEndpoints(pair.west, "ns1", "pod-0-east")!.subsets;

    ctl.setAlive(false);
    await ctl.drain();
    expect(await liveOnly(metrics)).toBe(1);
    expect(notReady(readEndpoints(pair.west, "ns1", "pod-0-east"))).toBe(true);
    expect(readEndpoints(pair.west, "ns1", "h-east")?.metadata.resourceVersion).toBe(headless?.metadata.resourceVersion);
    const podNotReady = readEndpoints(pair.west, "ns1", "pod-0-east")!.subsets;

    // What the full reconcile would have written: a resync (every key touched) of the mirror as it is writes nothing.
    await cached(ctl.informers.endpoints, read(pair.west, "endpoints", "ns1", "pod-0-east")!);
    const before = writes(pair.west);
    await ctl.refresh();
    await ctl.drain();
    expect(writes(pair.west) - before).toBe(0);
    expect(podNotReady).toEqual(podReady!.map(({ addresses, ...rest }) => ({ notReadyAddresses: addresses, ...rest })));
  });

  test("a change of the target queued before the flip takes the full reconcile: both the change and the liveness land", async () => {
    pair = await startPair();
    await exportServices(pair, ["a", "b"]);
    const metrics = createMetrics();
    const ctl = await startController(pair, {}, { metrics });
    await settle(pair, ctl, ["a", "b"]);
    const svc = await pair.eastClient.get<KubeObject>(resources.service, "ns1", "a");
    const relabelled = await pair.eastClient.update(resources.service, {
      ...svc,
      metadata: { ...svc.metadata, labels: { ...svc.metadata.labels, tier: "gold" } },
    });
    await cached(ctl.informers.remoteServices, relabelled);

    ctl.setAlive(false);
    await ctl.drain();
    expect(read(pair.west, "services", "ns1", "a-east")!.metadata.labels?.tier).toBe("gold");
    expect(read(pair.west, "endpoints", "ns1", "a-east")!.metadata.labels?.tier).toBe("gold");
    expect(notReady(readEndpoints(pair.west, "ns1", "a-east"))).toBe(true);
    expect(notReady(readEndpoints(pair.west, "ns1", "b-east"))).toBe(true);
    expect(await liveOnly(metrics)).toBe(1); // b alone
  });

  test("a change of the target while the flip's write is in flight: the key is reconciled in full after it", async () => {
    pair = await startPair();
    await exportServices(pair, ["a"]);
    const metrics = createMetrics();
    const ctl = await startController(pair, {}, { metrics });
    await settle(pair, ctl, ["a"]);
    const gate = gateEndpoints(pair, 1);
    ctl.setAlive(false);
    const drained = ctl.drain();
    try {
      await gate.held();
      // The target loses its ready endpoints while the flip's write waits: its mirror must end with none.
      const ep = await pair.eastClient.get<KubeObject>(resources.endpoints, "ns1", "a");
      const emptied = await pair.eastClient.update(resources.endpoints, { ...ep, subsets: [] });
      await cached(ctl.informers.remoteEndpoints, emptied);
    } finally {
      gate.open();
    }
    await drained;
    gate.restore();
    expect(readEndpoints(pair.west, "ns1", "a-east")?.subsets ?? []).toEqual([]);
    expect(await liveOnly(metrics)).toBe(1);
  });

  test("a change while a full reconcile runs: that reconcile records nothing, and the flip after it reconciles the key in full", async () => {
    pair = await startPair();
    await exportServices(pair, ["a"]);
    const metrics = createMetrics();
    const ctl = await startController(pair, {}, { metrics });
    await settle(pair, ctl, ["a"]);
    const svc = await pair.eastClient.get<KubeObject>(resources.service, "ns1", "a");
    const relabelled = await pair.eastClient.update(resources.service, {
      ...svc,
      metadata: { ...svc.metadata, labels: { ...svc.metadata.labels, tier: "gold" } },
    });
    await cached(ctl.informers.remoteServices, relabelled);
    const gate = gateEndpoints(pair, 1);
    const running = ctl.processNext(); // the relabel: Service and Endpoints updated, the Endpoints' write held
    try {
      await gate.held();
      const ep = await pair.eastClient.get<KubeObject>(resources.endpoints, "ns1", "a");
      const emptied = await pair.eastClient.update(resources.endpoints, { ...ep, subsets: [] });
      await cached(ctl.informers.remoteEndpoints, emptied);
    } finally {
      gate.open();
    }
    await running;
    gate.restore();
    ctl.setAlive(false);
    await ctl.drain();
    expect(readEndpoints(pair.west, "ns1", "a-east")?.subsets ?? []).toEqual([]);
    expect(await liveOnly(metrics)).toBe(0);
  });

  test("a flip during the initial sync: a mirror being made with the old liveness is rewritten after; every mirror ends not ready", async () => {
    pair = await startPair();
    const names = ["a", "b", "c", "d"];
    await exportServices(pair, names);
    const obj = await pair.westClient.create(linkResource, linkObject({}));
    const link = parseLink(obj);
    const ctl = manualController(pair, link, { settings: { workers: 1 } });
    ctl.start();
    await within(ctl.synced, "the controller to sync");
    // The first key's Endpoints write is held, made ready (the gateway was alive when it was planned); the flip comes meanwhile.
    const gate = gateEndpoints(pair, 1);
    let first: Promise<boolean>;
    try {
      // Keys that write no mirror Endpoints in ns1 (the sweep of renamed mirrors, the gateway mirror) run first.
      for (;;) {
        first = ctl.processNext();
        if (await Promise.race([first.then(() => false), gate.reached.then(() => true)])) break;
      }
      ctl.setAlive(false);
    } finally {
      gate.open();
    }
    await first;
    gate.restore();
    await ctl.drain();
    expect(names.map((n) => notReady(readEndpoints(pair!.west, "ns1", `${n}-east`)))).toEqual([true, true, true, true]);
  });

  test("a flip back before the first is written: every mirror ends ready, those never written not ready are not written", async () => {
    pair = await startPair();
    const names = ["a", "b", "c"];
    await exportServices(pair, names);
    const metrics = createMetrics();
    const ctl = await startController(pair, {}, { metrics, settings: { workers: 1 }, livenessWorkers: 1 });
    await settle(pair, ctl, names);
    const before = writes(pair.west);
    const gate = gateEndpoints(pair, 1);
    ctl.setAlive(false);
    const drained = ctl.drain();
    try {
      await gate.held(); // a's not-ready write is in flight; b and c wait in the queue
      ctl.setAlive(true);
    } finally {
      gate.open();
    }
    await drained;
    gate.restore();
    expect(names.map((n) => ready(readEndpoints(pair!.west, "ns1", `${n}-east`)))).toEqual([true, true, true]);
    // a: down, then up again; b and c: already right for the liveness they run with.
    expect(writes(pair.west) - before).toBe(2);
  });

  test("a mirror's Endpoints deleted behind the controller's back: the flip's write fails and the key is reconciled in full", async () => {
    pair = await startPair();
    await exportServices(pair, ["a"]);
    const metrics = createMetrics();
    const ctl = await startController(pair, {}, { metrics });
    await settle(pair, ctl, ["a"]);
    // The delete reaches the server just before the flip's update, so the controller still holds the Endpoints.
    const client = pair.westClient as unknown as Record<"update", (...args: unknown[]) => Promise<unknown>>;
    const update = client.update.bind(client);
    let deleted = false;
    client.update = async (...args: unknown[]) => {
      const obj = args[1] as KubeObject;
      if (!deleted && (args[0] as { plural: string }).plural === "endpoints" && obj.metadata.name === "a-east") {
        deleted = true;
        await pair!.westClient.delete(resources.endpoints, "ns1", "a-east");
      }
      return update(...args);
    };
    ctl.setAlive(false);
    await ctl.drain();
    client.update = update;
    expect(deleted).toBe(true);
    expect(notReady(readEndpoints(pair.west, "ns1", "a-east"))).toBe(true);
  });

  test("a mirror deleted meanwhile (its target unexported): the flip does not bring it back", async () => {
    pair = await startPair();
    await exportServices(pair, ["a", "b"]);
    const metrics = createMetrics();
    const ctl = await startController(pair, {}, { metrics });
    await settle(pair, ctl, ["a", "b"]);
    const svc = await pair.eastClient.get<KubeObject>(resources.service, "ns1", "a");
    await pair.eastClient.delete(resources.service, "ns1", "a");
    await cached(ctl.informers.remoteServices, svc, true);
    ctl.setAlive(false);
    await ctl.drain();
    expect(read(pair.west, "services", "ns1", "a-east")).toBeUndefined();
    expect(readEndpoints(pair.west, "ns1", "a-east")).toBeUndefined();
    expect(notReady(readEndpoints(pair.west, "ns1", "b-east"))).toBe(true);
  });
});
