// Gateway flip: with N mirrored, the gateway is reported dead (setAlive(false), what the prober does at the failure threshold) until every
// mirror's Endpoints are not ready, then alive until all are ready again.
import { connect, resources, type KubeClient, type KubeObject } from "../../src/kube/index.ts";
import * as L from "../../src/model/labels.ts";
import { mirrorObjects, withMirrors } from "../lib/controller.ts";
import { bestConcurrency, createThrough, writeAll } from "../lib/limit.ts";
import { diff, notReadyAddresses, readyAddresses, seedExported, until, type Pair } from "../lib/pair.ts";
import { number, numbers, say, size, type Scenario } from "../lib/scenario.ts";
import { median, ms, ratio } from "../lib/stats.ts";

// In the same run, N raw Endpoints updates — a plain client moving the addresses of N copies of the
// mirrors' Endpoints (same shape, each with its Service) to notReadyAddresses and back, PUT with their
// resourceVersion, at its best concurrency — set the bar. Target: each flip ≤ 1.25 × the raw updates.
// Then the gateway dies while N more Services are being exported (N new mirrors queued, routine work):
// how long until every existing mirror is not ready, and how many new mirrors were made meanwhile (a
// liveness flip goes ahead of routine work: few or none).

const NAMESPACES = 50;
const SAMPLE = 100;

interface FlipFigures {
  n: number;
  downMs: number;
  upMs: number;
  downWrites: number;
  upWrites: number;
  rawMs: number;
  rawConcurrency: number;
  downRatio: number;
  upRatio: number;
  /** Dead → every existing mirror not ready, with N new exports queued; new mirrors made by then. */
  backlogDownMs: number;
  backlogMade: number;
}

type Eps = KubeObject & { subsets: Array<{ addresses?: unknown[]; notReadyAddresses?: unknown[]; ports?: unknown[] }> };

/**
 * A copy of every mirror (Service and Endpoints, the same labels, annotations, ports and
 * addresses) named `raw-<name>` and without the cluster and Link labels, so the controller does
 * not own or watch them; returns a toggle for the i-th Endpoints (ready ↔ not ready).
 */
async function rawEndpoints(client: KubeClient, pair: Pair): Promise<{ count: number; toggle: (i: number) => Promise<unknown> }> {
  const copies = mirrorObjects(pair).map((o) => {
    const { [L.CLUSTER_NAME]: _ours, [L.LINK_UID]: _link, ...labels } = o.metadata.labels ?? {};
    return { ...o, metadata: { ...o.metadata, name: `raw-${o.metadata.name}`, labels } };
  });
  const current: Eps[] = [];
  const endpoints = copies.filter((o) => o.kind === "Endpoints");
  await writeAll(copies.length, 16, async (i) => {
    const created = await createThrough(client, copies[i]!);
    if (copies[i]!.kind === "Endpoints") current[endpoints.indexOf(copies[i]!)] = created as Eps;
  });
  const toggle = async (i: number) => {
    const e = current[i]!;
    const subsets = e.subsets.map((s) => ({
      ports: s.ports,
      ...(s.addresses ? { notReadyAddresses: s.addresses } : { addresses: s.notReadyAddresses }),
    }));
    current[i] = await client.update(resources.endpoints, { ...e, subsets });
  };
  return { count: endpoints.length, toggle };
}

async function measure(n: number, rounds: number, latencyMs: number): Promise<FlipFigures> {
  return withMirrors(n, { namespaces: NAMESPACES, probePeriod: "3s" }, {}, async (pair, m) => {
    // A network between the controller and west (every answer delayed), as a real cluster has one.
    pair.west.control.faults.delayMs = latencyMs;
    const client = await connect({ kubeconfig: pair.westKubeconfig });
    const { count, toggle } = await rawEndpoints(client, pair);
    if (count !== n) throw new Error(`${count} mirror Endpoints to copy, want ${n}`);
    // The search flips the first 4 × SAMPLE raw Endpoints (also a warm-up).
    const { concurrency } = await bestConcurrency(SAMPLE, 0, (i) => toggle(i % n));
    await m.settle();
    const flipOnce = async (alive: boolean) => {
      const before = m.ledger.snapshot();
      const t = performance.now();
      m.controller.setAlive(alive);
      await m.until(() => (alive ? m.ready : m.notReady).size >= n, `${n} mirror Endpoints ${alive ? "" : "not "}ready`, 60_000 + n * 30);
      const wall = performance.now() - t;
      await m.settle();
      return { wall, writes: diff(m.ledger.snapshot(), before).mirrorEndpoints };
    };
    // Rounds interleave raw updates, a flip down and a flip up, so a busy spell on the machine
    // hits all three alike; the medians are reported.
    const raw: number[] = [];
    const downs: Array<{ wall: number; writes: number }> = [];
    const ups: Array<{ wall: number; writes: number }> = [];
    for (let r = 0; r < rounds; r++) {
      raw.push(await writeAll(n, concurrency, toggle));
      downs.push(await flipOnce(false));
      ups.push(await flipOnce(true));
    }
    const backlog = await behindBacklog(pair, m, n);
    const rawMs = median(raw);
    const downMs = median(downs.map((d) => d.wall));
    const upMs = median(ups.map((u) => u.wall));
    const f: FlipFigures = {
      n,
      downMs,
      upMs,
      downWrites: Math.max(...downs.map((d) => d.writes)),
      upWrites: Math.max(...ups.map((u) => u.writes)),
      rawMs,
      rawConcurrency: concurrency,
      downRatio: downMs / rawMs,
      upRatio: upMs / rawMs,
      backlogDownMs: backlog.wall,
      backlogMade: backlog.made,
    };
    say(
      `${size(n)}: down ${ms(downMs)}, up ${ms(upMs)}, ${n} raw updates ${ms(rawMs)} (${concurrency} in flight), medians of ${rounds}; down behind ${n} new exports ${ms(backlog.wall)} (${backlog.made} new mirrors made meanwhile)`,
    );
    return f;
  });
}

