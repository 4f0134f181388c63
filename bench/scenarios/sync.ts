// Initial sync: N exported Services (two ports, ready Endpoints) in east, `mc serve` started against west; the time until every mirror
// Service and its ready Endpoints is in west, and the writes it took. In the same run, the limit: a plain client writing the same 2N
// objects (the mirrors as the controller wrote them, server fields stripped) to a fresh, warmed-up west at the best concurrency it finds.
import { connect } from "../../src/kube/index.ts";
import { allMirrored, mirrorObjects, startMirroring } from "../lib/controller.ts";
import { bestConcurrency, createThrough, writeAll } from "../lib/limit.ts";
import { diff, seedExported, startPair, startWest } from "../lib/pair.ts";
import { numbers, say, size, yes, type Scenario } from "../lib/scenario.ts";
import { cpuMs, ms, perSecond, ratio } from "../lib/stats.ts";
import { measureReal, type RealSyncFigures } from "./sync-real.ts";

// Target: controller / limit ≥ 0.8 at 10k, 2 writes per mirror.

const NAMESPACES = 50;
const SAMPLE = 200;

interface SyncFigures {
  n: number;
  syncedMs: number;
  mirrorMs: number;
  mirrorsPerSecond: number;
  writesPerMirror: number;
  otherWrites: number;
  limitConcurrency: number;
  limitMs: number;
  limitMirrorsPerSecond: number;
  ratio: number;
  /** Process CPU (all threads: both sandboxes, the client or controller, GC) per mirror. */
  cpuUsPerMirror: number;
  limitCpuUsPerMirror: number;
}

async function measure(n: number): Promise<SyncFigures> {
  const pair = await startPair({ namespaces: NAMESPACES, probePeriod: "3s" });
  let objects: ReturnType<typeof mirrorObjects>;
  let mirrorMs: number;
  let syncedMs = Number.NaN;
  let writes: ReturnType<typeof diff>;
  let controllerCpu = 0;
  try {
    seedExported(pair.east, n, NAMESPACES);
    Bun.gc(true);
    const t0 = performance.now();
    const c0 = cpuMs();
    const m = await startMirroring(pair, { onController: (c) => void c.synced.then(() => (syncedMs = performance.now() - t0)) });
    const before = m.ledger.snapshot();
    try {
      await allMirrored(m, n);
      mirrorMs = performance.now() - t0;
      controllerCpu = cpuMs() - c0;
      await m.settle();
      writes = diff(m.ledger.snapshot(), before);
    } finally {
      await m.stop();
    }
    objects = mirrorObjects(pair);
  } finally {
    await pair.stop();
  }
  say(
    `${size(n)}: controller mirrored in ${ms(mirrorMs)} (${perSecond(n, mirrorMs).toFixed(0)}/s), ${((writes.mirrorService + writes.mirrorEndpoints) / n).toFixed(2)} writes/mirror`,
  );
  if (objects.length !== 2 * n) throw new Error(`west held ${objects.length} mirror objects, want ${2 * n}`);

  // The limit. The concurrency search (renamed copies, on its own sandbox) also warms the process.
  const renamed = (prefix: string, i: number) => {
    const o = objects[i % objects.length]!;
    return { ...o, metadata: { ...o.metadata, name: `${prefix}-${o.metadata.name}` } };
  };
  const search = await startWest(NAMESPACES);
  let concurrency: number;
  try {
    const client = await connect({ kubeconfig: search.kubeconfig });
    ({ concurrency } = await bestConcurrency(SAMPLE, 0, (i) =>
      createThrough(client, renamed(`s${i >= objects.length ? Math.floor(i / objects.length) : ""}`, i)),
    ));
  } finally {
    await search.stop();
  }
  const fresh = await startWest(NAMESPACES);
  let limitMs: number;
  let limitCpu = 0;
  try {
    const client = await connect({ kubeconfig: fresh.kubeconfig });
    await writeAll(SAMPLE, concurrency, (i) => createThrough(client, renamed("warm", i)));
    Bun.gc(true);
    const c0 = cpuMs();
    limitMs = await writeAll(objects.length, concurrency, (i) => createThrough(client, objects[i]!));
    limitCpu = cpuMs() - c0;
  } finally {
    await fresh.stop();
  }
  const f: SyncFigures = {
    n,
    syncedMs,
    mirrorMs,
    mirrorsPerSecond: perSecond(n, mirrorMs),
    writesPerMirror: (writes.mirrorService + writes.mirrorEndpoints) / n,
    otherWrites: writes.total - writes.mirrorService - writes.mirrorEndpoints,
    limitConcurrency: concurrency,
    limitMs,
    limitMirrorsPerSecond: perSecond(n, limitMs),
    ratio: limitMs / mirrorMs,
    cpuUsPerMirror: (controllerCpu / n) * 1000,
    limitCpuUsPerMirror: (limitCpu / n) * 1000,
  };
  say(
    `${size(n)}: plain client wrote ${objects.length} objects in ${ms(limitMs)} at ${concurrency} in flight (${f.limitMirrorsPerSecond.toFixed(0)} mirrors/s); controller / limit ${ratio(f.ratio)}`,
  );
  return f;
}

