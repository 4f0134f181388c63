// Service mirror at scale: one Link (east → west) with `services` exported Services, run as
// `mc serve east` runs it (src/mirror/serve.ts: leader election, the supervisor, the controller,
// its real prober probing a loopback fake gateway). Per run, on fresh sandboxes:
//   1. controller start → every mirror (Service + ready Endpoints) stored in west, and its writes
//   2. an idle repair (controller.refresh(), what the refresh timer does) → drain
//   3. gateway liveness flips (setAlive(false) / setAlive(true)) → drain
//   4. one exported Service relabelled in east → the mirror carrying the label
//   5. memory after mirroring; 6. the Link object's size.
// Prints each run and the medians. `bun bench/mirror.ts [services=3000] [runs=3]`
import { availableParallelism, cpus, totalmem } from "node:os";
import { connect } from "../src/kube/index.ts";
import { setLogLevel } from "../src/log.ts";
import type { MirrorController } from "../src/mirror/controller.ts";
import { serve, type Serving } from "../src/mirror/serve.ts";
import type { LinkSupervisor } from "../src/mirror/supervisor.ts";
import * as L from "../src/model/labels.ts";
import * as Names from "../src/model/names.ts";
import { proberFactory } from "../src/prober/index.ts";
import { Store } from "../src/sandbox/storage/store.ts";
import type { KubeObject } from "../src/sandbox/types.ts";
import { CLUSTER, diff, notReadyAddresses, NS, readyAddresses, seedEast, startPair, until, WriteLedger, type Pair, type WriteCounts } from "./multicluster.ts";

const services = Number(process.argv[2] ?? 3000);
const runs = Number(process.argv[3] ?? 3);
if (!Number.isInteger(services) || services < 2 || !Number.isInteger(runs) || runs < 1) {
  console.error("usage: bun bench/mirror.ts [services=3000 (exported, ≥ 2)] [runs=3 (≥ 1)]");
  process.exit(2);
}
const NAMESPACES = 50;
/** East holds as many Services again that are not exported. */
const seeded = services * 2;
/** Every wait is bounded; generous, so a slow machine reports slowness rather than a timeout. */
const WAIT_MS = 60_000 + services * 30;
/** The prober runs as in production, but rewrites a steady status.gateway only once an hour. */
const STATUS_INTERVAL_MS = 3_600_000;
const PROBE_PERIOD = "1s";

setLogLevel("warn"); // one info line per mirror would be most of the output (and of the time)