/** The gateway dies (the prober's setAlive(false)) with `n` new exports queued: time until the `n` existing mirrors are all not ready. */
async function behindBacklog(
  pair: Pair,
  m: Awaited<Parameters<Parameters<typeof withMirrors>[3]>[1]>,
  n: number,
): Promise<{ wall: number; made: number }> {
  const existing = new Set(m.mirrors);
  const down = new Set<string>();
  const off = m.ledger.on((kind, e) => {
    const key = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
    if (
      kind === "mirrorEndpoints" &&
      existing.has(key) &&
      e.type !== "DELETED" &&
      notReadyAddresses(e.object) > 0 &&
      readyAddresses(e.object) === 0
    )
      down.add(key);
  });
  const remote = m.controller.informers.remoteServices!;
  // The new exports reach the controller's cache (and its queue) through its informer.
  const queued = until(
    () => remote.cache.size >= 2 * n,
    [(fire) => remote.on(fire)],
    `${n} new exports in the controller's cache`,
    60_000 + n * 30,
  );
  seedExported(pair.east, n, NAMESPACES, n);
  await queued;
  const t = performance.now();
  m.controller.setAlive(false);
  await m.until(() => down.size >= n, `${n} existing mirrors not ready`, 60_000 + n * 30);
  const wall = performance.now() - t;
  const made = m.mirrors.size - existing.size;
  off();
  m.controller.setAlive(true);
  await m.settle();
  return { wall, made };
}

export const flip: Scenario = {
  name: "flip",
  diagnostic: true,
  title: "In-process diagnostic. Gateway flip: every mirror's Endpoints not ready and back, against raw updates",
  flags: {
    sizes: { default: "1000,10000", description: "mirrors" },
    rounds: { default: "5", description: "rounds of (raw updates, flip down, flip up); medians reported" },
    latency: { default: "0", description: "ms added to every answer of west once mirrored (a network's round trip)" },
  },
  async run(flags) {
    const results: FlipFigures[] = [];
    const rounds = number("rounds", flags.rounds!);
    const latency = Number(flags.latency);
    if (!Number.isInteger(latency) || latency < 0)
      throw new Error(`--latency: must be a whole number of ms (0: none), got ${JSON.stringify(flags.latency)}`);
    for (const n of numbers("sizes", flags.sizes!)) results.push(await measure(n, rounds, latency));
    const worst = Math.max(...results.flatMap((r) => [r.downRatio, r.upRatio]));
    return {
      tables: [
        {
          headers: [
            "mirrors",
            "dead → all not ready",
            "alive → all ready",
            "Endpoints writes (down, up)",
            `${"N"} raw Endpoints updates`,
            "down / raw",
            "up / raw",
            "dead behind N new exports (new mirrors made meanwhile)",
          ],
          rows: results.map((r) => [
            size(r.n),
            ms(r.downMs),
            ms(r.upMs),
            `${r.downWrites}, ${r.upWrites}`,
            `${ms(r.rawMs)} (${r.rawConcurrency} in flight)`,
            ratio(r.downRatio),
            ratio(r.upRatio),
            `${ms(r.backlogDownMs)} (${r.backlogMade})`,
          ]),
        },
      ],
      targets: [{ name: "gateway flip / raw updates (worst)", want: "≤ 1.25", got: ratio(worst), met: worst <= 1.25 }],
      figures: { sizes: results },
    };
  },
};
