// The fault suite (docs/decisions.md#d95).
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { FaultSettings } from "../../src/sandbox/index.ts";
import { CLUSTER, MIRRORED } from "./expected.ts";
import { Rig, type Counts, type Replica } from "./rig.ts";

// A link with a few hundred exported Services under continuous churn, the controller as `mc serve`
// processes with the RBAC `mc link` renders (every API server enforcing it); each fault in turn,
// mirrors (then mirror Endpoints) deleted as the controller updates them, east restarted on its data
// file and restored from an older snapshot (an etcd restore: its history goes backwards), the Link's
// target renamed and back, the Link deleted and made again (then renamed), then all together, then the
// controller killed mid-sync, two replicas with the leader killed, the gateway flapping, and two
// replicas on one host with the same $HOSTNAME. After each, once the fault stops, the mirrors must
// equal the expected set exactly (0 missing, 0 extra, every port and label right, nothing the
// controller made under an earlier target name), nothing without mc's ownership label may have been
// written, the foreign Service on a mirror's name is untouched, and no replica exited unless killed;
// under a long forget-history the LISTs must fall off. One summary line per fault: `converged in T,
// writes W, errors E` (W: requests that changed west; E: faults the API servers answered with). Knobs:
// MC_FAULT_SEED (the churn and the fault rates), MC_FAULT_SERVICES (default 200), MC_FAULT_PHASE_MS
// (how long each fault lasts, default 2000), MC_FAULT_FLAP_MS (how often the gateway flaps, default
// 2000). The durations below are the faults' own schedule (how long a fault is on), never a wait for a
// result.

const SEED = Number(process.env.MC_FAULT_SEED ?? "12");
const SERVICES = Number(process.env.MC_FAULT_SERVICES ?? "200");
const PHASE_MS = Number(process.env.MC_FAULT_PHASE_MS ?? "2000");
/** The gateway flaps this often (the 2 s; at least the probe period's floor, 1s, plus jitter). */
const FLAP_MS = Number(process.env.MC_FAULT_FLAP_MS ?? "2000");

