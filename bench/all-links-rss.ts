// Idle memory of one `mc serve --all` process against one `mc serve LINK` process per Link (the goal: each added Link costs at most 5 MB in
// the shared process).
import { mkdtemp, rm } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_NAMESPACE, MAX_HTTP_REQUESTS, MAX_HTTP_REQUESTS_ENV } from "../src/model/names.ts";
import { mirrorCounter, startManyLinks } from "./lib/many-links.ts";

// For each count of Links, fresh sandboxes in this process: a target `east` with S exported Services
// (and Endpoints), and `west` holding N Links to it (cluster names l0…, so each Link mirrors all S),
// their credentials Secrets and a loopback gateway the probes answer. The controllers run as
// subprocesses (`bun cmd/mc.ts serve …`, --probe-address at the loopback gateway); once west holds
// every mirror and a few seconds have passed, their resident set sizes (/proc/<pid>/status VmRSS) are
// sampled five times a second apart and the median printed, summed over processes for the per-Link
// form.
//   bun bench/all-links-rss.ts [counts=1,10,50] [services=100] [idle-seconds=5]
// BENCH_TIMEOUT_S (default 300) bounds each wait for the mirrors; BENCH_LOG=<path> keeps each
// controller's stderr there, at BENCH_LEVEL (default warn).

const counts = (process.argv[2] ?? "1,10,50").split(",").map(Number);
const SERVICES = Number(process.argv[3] ?? 100);
const IDLE_MS = Number(process.argv[4] ?? 5) * 1000;
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 300) * 1000;
const MC = join(import.meta.dir, "..", "cmd", "mc.ts");

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : 0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs the processes until every mirror exists, idles, and returns the median of the summed RSS (MB). */
async function measure(links: number, argvs: string[][]): Promise<{ mb: number; syncMs: number }> {
  const dir = await mkdtemp(join(tmpdir(), "mc-bench-rss-"));
  const c = await startManyLinks(links, SERVICES, dir);
  const counter = mirrorCounter(c.west);
  const started = Date.now();
  const procs = argvs.map((args) =>
    Bun.spawn(
      [
        "bun",
        MC,
        "--kubeconfig",
        c.westPath,
        "serve",
        "--namespace",
        DEFAULT_NAMESPACE,
        "--admin-addr",
        "127.0.0.1:0",
        `--probe-address=127.0.0.1:${c.gatewayPort}`,
        `--log-level=${process.env.BENCH_LEVEL ?? "warn"}`,
        ...args,
      ],
      {
        // As mc install --shared-controller runs it: 50 Links' watches exceed Bun's default 256 concurrent requests.
        env: { ...process.env, NO_COLOR: "1", [MAX_HTTP_REQUESTS_ENV]: String(MAX_HTTP_REQUESTS) },
        stdin: "ignore",
        stdout: "ignore",
        stderr: process.env.BENCH_LOG ? Bun.file(`${process.env.BENCH_LOG}.${args.join("_").replace(/[^a-z0-9_-]/gi, "")}`) : "ignore",
      },
    ),
  );
  try {
    const want = links * SERVICES;
    for (;;) {
      if (counter.total() >= want) break;
      const dead = procs.find((p) => p.exitCode !== null);
      if (dead) throw new Error(`a controller exited (${dead.exitCode}) before mirroring`);
      if (Date.now() - started > TIMEOUT_MS)
        throw new Error(
          `only ${counter.total()} of ${want} mirrors after ${TIMEOUT_MS / 1000} s; per cluster: ${JSON.stringify(counter.perCluster)}`,
        );
      await Bun.sleep(200);
    }
    const syncMs = Date.now() - started;
    await Bun.sleep(IDLE_MS);
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) {
      samples.push(procs.reduce((sum, p) => sum + rssKb(p.pid), 0));
      await Bun.sleep(1000);
    }
    return { mb: median(samples) / 1024, syncMs };
  } finally {
    counter.close();
    for (const p of procs) p.kill();
    await Promise.all(procs.map((p) => p.exited));
    await c.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

const rows: Array<{ links: number; shared: number; perLink: number; sharedSync: number; perLinkSync: number }> = [];
for (const n of counts) {
  const shared = await measure(n, [["--all", "--identity=bench-all"]]);
  const perLink = await measure(
    n,
    Array.from({ length: n }, (_, l) => [`--identity=bench-l${l}`, `l${l}`]),
  );
  rows.push({ links: n, shared: shared.mb, perLink: perLink.mb, sharedSync: shared.syncMs, perLinkSync: perLink.syncMs });
  console.error(
    `${n} links: --all ${shared.mb.toFixed(1)} MB (synced in ${shared.syncMs} ms), ${n} processes ${perLink.mb.toFixed(1)} MB (synced in ${perLink.syncMs} ms)`,
  );
}

const base = rows[0]!;
console.log(
  `\nIdle RSS, ${SERVICES} exported services per Link (median of 5 samples after ${IDLE_MS / 1000} s idle; bun ${Bun.version}, ${navigator.hardwareConcurrency} cores)\n`,
);
console.log("| Links | one `mc serve --all` | `mc serve LINK` × N | ratio | per added Link (--all) |");
console.log("| ---: | ---: | ---: | ---: | ---: |");
for (const r of rows) {
  const added = r.links > base.links ? `${((r.shared - base.shared) / (r.links - base.links)).toFixed(2)} MB` : "—";
  console.log(`| ${r.links} | ${r.shared.toFixed(1)} MB | ${r.perLink.toFixed(1)} MB | ${(r.perLink / r.shared).toFixed(1)}× | ${added} |`);
}
