// The benchmarks as a user meets mc: every API server, the controller and the limit client are separate processes, each measured alone, CPU
// and RSS read from /proc (bench/lib/proc.ts). East and west are `mc sandbox` processes, or real kube-apiservers (`--backend=real`).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { resources, type KubeClient, type KubeObject } from "../../src/kube/index.ts";
import * as L from "../../src/model/labels.ts";
import { CONTROLLER_ENV } from "../../src/model/names.ts";
import {
  metric,
  pinWestServers,
  settled,
  startClusters,
  startServe,
  whyNoReal,
  type BackendName,
  type BlackBoxClusters,
} from "../lib/blackbox/clusters.ts";
import { allowedCpus, pin, planPinning } from "../lib/blackbox/pin.ts";
import { ensureBinary } from "../lib/binary.ts";
import { MIRROR_RESOURCES, type LimitJob, type LimitResult } from "../lib/blackbox/limit-client.ts";
import { watchWest, type WestView } from "../lib/blackbox/west-view.ts";
import { pprofDir, profileWindow } from "../lib/blackbox/pprof.ts";
import { requestsBetween, serverRequests, total, type Counts, type ServerRequests } from "../lib/blackbox/server-writes.ts";
import { eastEndpoints, eastService } from "../lib/pair.ts";
import { loadNow, sample, sampleAll, since, type ProcSample } from "../lib/proc.ts";
import { number, numbers, say, size, type Scenario, type ScenarioResult, type Table, type Target } from "../lib/scenario.ts";
import { mb, median, ms, quantile, ratio } from "../lib/stats.ts";
import type { Until } from "../../test/helpers/mc.ts";

// N exported Services (two ports, ready Endpoints) in east, then:
// - sync: `mc serve east` started as a process; the time until a watch on west has seen every
//   mirror with ready Endpoints. Then, once every other part is done and these clusters stopped, the
//   limit on a fresh pair: a plain client as its own process (bench/lib/blackbox/limit-client.ts)
//   writing the same 2N objects (mc's mirrors, copied) at its best concurrency. Target: controller /
//   limit ≥ 0.8 at 10k.
// - churn: `mc serve` running again, east's Services relabelled at a steady rate (10, 100, 325/s); the
//   time from the write's answer to a watch on west seeing the mirror carry it (p50, p99; target p99
//   under 1 s at 325/s), beside mc's own count and mean of mc_propagation_seconds.
// - restart: `mc serve` started again over N mirrors that are right; the time until every Service
//   is reconciled (mc_mirrors = N, queue empty), the writes it made (none wanted), and a change made
//   on east during that resync: the time until a watch on west sees its mirror carry it (target
//   under 1 s: live changes never wait behind the resync).
// - flip: east's gateway stops answering its probe (and then again); from the first to the last
//   mirror Endpoints written not ready (ready), against the limit client moving N copies of those
//   Endpoints once, at its best concurrency (controller stopped). Target: each flip ≤ 1.25 × raw.
// `--form=slices`: the sync alone with `mc serve --mirror-endpoint-slices` (each mirror a Service and
// its EndpointSlice, kube mirroring nothing), the limit writing copies of those.

const NAMESPACES = 50;
const SKIP_MIRROR = "endpointslice.kubernetes.io/skip-mirror";
const SLICES_FLAG = "--mirror-endpoint-slices";
const LIMIT_SAMPLE = 200;
const CANDIDATES = [4, 16, 64];

async function pool(count: number, n: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (i < count) await fn(i++);
    }),
  );
}

/**
 * East's exported Services and their Endpoints, which kube's EndpointSlice mirroring is told to skip: east is then at rest when a timed
 * window opens, as a target is. Mirrored, the seed kept east's kube-controller-manager writing slices (20 a second, about 500 s for 10k)
 * through mc serve's window, beside it on its core, and never through the limit's (whose east is not seeded). mc reads Endpoints.
 */
async function seed(east: KubeClient, n: number): Promise<void> {
  await pool(n, 32, async (i) => {
    await east.create(resources.service, eastService(i, NAMESPACES));
    const eps = eastEndpoints(i, NAMESPACES);
    eps.metadata.labels = { ...eps.metadata.labels, [SKIP_MIRROR]: "true" };
    await east.create(resources.endpoints, eps);
  });
}

/**
 * West's mirrors as a plain client would write them: server fields stripped, the cluster label (and the Link-uid label) set to
 * `limit` (so no controller takes them for its own, nor for its mirrors of an earlier target name, which a restart deletes). Each
 * Endpoints keeps its Service's name, as a mirror's does: the server's work per object is then the same as for mc's (an Endpoints
 * named for a selectorless Service is mirrored into an EndpointSlice; one named for no Service is not).
 */