type Counts = WriteCounts & { total: number };
interface RunResult {
  setupMs: number;
  mirrorMs: number;
  drainMs: number;
  start: Counts;
  refreshMs: number;
  refresh: Counts;
  downMs: number;
  down: Counts;
  upMs: number;
  up: Counts;
  labelMs: number;
  label: Counts;
  syncMs: number;
  rss: number;
  heap: number;
  rssDelta: number;
  heapDelta: number;
  westStoreHeap: number;
  linkBytes: number;
  statusBytes: number;
  statusEntries: number;
  problems: string[];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => `${x.toFixed(0)} ms`;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const kb = (bytes: number) => (Math.abs(bytes) >= 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes.toFixed(0)} B`);
const sign = (x: number) => (x >= 0 ? "+" : "-");
const mirrorWrites = (c: Counts) => c.mirrorService + c.mirrorEndpoints;
/** "6000 (3000 Service + 3000 Endpoints; also 1 gateway mirror, 1 Link status, 2 Lease)". */
const writes = (c: Counts) => {
  const also = [
    c.gatewayMirror && `${c.gatewayMirror} gateway mirror`,
    c.link && `${c.link} Link status`,
    c.lease && `${c.lease} Lease`,
    c.other && `${c.other} other`,
  ].filter(Boolean);
  return `${mirrorWrites(c)} (${c.mirrorService} Service + ${c.mirrorEndpoints} Endpoints${also.length ? `; also ${also.join(", ")}` : ""})`;
};

/**
 * Heap bytes west's store spends on the mirrors: the same objects (managedFields and all)
 * inserted into a bare Store, measured around the inserts, the source text held throughout.
 */
function storeCost(pair: Pair): number {
  const types = [pair.west.api.registry.findKind("v1", "Service")!, pair.west.api.registry.findKind("v1", "Endpoints")!];
  const ours = [{ key: L.CLUSTER_NAME, op: "=" as const, value: CLUSTER }];
  const json = types.map((t) => JSON.stringify(pair.west.store.scan(t, { labels: ours })));
  const store = new Store();
  Bun.gc(true);
  const before = process.memoryUsage().heapUsed;
  types.forEach((t, i) => {
    for (const obj of JSON.parse(json[i]!) as KubeObject[]) store.insert(t, obj);
  });
  Bun.gc(true);
  const cost = process.memoryUsage().heapUsed - before;
  if (store.count(types[0]!) === 0) throw new Error("no mirrors to measure");
  return cost;
}

/** The controller `serving` starts once it leads; resolves as soon as it exists (before it syncs). */
function controllerOf(serving: Serving, onCreated: (c: MirrorController) => void): Promise<MirrorController> {
  return new Promise<MirrorController>((resolve) => {
    const found = (c: MirrorController) => {
      onCreated(c);
      resolve(c);
    };
    const watch = (s: LinkSupervisor | undefined) => {
      if (s?.controller) return found(s.controller);
      s?.onController((c) => c && found(c));
    };
    if (serving.leading) watch(serving.supervisor);
    serving.onLeading((leading) => leading && watch(serving.supervisor));
  });
}

async function run(): Promise<RunResult> {
  const problems: string[] = [];
  const expect = (ok: boolean, what: string) => ok || problems.push(what);
  const setupStarted = performance.now();
  const pair: Pair = await startPair({ namespaces: NAMESPACES, probePeriod: PROBE_PERIOD });
  seedEast(pair.east, seeded, NAMESPACES);
  const westClient = await connect({ kubeconfig: pair.westKubeconfig });
  const ledger = new WriteLedger(pair.west);
  const setupMs = performance.now() - setupStarted;

  // What west holds, from its store's commits: mirrors, and mirrors whose Endpoints are ready.
  const mirrors = new Set<string>();
  const ready = new Set<string>();
  ledger.on((kind, e) => {
    const key = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
    if (kind === "mirrorService") e.type === "DELETED" ? mirrors.delete(key) : mirrors.add(key);
    if (kind === "mirrorEndpoints") e.type !== "DELETED" && readyAddresses(e.object) > 0 ? ready.add(key) : ready.delete(key);
  });
  const onLedger = (fire: () => void) => ledger.on(fire);

  // The newest resourceVersion each local informer of the controller has seen: after a phase,
  // wait until they have seen every write to west, then drain, so nothing spills into the next.
  const seen = { services: 0, endpoints: 0 };
  const seenFires = new Set<() => void>();
  const track = (c: MirrorController) => {
    for (const k of ["services", "endpoints"] as const) {
      c.informers[k].on((e) => {
        seen[k] = Math.max(seen[k], Number(e.object.metadata.resourceVersion));
        for (const f of seenFires) f();
      });
    }
  };
  const onSeen = (fire: () => void) => {
    seenFires.add(fire);
    return () => seenFires.delete(fire);
  };
  const settle = async (c: MirrorController) => {
    for (let round = 0; round < 5; round++) {
      const want = { ...ledger.lastRv };
      const caughtUp = () =>
        Math.max(seen.services, Number(c.informers.services.resourceVersion)) >= want.services &&
        Math.max(seen.endpoints, Number(c.informers.endpoints.resourceVersion)) >= want.endpoints;
      await until(caughtUp, [onSeen], "the controller's informers to see every write to west", WAIT_MS);
      await c.drain();
      if (ledger.lastRv.services === want.services && ledger.lastRv.endpoints === want.endpoints) return;
    }
    problems.push("west still changing after 5 settle rounds");
  };
  const westState = () => {
    let svc = 0;
    let readyEps = 0;
    let notReadyEps = 0;
    const svcType = pair.west.api.registry.findKind("v1", "Service")!;
    const epType = pair.west.api.registry.findKind("v1", "Endpoints")!;
    const ours = [{ key: L.CLUSTER_NAME, op: "=" as const, value: CLUSTER }];
    for (const s of pair.west.store.scan(svcType, { labels: ours })) if (s.metadata.labels?.[L.MIRRORED_SERVICE] === "true") svc++;
    for (const ep of pair.west.store.scan(epType, { labels: ours })) {
      if (ep.metadata.name === Names.probeGatewayName(CLUSTER)) continue;
      if (readyAddresses(ep) > 0 && notReadyAddresses(ep) === 0) readyEps++;
      if (notReadyAddresses(ep) > 0 && readyAddresses(ep) === 0) notReadyEps++;
    }
    return { svc, readyEps, notReadyEps };
  };

  // 1. Start → mirrored.
  Bun.gc(true);
  const mem0 = process.memoryUsage();
  const w0 = ledger.snapshot();
  const allMirrored = until(() => mirrors.size === services && ready.size === services, [onLedger], `${services} mirrors with ready Endpoints in west`, WAIT_MS);
  const t0 = performance.now();
  const serving = await serve({
    local: westClient,
    namespace: NS,
    linkName: CLUSTER,
    adminAddr: "127.0.0.1:0",
    identity: "mc-bench",
    controller: { probeDirect: true, proberFactory: proberFactory({ statusIntervalMs: STATUS_INTERVAL_MS }) },
  });
  try {
    const ctl = await controllerOf(serving, track);
    let syncMs = Number.NaN;
    void ctl.synced.then(() => (syncMs = performance.now() - t0));
    await allMirrored;
    const mirrorMs = performance.now() - t0;
    await ctl.drain();
    const drainMs = performance.now() - t0;
    await settle(ctl);
    const start = diff(ledger.snapshot(), w0);
    let s = westState();
    expect(s.svc === services && s.readyEps === services, `after start: ${s.svc} mirrors, ${s.readyEps} ready Endpoints (want ${services})`);

    // 5. Memory, 6. the Link.
    Bun.gc(true);
    const mem1 = process.memoryUsage();
    const link = pair.west.store.get(pair.west.api.registry.findKind(`${Names.LINK_GROUP}/v1alpha3`, "Link")!, NS, CLUSTER)!;
    const status = (link as { status?: { mirrorServices?: unknown[] } }).status;

    // 2. Idle repair.
    let w = ledger.snapshot();
    let t = performance.now();
    await ctl.refresh();
    await ctl.drain();
    const refreshMs = performance.now() - t;
    await settle(ctl);
    const refresh = diff(ledger.snapshot(), w);

    // 3. Gateway down, then up.
    w = ledger.snapshot();
    t = performance.now();
    ctl.setAlive(false);
    await ctl.drain();
    const downMs = performance.now() - t;
    await settle(ctl);
    const down = diff(ledger.snapshot(), w);
    s = westState();
    expect(s.notReadyEps === services, `gateway down: ${s.notReadyEps} of ${services} mirror Endpoints not ready`);
    w = ledger.snapshot();
    t = performance.now();
    ctl.setAlive(true);
    await ctl.drain();
    const upMs = performance.now() - t;
    await settle(ctl);
    const up = diff(ledger.snapshot(), w);
    s = westState();
    expect(s.readyEps === services, `gateway up: ${s.readyEps} of ${services} mirror Endpoints ready`);

    // 4. One exported Service relabelled in east.
    const index = 2 * Math.floor(services / 2); // an exported one (even), in the middle
    const namespace = `ns-${index % NAMESPACES}`;
    const name = `svc-${index}`;
    const mirror = Names.mirrorName(name, CLUSTER);
    const value = `r${Date.now()}`;
    const shown = until(
      () => pair.west.store.get(pair.west.api.registry.findKind("v1", "Service")!, namespace, mirror)?.metadata.labels?.tier === value,
      [onLedger],
      `${namespace}/${mirror} to carry the new label`,
      WAIT_MS,
    );
    const svcType = pair.east.api.registry.findKind("v1", "Service")!;
    w = ledger.snapshot();
    t = performance.now();
    const current = pair.east.api.get(svcType, namespace, name);
    pair.east.api.update(svcType, namespace, name, { ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, tier: value } } }, { fieldManager: "mc-bench" });
    await shown;
    const labelMs = performance.now() - t;
    await ctl.drain();
    await settle(ctl);
    const label = diff(ledger.snapshot(), w);

    // West's share of the heap: the mirrors as its store holds them, stored again in a bare store.
    const westStore = storeCost(pair);
    return {
      setupMs,
      mirrorMs,
      drainMs,
      start,
      refreshMs,
      refresh,
      downMs,
      down,
      upMs,
      up,
      labelMs,
      label,
      syncMs,
      rss: mem1.rss,
      heap: mem1.heapUsed,
      rssDelta: mem1.rss - mem0.rss,
      heapDelta: mem1.heapUsed - mem0.heapUsed,
      westStoreHeap: westStore,
      linkBytes: Buffer.byteLength(JSON.stringify(link)),
      statusBytes: Buffer.byteLength(JSON.stringify(status ?? {})),
      statusEntries: status?.mirrorServices?.length ?? 0,
      problems,
    };
  } finally {
    await serving.stop();
    ledger.close();
    await pair.stop();
  }
}

const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
console.log(`mirror benchmark: ${services} exported Services (+${seeded - services} not exported) with Endpoints in ${NAMESPACES} namespaces of east, one Link to west, ${runs} run${runs === 1 ? "" : "s"}`);
console.log(`  machine: ${availableParallelism()} CPUs (nproc), ${cpu}, ${mb(totalmem())} RAM, ${process.platform}/${process.arch}, bun ${Bun.version}`);
console.log(`  controller: mc serve in-process (leader election on, 4 workers, probe every ${PROBE_PERIOD} to a loopback fake gateway), log level warn`);
const results: RunResult[] = [];
for (let r = 1; r <= runs; r++) {
  const x = await run();
  results.push(x);
  console.log(`run ${r} (setup ${ms(x.setupMs)}, not timed):`);
  console.log(`  1 start → ${services} mirrored:  ${ms(x.mirrorMs)} (caches synced at ${ms(x.syncMs)}, queue drained at ${ms(x.drainMs)}); writes ${writes(x.start)} = ${(mirrorWrites(x.start) / services).toFixed(2)}/mirror`);
  console.log(`  2 idle refresh + drain:     ${ms(x.refreshMs)}; writes ${writes(x.refresh)}`);
  console.log(`  3 setAlive(false) + drain:  ${ms(x.downMs)}; writes ${writes(x.down)}`);
  console.log(`    setAlive(true) + drain:   ${ms(x.upMs)}; writes ${writes(x.up)}`);
  console.log(`  4 relabel in east → mirror: ${ms(x.labelMs)}; writes ${writes(x.label)}`);
  console.log(
    `  5 memory after mirroring:   rss ${mb(x.rss)} (${sign(x.rssDelta)}${mb(Math.abs(x.rssDelta))}), heap ${mb(x.heap)} (+${mb(x.heapDelta)} = ${kb(x.heapDelta / services)}/mirror); west's stored mirrors ${kb(x.westStoreHeap / services)}/mirror, the rest (controller, connections) ${kb((x.heapDelta - x.westStoreHeap) / services)}/mirror`,
  );
  console.log(`  6 Link object:              ${kb(x.linkBytes)} (status ${kb(x.statusBytes)}, ${x.statusEntries} mirrorServices entries)`);
  for (const p of x.problems) console.log(`  PROBLEM: ${p}`);
}
const med = (f: (x: RunResult) => number) => median(results.map(f));
const medWrites = (f: (x: RunResult) => Counts) => med((x) => mirrorWrites(f(x)));
console.log(`median of ${runs} (${services} mirrors):`);
console.log(`  1 start → mirrored:         ${ms(med((x) => x.mirrorMs))} (synced at ${ms(med((x) => x.syncMs))}; ${((med((x) => x.mirrorMs) / services) * 1000).toFixed(0)} µs/mirror, ${(services / (med((x) => x.mirrorMs) / 1000)).toFixed(0)} mirrors/s); ${(medWrites((x) => x.start) / services).toFixed(2)} writes/mirror`);
console.log(`  2 idle refresh + drain:     ${ms(med((x) => x.refreshMs))}; ${medWrites((x) => x.refresh)} mirror writes; ${(med((x) => x.mirrorMs) / med((x) => x.refreshMs)).toFixed(1)}x cheaper than the start`);
console.log(`  3 setAlive(false) + drain:  ${ms(med((x) => x.downMs))}; ${medWrites((x) => x.down)} mirror writes (${((med((x) => x.downMs) / services) * 1000).toFixed(0)} µs/write)`);
console.log(`    setAlive(true) + drain:   ${ms(med((x) => x.upMs))}; ${medWrites((x) => x.up)} mirror writes`);
console.log(`  4 relabel in east → mirror: ${ms(med((x) => x.labelMs))}; ${medWrites((x) => x.label)} mirror writes`);
console.log(
  `  5 memory after mirroring:   rss ${mb(med((x) => x.rss))}, heap ${mb(med((x) => x.heap))}; heap per mirror: ${kb(med((x) => x.heapDelta) / services)} whole process, of which ${kb(med((x) => x.westStoreHeap) / services)} west's stored mirrors and ${kb(med((x) => x.heapDelta - x.westStoreHeap) / services)} the rest (controller caches, connections)`,
);
console.log(`                              rss per mirror, run 1 only (later runs reuse pages the previous run freed): ${kb(results[0]!.rssDelta / services)}`);
console.log(`  6 Link object:              ${kb(med((x) => x.linkBytes))} (status ${kb(med((x) => x.statusBytes))})`);
const problems = results.flatMap((x) => x.problems);
if (problems.length > 0) {
  console.log(`${problems.length} problem${problems.length === 1 ? "" : "s"} (see above)`);
  process.exitCode = 1;
}