let rig: Rig;
let foreignRv: string | undefined;
const summary: string[] = [];
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)}s`;

function report(name: string, tookMs: number, before: Counts, extra = ""): void {
  const after = rig.counts();
  const line = `fault ${name}: converged in ${seconds(tookMs)}, writes ${after.writes - before.writes}, errors ${after.injected - before.injected}${extra}`;
  summary.push(line);
  console.log(line);
}

/** Replicas started and not killed on purpose are still running. */
function expectHealthy(killed: Replica[] = []): void {
  const died = rig.replicas.filter((r) => !killed.includes(r) && r.exited).map((r) => r.identity);
  expect(died).toEqual([]);
  expect(rig.violations).toEqual([]);
  expect(rig.foreignVersion()).toBe(foreignRv);
}
const killedOnPurpose: Replica[] = [];

beforeAll(async () => {
  console.log(
    `fault suite: seed ${SEED}, ${SERVICES} services, ${PHASE_MS} ms per fault (MC_FAULT_SEED, MC_FAULT_SERVICES, MC_FAULT_PHASE_MS)`,
  );
  rig = await Rig.start({ services: SERVICES, seed: SEED });
  foreignRv = rig.foreignVersion();
  const before = rig.counts();
  const started = performance.now();
  await rig.startReplica("replica-a", { lead: true });
  await rig.converged();
  report("none (initial sync)", performance.now() - started, before);
}, 60_000);

afterAll(async () => {
  console.log(["fault suite summary:", ...summary].join("\n  "));
  await rig?.stop();
});

/** One fault while the target churns, for PHASE_MS; then it stops and the mirrors must converge. */
async function underFault(name: string, settings: FaultSettings | (() => Promise<void>)): Promise<void> {
  const before = rig.counts();
  rig.churn.start();
  if (typeof settings === "function") await settings();
  else {
    rig.faults({ seed: SEED, ...settings });
    await Bun.sleep(PHASE_MS);
  }
  rig.clearFaults();
  rig.churn.stop();
  const took = await rig.converged();
  report(name, took, before);
  expectHealthy(killedOnPurpose);
}

const FAULTS: [string, FaultSettings][] = [
  ["--drop-watches-every 300ms", { dropWatchesEveryMs: 300 }],
  ["--forget-history", { forgetHistory: true }],
  ["--fail-rate 0.2 (500, 503, 429 + Retry-After)", { failRate: 0.2 }],
  ["--latency 50ms", { delayMs: 50 }],
  ["--conflict-rate 0.3", { conflictRate: 0.3 }],
];

for (const [name, settings] of FAULTS)
  test(`under ${name} with churn, the mirrors converge to exactly the exported set`, () => underFault(name, settings), 60_000);

// The back-off is seconds long: its halves are 2 phases of at least 2 s each, also where the phases are shorter (the enforced-RBAC
// rerun's 500 ms), since 1 s halves on a loaded machine hold too few relists to compare.
const BACKOFF_PHASE_MS = Math.max(PHASE_MS, 2000);

test(
  "under --forget-history for 4 phases (every watch resume expired, the watches dropped once at its start), the relists back off: the LISTs of its second half are at most half of its first's (they held at ~5/s on east, ~8/s on west)",
  () =>
    underFault("--forget-history, long (LISTs counted)", async () => {
      const lists = () => rig.west.control.served.lists + rig.east.control.served.lists;
      rig.faults({ seed: SEED, forgetHistory: true });
      rig.west.control.dropWatches();
      rig.east.control.dropWatches();
      const start = lists();
      await Bun.sleep(2 * BACKOFF_PHASE_MS);
      const mid = lists();
      await Bun.sleep(2 * BACKOFF_PHASE_MS);
      const [first, second] = [mid - start, lists() - mid];
      const perSecond = (n: number) => (n / ((2 * BACKOFF_PHASE_MS) / 1000)).toFixed(1);
      summary.push(
        `  LISTs under --forget-history: ${first} in the first half (${perSecond(first)}/s), ${second} in the second (${perSecond(second)}/s)`,
      );
      console.log(summary.at(-1));
      expect(first).toBeGreaterThan(0);
      expect(second).toBeLessThanOrEqual(first / 2);
    }),
  90_000,
);

test("mirror Services, then (separately) mirror Endpoints, deleted as the controller updates them, with churn: each is re-created", async () => {
  for (const plural of ["services", "endpoints"] as const) {
    const before = rig.counts();
    const started = performance.now();
    let deleted = 0;
    let onFirst = () => {};
    const firstDeleted = new Promise<void>((resolve) => (onFirst = resolve));
    // Each of the controller's updates of a mirror's object is followed at once by its deletion (the next few, up to 20).
    const off = rig.west.store.onCommit((e) => {
      if (e.type !== "MODIFIED" || e.key !== `/${plural}` || deleted >= 20) return;
      const { labels, namespace, name, uid } = e.object.metadata;
      if (labels?.[MIRRORED] !== "true" || labels[CLUSTER] !== rig.cluster || namespace === "linkerd-multicluster") return;
      deleted++;
      onFirst();
      const type = rig.west.api.registry.find("", "v1", plural)!;
      queueMicrotask(() => {
        try {
          rig.west.api.delete(type, namespace, name!, { preconditions: { uid: uid! } });
        } catch {
          // changed or gone meanwhile
        }
      });
    });
    rig.churn.start();
    // A phase of churn, longer on a loaded machine where the controller has not updated one yet (at most 10 phases).
    await Promise.all([Bun.sleep(PHASE_MS), Promise.race([firstDeleted, Bun.sleep(10 * PHASE_MS)])]);
    rig.churn.stop();
    off();
    expect(deleted).toBeGreaterThan(0);
    await rig.converged();
    report(`mirror ${plural} deleted as they are updated`, performance.now() - started, before, ` (${deleted} deleted)`);
    expectHealthy(killedOnPurpose);
  }
}, 120_000);

test(
  "east's API server killed and restarted on its data file (same port) with churn: the mirrors converge",
  () =>
    underFault("API server restart (kill, same --data and --port)", async () => {
      await Bun.sleep(PHASE_MS / 2);
      await rig.restartEast();
      rig.churn.start();
      await Bun.sleep(PHASE_MS / 2);
    }),
  60_000,
);

test("east restored from an older snapshot (an etcd restore: history goes backwards) with churn: stale mirrors go, deleted ones come back", async () => {
  const before = rig.counts();
  const snapshot = rig.snapshotEast("east-snapshot");
  const exportedThen = rig.exportedKeys();
  rig.churn.burst(Math.max(50, SERVICES / 2)); // what changes after the snapshot is lost by the restore
  rig.churn.start();
  await Bun.sleep(PHASE_MS / 2);
  rig.churn.stop();
  await rig.converged();
  const exportedBefore = rig.exportedKeys();
  const gone = [...exportedBefore].filter((k) => !exportedThen.has(k)).length;
  const back = [...exportedThen].filter((k) => !exportedBefore.has(k)).length;
  expect(gone + back).toBeGreaterThan(0);
  const restoredAt = performance.now();
  await rig.restoreEast(snapshot);
  // Only what the snapshot holds is exported now; the controller resumed watching from a resourceVersion east never reached.
  expect(rig.exportedKeys()).toEqual(exportedThen);
  await rig.converged();
  report(
    "east restored from a snapshot",
    performance.now() - restoredAt,
    before,
    ` (${gone} mirrors of Services the snapshot lacks removed, ${back} deleted since restored)`,
  );
  expectHealthy(killedOnPurpose);
}, 60_000);

test("the Link's target renamed east → north → east with churn: each time exactly the new name's mirrors, nothing of the old name left", async () => {
  const before = rig.counts();
  const started = performance.now();
  for (const cluster of ["north", "east"]) {
    rig.churn.start();
    await rig.renameTarget(cluster);
    await Bun.sleep(PHASE_MS / 2);
    rig.churn.stop();
    await rig.converged();
    expect(rig.leftovers()).toEqual([]);
    expect(rig.mirrorCount()).toBeGreaterThan(0);
  }
  expect(rig.west.store.get({ group: "", plural: "endpoints" }, "linkerd-multicluster", "probe-gateway-north")).toBeUndefined();
  report("target renamed east → north → east", performance.now() - started, before);
  expectHealthy(killedOnPurpose);
}, 60_000);

test("the Link deleted and made again (a new uid) with churn: its mirrors are adopted, and a rename east → north → east then leaves nothing behind", async () => {
  const before = rig.counts();
  const started = performance.now();
  rig.churn.start();
  await rig.recreateLink();
  await Bun.sleep(PHASE_MS / 2);
  rig.churn.stop();
  await rig.converged(); // every mirror carries the new Link's uid
  for (const cluster of ["north", "east"]) {
    rig.churn.start();
    await rig.renameTarget(cluster);
    await Bun.sleep(PHASE_MS / 2);
    rig.churn.stop();
    await rig.converged();
    expect(rig.leftovers()).toEqual([]);
  }
  report("Link deleted and made again, then renamed east → north → east", performance.now() - started, before);
  expectHealthy(killedOnPurpose);
}, 120_000);

test(
  "all faults at once with churn: the mirrors converge",
  () => underFault("all together", { dropWatchesEveryMs: 300, forgetHistory: true, failRate: 0.1, delayMs: 20, conflictRate: 0.2 }),
  60_000,
);

test("the controller killed (kill -9) in the middle of its sync and started again: the mirrors converge", async () => {
  const before = rig.counts();
  const leader = rig.replicas.find((r) => !r.exited)!;
  await leader.kill();
  killedOnPurpose.push(leader);
  rig.churn.burst(Math.max(50, SERVICES / 2)); // a target changed a lot while no controller ran
  // Kill the next one once it has written 20 mirrors' worth of changes: mid-sync.
  let writes = 0;
  let midSync!: () => void;
  const reached = new Promise<void>((r) => (midSync = r));
  const off = rig.west.store.onCommit((e) => {
    if ((e.key === "/services" || e.key === "/endpoints") && e.object.metadata.labels?.[MIRRORED] === "true" && ++writes === 20) midSync();
  });
  const doomed = await rig.startReplica("replica-b");
  await reached;
  off();
  await doomed.kill();
  killedOnPurpose.push(doomed);
  const started = performance.now();
  await rig.startReplica("replica-c", { lead: true });
  await rig.converged();
  report("controller kill -9 mid-sync, restarted", performance.now() - started, before, ` (killed after ${writes} mirror writes)`);
  expectHealthy(killedOnPurpose);
}, 60_000);

test("two replicas with leader election, the leader killed (kill -9) with churn: the standby takes over and the mirrors converge", async () => {
  const before = rig.counts();
  const standby = await rig.startReplica("replica-d");
  const leader = rig.replicas.find((r) => r.identity === rig.leader() && !r.exited)!;
  expect(leader.identity).toBe("replica-c");
  rig.churn.start();
  await Bun.sleep(PHASE_MS / 2);
  const killedAt = performance.now();
  await leader.kill();
  killedOnPurpose.push(leader);
  await Bun.sleep(PHASE_MS / 2);
  rig.churn.stop();
  await rig.converged();
  expect(rig.leader()).toBe(standby.identity);
  report("leader killed, standby took over", performance.now() - killedAt, before);
  expectHealthy(killedOnPurpose);
}, 60_000);

test(`the gateway flapping every ${FLAP_MS / 1000} s: mirror endpoints follow each transition with one write per mirror, no storm`, async () => {
  const before = rig.counts();
  const gateway = rig.target.gateway;
  let endpointWrites = 0;
  const transitions: boolean[] = [];
  const off = rig.west.store.onCommit((e) => {
    if (
      e.key === "/endpoints" &&
      e.type === "MODIFIED" &&
      e.object.metadata.labels?.[MIRRORED] === "true" &&
      e.object.metadata.labels?.[CLUSTER] === "east"
    )
      endpointWrites++;
    if (e.key === "multicluster.linkerd.io/links" && e.object.metadata.name === "east") {
      const alive = (e.object.status as { gateway?: { alive?: boolean } } | undefined)?.gateway?.alive;
      const was = (e.previous?.status as { gateway?: { alive?: boolean } } | undefined)?.gateway?.alive;
      if (alive !== undefined && was !== undefined && alive !== was) transitions.push(alive);
    }
  });
  const withSubsets = rig.west.store
    .scan({ group: "", plural: "endpoints" }, { labels: [{ key: MIRRORED, op: "=", value: "true" }] })
    .filter((e) => ((e as { subsets?: unknown[] }).subsets ?? []).length > 0).length;
  // Each state lasts FLAP_MS, and at least until every mirror followed it: a transition reversed
  // before its writes are done is rightly coalesced (the key finds nothing to change), which made
  // the count depend on how fast this machine writes (200 writes took ~2 s here under load).
  for (let flap = 0; flap < 3; flap++) {
    await gateway.kill();
    await Bun.sleep(FLAP_MS);
    await rig.followed(false);
    gateway.restart();
    await Bun.sleep(FLAP_MS);
    await rig.followed(true);
  }
  const started = performance.now();
  await rig.converged();
  off();
  expect(transitions).toEqual([false, true, false, true, false, true]);
  expect(endpointWrites).toBe(withSubsets * transitions.length);
  report(
    `gateway flapping every ${FLAP_MS / 1000} s (3 flaps)`,
    performance.now() - started,
    before,
    ` (${withSubsets} mirrors × ${transitions.length} transitions = ${endpointWrites} Endpoints writes)`,
  );
  expectHealthy(killedOnPurpose);
}, 60_000);

test("two replicas on one host with the same HOSTNAME: distinct Lease identities, one leads, the other stands by and takes over when it is killed", async () => {
  for (const r of rig.replicas.filter((r) => !r.exited)) {
    await r.kill("SIGTERM");
    killedOnPurpose.push(r);
  }
  const before = rig.counts();
  const first = await rig.startReplica("pod-a", { lead: true, hostname: "mc-6f7d9" });
  const second = await rig.startReplica("pod-b", { hostname: "mc-6f7d9" });
  expect(first.identity).toStartWith("mc-6f7d9_");
  expect(second.identity).toStartWith("mc-6f7d9_");
  expect(second.identity).not.toBe(first.identity);
  rig.churn.start();
  await Bun.sleep(PHASE_MS);
  rig.churn.stop();
  await rig.converged();
  expect(rig.leader()).toBe(first.identity);
  expect(second.run.stderr()).not.toContain("leading as");
  expect(second.run.stderr()).toContain(`held by ${first.identity}`);
  const killedAt = performance.now();
  await first.kill();
  killedOnPurpose.push(first);
  await rig.converged();
  expect(rig.leader()).toBe(second.identity);
  report("same HOSTNAME, leader killed, the other took over", performance.now() - killedAt, before);
  expectHealthy(killedOnPurpose);
}, 60_000);