async function mirrorCopies(west: KubeClient, kinds: Array<keyof typeof MIRROR_RESOURCES>): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for (const kind of kinds) {
    const list = await west.list(MIRROR_RESOURCES[kind], { labelSelector: `${L.CLUSTER_NAME}=east` });
    for (const o of list.items) {
      if (!o.metadata.namespace?.startsWith("ns-")) continue;
      const metadata = {
        name: o.metadata.name,
        namespace: o.metadata.namespace,
        labels: { ...o.metadata.labels, [L.CLUSTER_NAME]: "limit", ...(o.metadata.labels?.[L.LINK_UID] && { [L.LINK_UID]: "limit" }) },
        annotations: o.metadata.annotations,
      };
      if (kind === "Service") {
        const { clusterIP: _c, clusterIPs: _cs, ...spec } = (o as KubeObject & { spec: Record<string, unknown> }).spec;
        out.push({ apiVersion: "v1", kind, metadata, spec } as KubeObject);
      } else if (kind === "EndpointSlice") {
        // Its kubernetes.io/service-name and mc's managed-by label kept: kube's controllers leave it alone, as they do mc's.
        const { addressType, endpoints, ports } = o as KubeObject & Record<string, unknown>;
        out.push({ apiVersion: "discovery.k8s.io/v1", kind, metadata, addressType, endpoints, ports } as KubeObject);
      } else
        out.push({
          apiVersion: "v1",
          kind,
          metadata,
          subsets: (o as KubeObject & { subsets?: unknown }).subsets,
        } as KubeObject);
    }
  }
  return out;
}

/**
 * The limit client's run, with a watch on west like the bench's own view of mc's mirrors open on the objects it writes (label
 * `limit`; on their EndpointSlices when it writes slices, as the view does in that form), so that the server serves the same
 * observer in both runs.
 */
async function runLimit(c: BlackBoxClusters, mode: LimitJob["mode"], objects: KubeObject[]): Promise<LimitResult> {
  const observer = await watchWest(c.west.client, "limit", { slices: objects.some((o) => o.kind === "EndpointSlice") });
  try {
    return await runLimitProcess(c, mode, objects);
  } finally {
    await observer.stop();
  }
}