export const sync: Scenario = {
  name: "sync",
  diagnostic: true,
  title: "Initial sync: controller against the limit of a plain client (sandbox: in one process, a diagnostic)",
  flags: {
    sizes: { default: "1000,10000", description: "exported Services (each mirror = a Service and its Endpoints)" },
    large: { default: "false", description: "also 50,000 (--large)" },
    backend: {
      default: "sandbox",
      description: "sandbox, or real: two real clusters (bun run kube:build; root), mc serve as its own process, default size 1000",
    },
  },
  resultName: (flags) => (flags.backend === "real" ? "sync-real" : "sync"),
  async run(flags) {
    if (flags.backend === "real") return runReal(flags.sizes === "1000,10000" ? [1000] : numbers("sizes", flags.sizes!));
    if (flags.backend !== "sandbox") throw new Error(`--backend: sandbox or real, got "${flags.backend}"`);
    const sizes = numbers("sizes", flags.sizes!);
    if (yes(flags.large!)) sizes.push(50_000);
    const results: SyncFigures[] = [];
    for (const n of sizes) results.push(await measure(n));
    const at = results.find((r) => r.n === 10_000) ?? results[results.length - 1]!;
    const worstWrites = Math.max(...results.map((r) => r.writesPerMirror));
    return {
      tables: [
        {
          headers: [
            "mirrors",
            "caches synced",
            "start → all mirrored",
            "mirrors/s",
            "writes/mirror",
            "limit (plain client)",
            "limit mirrors/s",
            "controller / limit",
            "CPU/mirror: controller, limit",
          ],
          rows: results.map((r) => [
            size(r.n),
            ms(r.syncedMs),
            ms(r.mirrorMs),
            r.mirrorsPerSecond.toFixed(0),
            r.writesPerMirror.toFixed(2),
            `${ms(r.limitMs)} (${r.limitConcurrency} in flight)`,
            r.limitMirrorsPerSecond.toFixed(0),
            ratio(r.ratio),
            `${r.cpuUsPerMirror.toFixed(0)} µs, ${r.limitCpuUsPerMirror.toFixed(0)} µs`,
          ]),
        },
      ],
      targets: [
        { name: `controller / limit at ${size(at.n)}`, want: "≥ 0.8", got: ratio(at.ratio), met: at.ratio >= 0.8 },
        {
          name: "writes per mirror",
          want: "2",
          got: worstWrites.toFixed(2),
          met: results.every((r) => Math.abs(r.writesPerMirror - 2) < 1e-9),
        },
        { name: `CPU per mirror, limit / controller at ${size(at.n)}`, want: "", got: ratio(at.limitCpuUsPerMirror / at.cpuUsPerMirror) },
      ],
      figures: { sizes: results },
      notes: [
        "Controller: `mc serve` in-process (leader election, 4 workers, real prober) against west; the limit: mc's kube client alone, same transport, same process layout.",
        `The limit's concurrency is the fastest of 1, 4, 16 and 64 requests in flight on ${SAMPLE} objects each.`,
      ],
    };
  },
};

/** `--backend real`: the same measure on two real clusters (sync-real.ts). */
async function runReal(sizes: number[]) {
  const results: RealSyncFigures[] = [];
  for (const n of sizes) results.push(await measureReal(n));
  const at = results[results.length - 1]!;
  return {
    tables: [
      {
        headers: [
          "mirrors",
          "start → all mirrored",
          "mirrors/s",
          "writes/mirror",
          "limit (plain client)",
          "limit mirrors/s",
          "controller / limit",
        ],
        rows: results.map((r) => [
          size(r.n),
          ms(r.mirrorMs),
          r.mirrorsPerSecond.toFixed(0),
          r.writesPerMirror.toFixed(2),
          `${ms(r.limitMs)} (${r.limitConcurrency} in flight)`,
          r.limitMirrorsPerSecond.toFixed(0),
          ratio(r.ratio),
        ]),
      },
    ],
    targets: [
      { name: `controller / limit at ${size(at.n)}, real Kubernetes`, want: "≥ 0.8", got: ratio(at.ratio), met: at.ratio >= 0.8 },
      { name: "writes per mirror, real Kubernetes", want: "2", got: at.writesPerMirror.toFixed(2) },
    ],
    figures: { backend: "real", sizes: results },
    notes: [
      "Two real clusters (Kubernetes v1.37.2 from `bun run kube:build`, on loopback); `mc serve` as its own process, as the ServiceAccount `mc link` renders, from its start; the limit: mc's kube client alone in the bench process, into fresh namespaces of the same west.",
      "Writes: west's apiserver_request_total for Services and Endpoints (mutating verbs) across the sync; they include the gateway probe mirror's few writes.",
    ],
  };
}
