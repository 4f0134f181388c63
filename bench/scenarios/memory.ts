// Memory of `mc serve` as its own process: RSS and heap idle, after 1k and 10k mirrors, and after rounds of churn.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allMirrored, watchWest, type WestView } from "../lib/controller.ts";
import { ensureBinary, freePort, ROOT, rssOf } from "../lib/binary.ts";
import { NS, CLUSTER, seedExported, startPair, type Pair } from "../lib/pair.ts";
import { number, numbers, say, size, yes, type Scenario } from "../lib/scenario.ts";
import { kb, mb } from "../lib/stats.ts";

// Memory of `mc serve` as its own process (`bun --preload memory-probe.ts cmd/mc.ts serve`, so
// it can be asked for its heap after a full GC): RSS and heap idle (the Link served, nothing
// exported), after 1k and 10k mirrors, KB per mirror above idle, and after rounds of compressed
// churn — every exported Service relabelled, east's watches dropped and its history forgotten,
// so every informer relists — which must leave the heap flat. Also the compiled binary's idle
// RSS. Target: heap ≤ 10 KB per mirror.

const NAMESPACES = 50;

interface Sample {
  label: string;
  mirrors: number;
  rss: number;
  heapUsed: number;
}

interface ServeProcess {
  pid: number;
  sample(label: string, mirrors: number): Promise<Sample>;
  stop(): Promise<void>;
}