async function runLimitProcess(c: BlackBoxClusters, mode: LimitJob["mode"], objects: KubeObject[]): Promise<LimitResult> {
  const objectsFile = join(c.dir, `limit-${mode}.json`);
  writeFileSync(objectsFile, JSON.stringify(objects));
  const job: LimitJob = {
    kubeconfig: c.west.kubeconfigPath,
    mode,
    objectsFile,
    sample: LIMIT_SAMPLE,
    candidates: CANDIDATES,
    pids: c.westPids,
    serverRequests: c.backend === "real",
  };
  const pprof = pprofRun(c, `limit-${mode}`);
  if (pprof) job.pprof = pprof;
  const jobFile = join(c.dir, `limit-${mode}.job.json`);
  writeFileSync(jobFile, JSON.stringify(job));
  // In the controller's runtime environment too: the limit is never measured with less than mc serve runs with.
  const proc = Bun.spawn(["bun", join(import.meta.dir, "..", "lib", "blackbox", "limit-client.ts"), jobFile], {
    env: { ...process.env, ...CONTROLLER_ENV },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`limit client (${mode}) exited ${code}: ${err.trim().split("\n").slice(-3).join(" ")}`);
  const r = JSON.parse(out.trim().split("\n").at(-1)!) as LimitResult;
  // West is one process on sandboxes, three on a real server (west-apiserver, west-etcd, west-controller-manager).
  const westCpuMs = Object.entries(r.procs)
    .filter(([k]) => k === "west" || k.startsWith("west-"))
    .reduce((sum, [, p]) => sum + p.cpuMs, 0);
  say(
    `limit client (${mode}): ${Object.entries(r.search)
      .map(([k, v]) => `${k} in flight ${v.toFixed(0)}/s`)
      .join(
        ", ",
      )} → ${r.concurrency}; ${r.count} in ${ms(r.ms)}; limit ${ms(r.procs.limit?.cpuMs ?? Number.NaN)} CPU, west ${ms(westCpuMs)}`,
  );
  return r;
}

async function stopServe(p: Until): Promise<void> {
  p.proc.kill("SIGTERM");
  await p.proc.exited;
}

interface SyncFigures {
  n: number;
  mirrorMs: number;
  procs: Record<string, ProcSample>;
  /** mc serve's own count of writes to west (mc_api_writes_total, the gateway mirror and Link status included) per mirror. */
  writesPerMirror: number;
  /** What west's API server executed from mc serve's start to all mirrored, by resource (real backend: from its /metrics). */
  serverRequests?: ServerRequests;
  /** mc serve's start → the first mirror Service seen on west: its start, before west has anything of mc's to do. */
  firstMirrorMs: number;
}

/**
 * West warmed as the limit client's search warms its west before the limit's timed run: as many Service creates (16 in flight),
 * untimed. A fresh sandbox is JavaScript its JIT has not compiled yet; without this mc's run alone paid for that.
 */
async function warmWest(c: BlackBoxClusters): Promise<void> {
  await pool(LIMIT_SAMPLE * CANDIDATES.length, 16, async (i) => {
    const o = eastService(i, NAMESPACES);
    await c.west.client.create(resources.service, {
      ...o,
      metadata: { ...o.metadata, name: `warm-${o.metadata.name}`, labels: { app: "warm" } },
    });
  });
}

/** One row per key counted in either window (mc serve's most first), then `last` rows. */
function countRows(mc: Counts, lim: Counts, last: string[][]): string[][] {
  const keys = [...new Set([...Object.keys(mc), ...Object.keys(lim)])].sort((a, b) => (mc[b] ?? 0) - (mc[a] ?? 0));
  return [...keys.map((k) => [k, String(mc[k] ?? 0), String(lim[k] ?? 0)]), ...last];
}

const nearestMedians = (syncRuns: number) => (syncRuns > 1 ? ", the runs nearest the medians" : "");

/** West's writes in each timed window by resource, and per second: what the server did besides the objects both write. */
function serverWritesTable(s: SyncFigures, limit: LimitResult, syncRuns: number): Table {
  const mc = s.serverRequests?.writes ?? {};
  const lim = limit.serverRequests?.writes ?? {};
  return {
    title: `sync: writes west's API server executed in each timed window, by resource (its apiserver_request_total)${nearestMedians(syncRuns)}`,
    headers: ["resource", "mc serve's run", "limit's run"],
    rows: countRows(mc, lim, [
      ["all", String(total(mc)), String(total(lim))],
      ["all, per second", (total(mc) / (s.mirrorMs / 1000)).toFixed(1), (total(lim) / (limit.ms / 1000)).toFixed(1)],
    ]),
  };
}

/** `BENCH_WEST_PPROF=DIR` on a real west: where and under what name a timed window's profiles go (numbered per run). */
let pprofRuns = 0;
function pprofRun(c: BlackBoxClusters, what: string): { dir: string; label: string; controllerManager?: string } | undefined {
  const dir = pprofDir();
  if (!dir || c.backend !== "real") return undefined;
  return { dir, label: `${what}-${++pprofRuns}`, controllerManager: c.westControllerManagerDebug };
}

/** West's other requests in each timed window (lists, gets, watches that ended), by verb and resource. */
function serverReadsTable(s: SyncFigures, limit: LimitResult, syncRuns: number): Table {
  const mc = s.serverRequests?.reads ?? {};
  const lim = limit.serverRequests?.reads ?? {};
  return {
    title: `sync: west's API server's other requests in each timed window, by verb and resource (a watch counted when it ends)${nearestMedians(syncRuns)}`,
    headers: ["request", "mc serve's run", "limit's run"],
    rows: countRows(mc, lim, [["all", String(total(mc)), String(total(lim))]]),
  };
}

/** `slices`: mc serve runs with --mirror-endpoint-slices (the view then follows the slices). */
async function sync(c: BlackBoxClusters, view: WestView, n: number, slices: boolean): Promise<SyncFigures> {
  await warmWest(c);
  const requestsBefore = c.backend === "real" ? await serverRequests(c.west.kubeconfigPath) : undefined;
  const before = sampleAll(c.pids);
  let firstAt = Number.NaN;
  const offFirst = view.onService((_key, _obj, at) => {
    if (Number.isNaN(firstAt)) firstAt = at;
  });
  const pprof = pprofRun(c, "mc-sync");
  const profiles = pprof && profileWindow({ kubeconfig: c.west.kubeconfigPath, ...pprof });
  const t0 = performance.now();
  const serving = await startServe(c, slices ? [SLICES_FLAG] : []);
  try {
    await view.until(() => view.mirrors.size >= n && view.ready.size >= n, `${n} mirrors with ready endpoints`, 120_000 + n * 60);
  } catch (err) {
    await stopServe(serving);
    throw err;
  } finally {
    offFirst();
  }
  const mirrorMs = performance.now() - t0;
  const firstMirrorMs = firstAt - t0;
  if (profiles) say(`west's CPU profiles over mc serve's sync: ${await profiles.stop()} pieces in ${pprof.dir}`);
  const procs = { "mc serve": sample(serving.proc.pid), ...since(before, c.pids) };
  const requests = requestsBefore && requestsBetween(requestsBefore, await serverRequests(c.west.kubeconfigPath));
  let writes = Number.NaN;
  try {
    await settled(serving, 60_000);
    writes = await metric(serving, "mc_api_writes_total");
  } finally {
    await stopServe(serving);
  }
  say(
    `sync ${size(n)}: mc serve mirrored in ${ms(mirrorMs)} (the first mirror seen after ${ms(firstMirrorMs)}), ${ms(procs["mc serve"]!.cpuMs)} CPU, peak RSS ${mb(procs["mc serve"]!.peakRssBytes)}, ${(writes / n).toFixed(2)} writes/mirror`,
  );
  return { n, mirrorMs, firstMirrorMs, procs, writesPerMirror: writes / n, ...(requests && { serverRequests: requests }) };
}

/**
 * The limit of a sync: `objects` (mc's mirrors, copied) written by the limit client to the west of a fresh pair, started as the first
 * was (mc install, namespaces, the Link) once the first is stopped: the server then holds what it held when mc's run began, not mc's
 * 2N objects and what the server made of them (EndpointSlices, a real one's IPAddresses, its etcd history), and nothing else runs.
 */
async function syncLimit(backend: BackendName, latency: string, objects: KubeObject[]): Promise<LimitResult> {
  const fresh = await startClusters(backend, NAMESPACES, latency);
  try {
    return await runLimit(fresh, "create", objects);
  } finally {
    await fresh.stop();
  }
}

/** One more sync of mc serve on a fresh pair seeded as the first (`--sync-runs`): its start → all mirrored, and its processes' CPU. */
async function freshSync(backend: BackendName, latency: string, n: number, slices: boolean): Promise<SyncFigures> {
  const fresh = await startClusters(backend, NAMESPACES, latency);
  try {
    await seed(fresh.east.client, n);
    const view = await watchWest(fresh.west.client, "east", { slices });
    try {
      return await sync(fresh, view, n, slices);
    } finally {
      await view.stop();
    }
  } finally {
    await fresh.stop();
  }
}

interface ChurnFigures {
  rate: number;
  changes: number;
  p50: number;
  p99: number;
  max: number;
  unseen: number;
  serveCpuMs: number;
  /** mc_propagation_seconds over the run: how many mc counted, and their mean. */
  counted: number;
  countedMeanMs: number;
}

async function churnAt(
  c: BlackBoxClusters,
  view: WestView,
  serving: Until,
  n: number,
  rate: number,
  durationMs: number,
  firstSeq: number,
): Promise<ChurnFigures> {
  const total = Math.max(20, Math.round((rate * durationMs) / 1000));
  const acked = new Map<number, number>();
  const pending = new Map<string, number[]>();
  const latencies: number[] = [];
  let outstanding = total;
  let allSeen = () => {};
  const done = new Promise<void>((resolve) => (allSeen = resolve));
  const off = view.onService((key, obj, at) => {
    const seq = Number(obj.metadata.labels?.churn);
    const waiting = pending.get(key);
    if (!waiting || !Number.isFinite(seq)) return;
    while (waiting.length > 0 && waiting[0]! <= seq) {
      const s = waiting.shift()!;
      const a = acked.get(s);
      if (a !== undefined) latencies.push(at - a);
      if (--outstanding === 0) allSeen();
    }
  });
  const cpu0 = sample(serving.proc.pid).cpuMs;
  // Absent (NaN) until the first observation.
  const propagated = async () =>
    [(await metric(serving, "mc_propagation_seconds_count")) || 0, (await metric(serving, "mc_propagation_seconds_sum")) || 0] as const;
  const [count0, sum0] = await propagated();
  const writes: Promise<unknown>[] = [];
  const t0 = performance.now();
  for (let j = 0; j < total; ) {
    const now = performance.now();
    while (j < total && t0 + (j * 1000) / rate <= now) {
      const seq = firstSeq + j;
      const i = seq % n;
      const namespace = `ns-${i % NAMESPACES}`;
      const key = `${namespace}/svc-${i}-east`;
      pending.set(key, [...(pending.get(key) ?? []), seq]);
      writes.push(
        c.east.client
          .patch(resources.service, namespace, `svc-${i}`, { metadata: { labels: { churn: String(seq) } } }, { type: "merge" })
          .then(() => acked.set(seq, performance.now())),
      );
      j++;
    }
    if (j < total) await Bun.sleep(Math.max(0, t0 + (j * 1000) / rate - performance.now()));
  }
  await Promise.all(writes);
  await Promise.race([done, Bun.sleep(60_000)]);
  off();
  const serveCpuMs = sample(serving.proc.pid).cpuMs - cpu0;
  await settled(serving, 60_000);
  const [count1, sum1] = await propagated();
  const counted = count1 - count0;
  const countedMeanMs = counted > 0 ? ((sum1 - sum0) / counted) * 1000 : Number.NaN;
  const f: ChurnFigures = {
    rate,
    changes: total,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: Math.max(...latencies),
    unseen: outstanding,
    serveCpuMs,
    counted,
    countedMeanMs,
  };
  say(
    `churn ${rate}/s: ${total} changes, p50 ${ms(f.p50)} p99 ${ms(f.p99)} max ${ms(f.max)}${f.unseen ? `, ${f.unseen} never seen` : ""}; mc serve ${ms(f.serveCpuMs)} CPU; mc_propagation_seconds counted ${counted}, mean ${ms(countedMeanMs)}`,
  );
  return f;
}

interface RestartFigures {
  convergedMs: number;
  /** Mirror Services and Endpoints written during the resync, as west's watch saw them, the changed one's aside: 0 wanted. */
  writes: number;
  /** A label changed on east once the resync was under way → its mirror carrying it on west; NaN: the resync ended before the change could be made. */
  liveMs: number;
  serveCpuMs: number;
}

/** The Service the resync reaches last (keys run sorted), so a change of it waits for the whole resync unless it goes ahead. */
function lastKeyed(n: number): { namespace: string; name: string } {
  const keys = Array.from({ length: n }, (_, i) => ({ namespace: `ns-${i % NAMESPACES}`, name: `svc-${i}` }));
  keys.sort((a, b) => (`${a.namespace}/${a.name}` < `${b.namespace}/${b.name}` ? -1 : 1));
  return keys.at(-1)!;
}

async function restart(c: BlackBoxClusters, view: WestView, n: number): Promise<RestartFigures> {
  const target = lastKeyed(n);
  const mirrorKey = `${target.namespace}/${target.name}-east`;
  let writes = 0;
  const count = (key: string) => void (key !== mirrorKey && writes++);
  const offs = [view.onService(count), view.onEndpoints(count)];
  const t0 = performance.now();
  const serving = await startServe(c);
  try {
    // Under way: some Services reconciled, not all.
    let liveMs = Number.NaN;
    for (;;) {
      const done = (await metric(serving, "mc_mirrors")) || 0;
      if (done >= n) break;
      if (done > 0) {
        let seenAt = 0;
        const value = `restart-${Date.now()}`;
        const seen = new Promise<void>((resolve) => {
          const off = view.onService((key, obj, at) => {
            if (key !== mirrorKey || obj.metadata.labels?.restart !== value) return;
            seenAt = at;
            off();
            resolve();
          });
        });
        await c.east.client.patch(
          resources.service,
          target.namespace,
          target.name,
          { metadata: { labels: { restart: value } } },
          { type: "merge" },
        );
        const acked = performance.now();
        await Promise.race([seen, Bun.sleep(60_000)]);
        liveMs = seenAt ? seenAt - acked : Number.POSITIVE_INFINITY;
        break;
      }
      await Bun.sleep(5);
    }
    await settled(serving, 120_000 + n * 30, n);
    const convergedMs = performance.now() - t0;
    const f: RestartFigures = { convergedMs, writes, liveMs, serveCpuMs: sample(serving.proc.pid).cpuMs };
    say(
      `restart ${size(n)}: every Service reconciled after ${ms(f.convergedMs)}, ${f.writes} writes; a change during the resync seen on west after ${ms(f.liveMs)}; mc serve ${ms(f.serveCpuMs)} CPU`,
    );
    return f;
  } finally {
    for (const off of offs) off();
    await stopServe(serving);
  }
}

interface FlipFigures {
  direction: "down" | "up";
  /** Gateway killed (started) → first mirror Endpoints written not ready (ready): the probe's part. */
  noticeMs: number;
  /** First → last mirror Endpoints written: the controller's part, compared with the raw updates. */
  writeMs: number;
  serveCpuMs: number;
  /** West's CPU over the flip (the raw updates': the limit's procs). */
  westCpuMs: number;
}

async function flipOnce(c: BlackBoxClusters, view: WestView, serving: Until, n: number, alive: boolean): Promise<FlipFigures> {
  let first = Number.NaN;
  let last = Number.NaN;
  // Only writes that put a mirror in the new state count (not a refresh, not a straggler of the last flip).
  const target = alive ? view.ready : view.notReady;
  const off = view.onEndpoints((key, obj, at) => {
    if (!obj || !target.has(key)) return;
    if (Number.isNaN(first)) first = at;
    last = at;
  });
  const cpu0 = sample(serving.proc.pid).cpuMs;
  const west0 = sample(c.pids.west!).cpuMs;
  const t0 = performance.now();
  if (alive) await c.startGateway();
  else await c.killGateway();
  await view.until(
    () => (alive ? view.ready : view.notReady).size >= n,
    `${n} mirror Endpoints ${alive ? "" : "not "}ready`,
    120_000 + n * 30,
  );
  off();
  const f: FlipFigures = {
    direction: alive ? "up" : "down",
    noticeMs: first - t0,
    writeMs: last - first,
    serveCpuMs: sample(serving.proc.pid).cpuMs - cpu0,
    westCpuMs: sample(c.pids.west!).cpuMs - west0,
  };
  say(
    `flip ${f.direction}: noticed after ${ms(f.noticeMs)}, ${n} Endpoints written in ${ms(f.writeMs)}; mc serve ${ms(f.serveCpuMs)} CPU, west ${ms(f.westCpuMs)}`,
  );
  return f;
}

const procRows = (procs: Record<string, ProcSample>): string[][] =>
  Object.entries(procs).map(([name, p]) => [name, ms(p.cpuMs), mb(p.rssBytes), mb(p.peakRssBytes)]);

export const blackbox: Scenario = {
  name: "blackbox",
  title: "Black box: sync, churn and flip with every API server, the controller and the limit client as processes",
  flags: {
    backend: { default: "sandbox", description: "sandbox (mc sandbox processes) or real (kube-apiservers, `bun run kube:build` first)" },
    mirrors: { default: "10000", description: "exported Services (each mirror = a Service and its Endpoints)" },
    latency: {
      default: "0",
      description:
        "sandbox: latency added to every answer (`mc sandbox --latency`), standing for a real server's; kept apart from the README's results",
    },
    parts: { default: "sync,restart,churn,flip", description: "which of sync, restart, churn and flip to run (sync always seeds)" },
    form: {
      default: "endpoints",
      description: `endpoints (Linkerd's mirrors, the default) or slices (mc serve ${SLICES_FLAG}: the sync only, kept apart from the README's results)`,
    },
    "sync-runs": {
      default: "",
      description:
        "sync: runs of mc serve and of the limit, each on a fresh pair, alternating; the ratio is of their medians (default 5 on sandboxes, 1 on real servers)",
    },
    pin: {
      default: "west",
      description:
        "west: west's API server processes on a core of their own, every other process on the rest (a cluster's topology: the controller never takes the server's CPU); none: all share every core",
    },
    rates: { default: "10,100,325", description: "churn: changes per second" },
    "duration-ms": { default: "5000", description: "churn: how long each rate runs" },
    rounds: { default: "3", description: "flip: rounds of (down, up); medians reported" },
  },
  resultName: (flags) =>
    (flags.backend === "real" ? "blackbox-real" : flags.latency && flags.latency !== "0" ? "blackbox-latency" : "blackbox") +
    (flags.form === "slices" ? "-slices" : ""),
  async run(flags) {
    if (flags.pin !== "west" && flags.pin !== "none") throw new Error(`--pin: west or none, got ${JSON.stringify(flags.pin)}`);
    const plan = flags.pin === "west" ? planPinning() : "--pin=none";
    const pinning = typeof plan === "string" ? undefined : plan;
    const where = pinning
      ? `west's server processes on CPU ${pinning.west}, every other process (east, this bench, mc serve, the limit client) on CPU ${pinning.others}`
      : `every process on every core (${plan})`;
    const mine = allowedCpus(process.pid);
    if (pinning) pin(process.pid, pinning.others); // mc serve and the limit client, started from here, inherit it
    pinWestServers(pinning);
    say(`${where}; this process may run on ${allowedCpus(process.pid)}`);
    try {
      await ensureBinary(true); // dist/mc, which startServe runs, from this checkout
      return await measure(flags, where);
    } finally {
      pinWestServers(undefined);
      if (pinning) pin(process.pid, mine); // the scenarios after this one run as before it
    }
  },
};

async function measure(flags: Record<string, string>, where: string): Promise<ScenarioResult> {
  const backend = flags.backend as BackendName;
  if (backend !== "sandbox" && backend !== "real") throw new Error(`--backend: sandbox or real, got ${JSON.stringify(flags.backend)}`);
  if (backend === "real") {
    const why = whyNoReal();
    if (why) throw new Error(`--backend real is not usable here: ${why}`);
  }
  const n = number("mirrors", flags.mirrors!);
  const parts = new Set(flags.parts!.split(",").map((p) => p.trim()));
  for (const p of parts)
    if (!["sync", "restart", "churn", "flip"].includes(p))
      throw new Error(`--parts: one or more of sync, restart, churn, flip, got ${JSON.stringify(p)}`);
  if (flags.form !== "endpoints" && flags.form !== "slices")
    throw new Error(`--form: endpoints or slices, got ${JSON.stringify(flags.form)}`);
  const slices = flags.form === "slices";
  if (slices && [...parts].some((p) => p !== "sync")) throw new Error("--form=slices: with --parts=sync only");
  // The form, in the names of the targets and the sync's table.
  const form = slices ? `, ${SLICES_FLAG}` : "";
  const rates = numbers("rates", flags.rates!);
  const durationMs = number("duration-ms", flags["duration-ms"]!);
  const rounds = number("rounds", flags.rounds!);
  const syncRuns = flags["sync-runs"] ? number("sync-runs", flags["sync-runs"]) : backend === "real" ? 1 : 5;
  if (syncRuns < 1) throw new Error(`--sync-runs: 1 or more, got ${flags["sync-runs"]}`);
  const load = loadNow();
  say(
    `load at start ${load}; backend ${backend}, ${size(n)} mirrors${slices ? ` (${SLICES_FLAG})` : ""}${flags.latency !== "0" ? `, ${flags.latency} added to every answer` : ""}`,
  );
  if (backend === "real" && flags.latency !== "0") throw new Error("--latency: for the sandbox backend only");
  const c = await startClusters(backend, NAMESPACES, flags.latency);
  const tables: Table[] = [];
  const targets: Target[] = [];
  const figures: Record<string, unknown> = { backend, form: flags.form, mirrors: n, loadAtStart: load, latency: flags.latency };
  const notes = [`Load average at start: ${load} (1, 5, 15 min). Figures measured on a loaded machine are not results.`];
  let synced: SyncFigures | undefined;
  let copies: KubeObject[] = [];
  try {
    await seed(c.east.client, n);
    say(`${size(n)} exported Services seeded in east`);
    const view = await watchWest(c.west.client, "east", { slices });
    try {
      // Sync runs first in any case: churn and flip need the mirrors. Its limit runs last, on a fresh pair (syncLimit).
      synced = await sync(c, view, n, slices);
      copies = await mirrorCopies(c.west.client, ["Service", slices ? "EndpointSlice" : "Endpoints"]);

      if (parts.has("restart")) {
        const r = await restart(c, view, n);
        figures.restart = r;
        tables.push({
          title: `restart over ${size(n)} mirrors that are right, ${backend}`,
          headers: [
            "mirrors",
            "start → every Service reconciled",
            "writes",
            "a change made during the resync → seen on west",
            "mc serve CPU",
          ],
          rows: [
            [
              size(n),
              ms(r.convergedMs),
              String(r.writes),
              Number.isNaN(r.liveMs) ? "– (resync over first)" : ms(r.liveMs),
              ms(r.serveCpuMs),
            ],
          ],
        });
        targets.push({
          name: `black box: restart converged at ${size(n)} (${backend})`,
          want: "< 30 s, 0 writes",
          got: `${ms(r.convergedMs)}, ${r.writes} writes`,
          met: n >= 10_000 ? r.convergedMs < 30_000 && r.writes === 0 : undefined,
        });
        targets.push({
          name: `black box: a change during the resync at ${size(n)} (${backend})`,
          want: "< 1 s",
          got: Number.isNaN(r.liveMs) ? "–" : ms(r.liveMs),
          met: n >= 10_000 && !Number.isNaN(r.liveMs) ? r.liveMs < 1000 : undefined,
        });
      }

      let raw: LimitResult | undefined;
      if (parts.has("flip")) raw = await runLimit(c, "toggle", await mirrorCopies(c.west.client, ["Service", "Endpoints"]));
      if (parts.has("churn") || parts.has("flip")) {
        const serving = await startServe(c);
        try {
          // Restarted: its resync (every mirror checked, nothing written) done before anything is timed.
          await settled(serving, 120_000 + n * 30, n);
          if (parts.has("churn")) {
            const results: ChurnFigures[] = [];
            let seq = 0;
            for (const rate of rates) {
              results.push(await churnAt(c, view, serving, n, rate, durationMs, seq));
              seq += results.at(-1)!.changes;
            }
            figures.churn = results;
            tables.push({
              title: `churn, ${size(n)} mirrors, ${backend}`,
              headers: [
                "changes/s",
                "changes",
                "p50",
                "p99",
                "max",
                "never seen",
                "mc serve CPU per change",
                "mc_propagation_seconds: counted, mean",
              ],
              rows: results.map((r) => [
                String(r.rate),
                String(r.changes),
                ms(r.p50),
                ms(r.p99),
                ms(r.max),
                String(r.unseen),
                ms(r.serveCpuMs / r.changes),
                `${r.counted}, ${ms(r.countedMeanMs)}`,
              ]),
            });
            const at100 = results.find((r) => r.rate === 100);
            if (at100)
              targets.push({
                name: `black box: churn p99 at 100 changes/s, ${size(n)} mirrors (${backend})`,
                want: "",
                got: ms(at100.p99),
              });
            const at325 = results.find((r) => r.rate === 325);
            if (at325)
              targets.push({
                name: `black box: churn p99 at 325 changes/s, ${size(n)} mirrors (${backend})`,
                want: "< 1 s",
                got: ms(at325.p99),
                met: n >= 10_000 ? at325.p99 < 1000 && at325.unseen === 0 : undefined,
              });
          }
          if (parts.has("flip")) {
            const flips: FlipFigures[] = [];
            for (let r = 0; r < rounds; r++) {
              flips.push(await flipOnce(c, view, serving, n, false));
              flips.push(await flipOnce(c, view, serving, n, true));
            }
            const down = median(flips.filter((f) => f.direction === "down").map((f) => f.writeMs));
            const up = median(flips.filter((f) => f.direction === "up").map((f) => f.writeMs));
            const worst = Math.max(down, up) / raw!.ms;
            figures.flip = { flips, raw };
            tables.push({
              title: `flip, ${size(n)} mirrors, ${backend} (medians of ${rounds})`,
              headers: [
                "direction",
                "noticed after",
                "first → last Endpoints written",
                "raw updates (plain client)",
                "flip / raw",
                "mc serve CPU",
                "west CPU (raw's)",
              ],
              rows: (["down", "up"] as const).map((d) => {
                const fs = flips.filter((f) => f.direction === d);
                const w = median(fs.map((f) => f.writeMs));
                return [
                  d,
                  ms(median(fs.map((f) => f.noticeMs))),
                  ms(w),
                  `${ms(raw!.ms)} (${raw!.concurrency} in flight)`,
                  ratio(w / raw!.ms),
                  ms(median(fs.map((f) => f.serveCpuMs))),
                  `${ms(median(fs.map((f) => f.westCpuMs)))} (${ms(raw!.procs.west?.cpuMs ?? Number.NaN)})`,
                ];
              }),
            });
            targets.push({
              name: `black box: gateway flip / raw updates, worst (${backend})`,
              want: "≤ 1.25",
              got: ratio(worst),
              met: n >= 10_000 ? worst <= 1.25 : undefined,
            });
          }
        } finally {
          await stopServe(serving);
        }
      }
    } finally {
      await view.stop();
    }
  } finally {
    await c.stop();
  }
  // The first sync ran on the main pair (churn and flip need its mirrors); each further one on a fresh pair, then its limit, alternating,
  // so that a drift of the machine over the runs reaches both sides alike.
  const syncs = [synced!];
  const limits = [await syncLimit(backend, flags.latency!, copies)];
  for (let r = 1; r < syncRuns; r++) {
    syncs.push(await freshSync(backend, flags.latency!, n, slices));
    limits.push(await syncLimit(backend, flags.latency!, copies));
  }
  const mcMs = median(syncs.map((x) => x.mirrorMs));
  const limitMs = median(limits.map((x) => x.ms));
  // The process tables show the run nearest each median.
  const nearest = <T>(xs: T[], ms: (x: T) => number, m: number) => xs.reduce((a, b) => (Math.abs(ms(b) - m) < Math.abs(ms(a) - m) ? b : a));
  const limit = nearest(limits, (x) => x.ms, limitMs);
  const s = {
    ...nearest(syncs, (x) => x.mirrorMs, mcMs),
    mirrorMs: mcMs,
    limit: { ...limit, ms: limitMs },
    ratio: limitMs / mcMs,
    runs: { mc: syncs.map((x) => x.mirrorMs), limit: limits.map((x) => x.ms), limitConcurrency: limits.map((x) => x.concurrency) },
  };
  figures.sync = s;
  const each = (xs: number[]) => (xs.length > 1 ? ` (runs: ${xs.map(ms).join(", ")})` : "");
  const firsts = syncs.map((x) => x.firstMirrorMs);
  tables.unshift(
    {
      title: `sync, ${backend}${slices ? `, mc serve ${SLICES_FLAG}` : ""}${syncRuns > 1 ? ` (medians of ${syncRuns} runs of each, every run on a fresh pair)` : ""}`,
      headers: ["mirrors", "mc serve: start → all mirrored", "writes/mirror", "limit: same objects (plain client)", "controller / limit"],
      rows: [
        [
          size(n),
          `${ms(s.mirrorMs)}${each(s.runs.mc)}`,
          s.writesPerMirror.toFixed(2),
          `${ms(limitMs)}${each(s.runs.limit)} (${[...new Set(s.runs.limitConcurrency)].join("/")} in flight)`,
          ratio(s.ratio),
        ],
      ],
    },
    {
      title: `sync: each process during mc serve's run (CPU, RSS at the end, peak RSS)${syncRuns > 1 ? ", the run nearest the median" : ""}`,
      headers: ["process", "CPU", "RSS", "peak RSS"],
      rows: procRows(s.procs),
    },
    {
      title: `sync: each process during the limit's run (on a fresh pair)${syncRuns > 1 ? ", the run nearest the median" : ""}`,
      headers: ["process", "CPU", "RSS", "peak RSS"],
      rows: procRows(limit.procs),
    },
    ...(s.serverRequests && limit.serverRequests ? [serverWritesTable(s, limit, syncRuns), serverReadsTable(s, limit, syncRuns)] : []),
  );
  targets.unshift(
    {
      name: `black box: controller / limit at ${size(n)} (${backend}${form})`,
      want: "≥ 0.8",
      got: ratio(s.ratio),
      met: n >= 10_000 ? s.ratio >= 0.8 : undefined,
    },
    {
      name: `black box: writes per mirror, mc serve's count (${backend}${form})`,
      want: "2",
      got: s.writesPerMirror.toFixed(2),
      met: Math.abs(s.writesPerMirror - 2) < 0.01,
    },
    {
      name: `black box: mc serve CPU per mirror at ${size(n)} (${backend}${form})`,
      want: "",
      got: `${((s.procs["mc serve"]!.cpuMs / n) * 1000).toFixed(0)} µs`,
    },
  );
  notes.push(
    "Every API server, `mc serve` and the limit client ran as separate processes; each process's CPU and RSS are read from /proc. The bench process seeds east, drives churn and watches west.",
    `mc serve's start (the process, its Lease, its lists of east and west) before west saw the first mirror: ${ms(median(firsts))}, median${each(firsts)}; west has nothing of mc's to do meanwhile.`,
    `Cores: ${where}. mc serve ran as dist/mc, the compiled binary of the controller image, built for this run.`,
    `Before mc serve's sync, west took ${LIMIT_SAMPLE * CANDIDATES.length} Service creates, untimed, as the limit's west takes its search's before the limit's timed run.`,
    `The limit client searched ${CANDIDATES.join(", ")} requests in flight on ${LIMIT_SAMPLE} objects each, with the controller stopped. A target's verdict is given at 10k mirrors only.`,
    "The sync's limit ran last, alone, on a fresh pair started as the first (its west holding none of mc's objects, as west did when mc's sync began); the flip's raw updates run on the first pair, beside mc's mirrors.",
    ...(syncRuns > 1
      ? [
          `The sync ran ${syncRuns} times on each side, alternating (mc serve's first run on the pair churn and flip then use, every other run on a fresh pair); the ratio is of the two medians, since a single run of either moves with the machine.`,
        ]
      : []),
  );
  return { tables, targets, figures, notes };
}