async function waitReady(url: string, proc: { exitCode: number | null }, timeoutMs = 60_000): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (performance.now() < until) {
    if (proc.exitCode !== null) throw new Error(`mc serve exited ${proc.exitCode}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await Bun.sleep(100);
  }
  throw new Error(`mc serve not ready at ${url} after ${timeoutMs} ms`);
}

/** `mc serve east` against west, as a subprocess; `command` is what runs `serve` (bun + cmd/mc.ts, or dist/mc). */
async function startServe(pair: Pair, command: string[], dir: string): Promise<ServeProcess> {
  const port = freePort();
  const memoryFile = join(dir, `memory-${port}.jsonl`);
  const proc = Bun.spawn(
    [
      ...command,
      "serve",
      CLUSTER,
      "--namespace",
      NS,
      "--kubeconfig",
      pair.westKubeconfig,
      `--probe-address=127.0.0.1:${pair.gateway.port}`,
      `--admin-addr=127.0.0.1:${port}`,
      "--log-level=warn",
      "--identity=mc-bench",
    ],
    {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1", MC_BENCH_MEMORY_FILE: memoryFile },
      stdout: "ignore",
      stderr: "ignore",
    },
  );
  await waitReady(`http://127.0.0.1:${port}/ready`, proc);
  let lines = 0;
  return {
    pid: proc.pid,
    async sample(label, mirrors) {
      proc.kill("SIGUSR2");
      for (let i = 0; i < 200; i++) {
        const text = await Bun.file(memoryFile)
          .text()
          .catch(() => "");
        const all = text.split("\n").filter(Boolean);
        if (all.length > lines) {
          const m = JSON.parse(all[lines]!) as { rss: number; heapUsed: number };
          lines = all.length;
          say(`${label}: rss ${mb(m.rss)}, heap ${mb(m.heapUsed)}`);
          return { label, mirrors, rss: m.rss, heapUsed: m.heapUsed };
        }
        await Bun.sleep(50);
      }
      throw new Error("mc serve did not answer the memory probe");
    },
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/** Waits until no mirror has been written for `quietMs` (the controller's work has settled; the Lease still renews). */
async function quiet(west: WestView, quietMs = 2000): Promise<void> {
  const mirrorWrites = () => west.ledger.counts.mirrorService + west.ledger.counts.mirrorEndpoints;
  for (;;) {
    const before = mirrorWrites();
    await Bun.sleep(quietMs);
    if (mirrorWrites() === before) return;
  }
}

/** Every exported Service relabelled (round `round`); resolves when every mirror carries it. */
async function churnRound(pair: Pair, west: WestView, n: number, round: number): Promise<void> {
  const services = pair.east.api.registry.findKind("v1", "Service")!;
  const value = `r${round}`;
  const carried = new Set<string>();
  const stop = west.ledger.on((kind, e) => {
    if (kind === "mirrorService" && e.object.metadata.labels?.round === value)
      carried.add(`${e.object.metadata.namespace}/${e.object.metadata.name}`);
  });
  try {
    for (let i = 0; i < n; i++) {
      const namespace = `ns-${i % NAMESPACES}`;
      const current = pair.east.api.get(services, namespace, `svc-${i}`);
      pair.east.api.update(
        services,
        namespace,
        `svc-${i}`,
        { ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, round: value } } },
        { fieldManager: "mc-bench" },
      );
    }
    // Every informer of east relists: its watches end and the history they would resume from is gone.
    pair.east.control.forgetHistory();
    pair.east.control.dropWatches();
    await west.until(() => carried.size >= n, `${n} mirrors relabelled ${value}`, 120_000 + n * 30);
  } finally {
    stop();
  }
}

export const memory: Scenario = {
  name: "memory",
  title: "Memory of mc serve (a subprocess): idle, per mirror, after churn",
  flags: {
    sizes: { default: "1000,10000", description: "mirrors, ascending" },
    rounds: { default: "5", description: "compressed churn rounds at the largest size (each relabels every Service and forces relists)" },
    binary: { default: "true", description: "also the compiled binary's idle RSS (builds dist/mc if missing)" },
  },
  async run(flags) {
    const sizes = numbers("sizes", flags.sizes!).sort((a, b) => a - b);
    const rounds = number("rounds", flags.rounds!);
    const dir = await mkdtemp(join(tmpdir(), "mc-bench-memory-"));
    const samples: Sample[] = [];
    let binaryIdleRss: number | undefined;
    try {
      if (yes(flags.binary!)) {
        const bin = await ensureBinary(false);
        const pair = await startPair({ namespaces: NAMESPACES, probePeriod: "3s" });
        try {
          const serve = await startServe(pair, [bin], dir);
          await Bun.sleep(3000);
          binaryIdleRss = await rssOf(serve.pid);
          say(`dist/mc serve idle: rss ${mb(binaryIdleRss)}`);
          await serve.stop();
        } finally {
          await pair.stop();
        }
      }
      const pair = await startPair({ namespaces: NAMESPACES, probePeriod: "3s" });
      const west = watchWest(pair);
      try {
        const serve = await startServe(pair, ["bun", "--preload", join(ROOT, "bench/lib/memory-probe.ts"), join(ROOT, "cmd/mc.ts")], dir);
        try {
          await Bun.sleep(3000);
          samples.push(await serve.sample("idle", 0));
          let seeded = 0;
          for (const n of sizes) {
            seedExported(pair.east, n - seeded, NAMESPACES, seeded);
            seeded = n;
            await allMirrored(west, n);
            await quiet(west);
            samples.push(await serve.sample(`${size(n)} mirrors`, n));
          }
          for (let r = 1; r <= rounds; r++) {
            await churnRound(pair, west, seeded, r);
            await quiet(west);
            samples.push(await serve.sample(`after churn round ${r}`, seeded));
          }
        } finally {
          await serve.stop();
        }
      } finally {
        west.close();
        await pair.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const idleSample = samples[0]!;
    const perMirror = (s: Sample) => (s.mirrors > 0 ? (s.heapUsed - idleSample.heapUsed) / s.mirrors : Number.NaN);
    const rssPerMirror = (s: Sample) => (s.mirrors > 0 ? (s.rss - idleSample.rss) / s.mirrors : Number.NaN);
    const largest = samples.filter((s) => s.label.endsWith("mirrors")).pop()!;
    const churned = samples.filter((s) => s.label.startsWith("after churn"));
    const growth = churned.length > 1 ? (churned[churned.length - 1]!.heapUsed - churned[0]!.heapUsed) / churned[0]!.heapUsed : Number.NaN;
    const heapKb = perMirror(largest) / 1024;
    return {
      tables: [
        {
          headers: ["when", "mirrors", "RSS", "heap (after GC)", "heap / mirror above idle", "RSS / mirror above idle"],
          rows: samples.map((s) => [
            s.label,
            String(s.mirrors),
            mb(s.rss),
            mb(s.heapUsed),
            s.mirrors ? kb(perMirror(s)) : "",
            s.mirrors ? kb(rssPerMirror(s)) : "",
          ]),
        },
      ],
      targets: [
        { name: `heap per mirror at ${size(largest.mirrors)}`, want: "≤ 10 KB", got: `${heapKb.toFixed(1)} KB`, met: heapKb <= 10 },
        {
          name: `heap growth over ${rounds - 1} churn rounds after the first`,
          want: "flat (≤ 5 %)",
          got: Number.isFinite(growth) ? `${(growth * 100).toFixed(1)} %` : "–",
          met: Number.isFinite(growth) ? growth <= 0.05 : undefined,
        },
        { name: "mc serve idle RSS (bun cmd/mc.ts)", want: "stated", got: mb(idleSample.rss) },
        ...(binaryIdleRss !== undefined ? [{ name: "mc serve idle RSS (dist/mc)", want: "stated", got: mb(binaryIdleRss) }] : []),
      ],
      figures: { samples, binaryIdleRss, heapPerMirrorBytes: perMirror(largest), churnGrowth: growth },
      notes: [
        "Heap is process.memoryUsage().heapUsed after Bun.gc(true), asked for with SIGUSR2 through bench/lib/memory-probe.ts (preloaded).",
      ],
    };
  },
};
