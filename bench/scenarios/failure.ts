// Failure detection: with N mirrored and the Link's probe at Linkerd's defaults (period 3 s, failure threshold 3), the fake gateway stops
// at a random point of the probe cycle (probes are refused, as with a dead gateway) until every mirror's Endpoints are not ready, then
// starts again until all are ready. Both as Linkerd does it and with --fast-failure-detection.
import type { Prober } from "../../src/prober/index.ts";
import { withMirrors } from "../lib/controller.ts";
import { number, say, type Scenario } from "../lib/scenario.ts";
import { median, ms } from "../lib/stats.ts";

// Target: with the flag, a dead gateway noticed in ≤ 4 s.

const NAMESPACES = 10;
const PERIOD_MS = 3000;
const THRESHOLD = 3;

interface Run {
  noticedMs: number;
  allNotReadyMs: number;
  allReadyMs: number;
}

interface Mode {
  name: string;
  fast: boolean;
  runs: Run[];
}

async function measure(n: number, runs: number, fast: boolean): Promise<Run[]> {
  return withMirrors(
    n,
    { namespaces: NAMESPACES, probePeriod: `${PERIOD_MS / 1000}s`, failureThreshold: String(THRESHOLD), probeTimeout: "30s" },
    { prober: { fastFailureDetection: fast } },
    async (pair, m) => {
      const prober = m.controller.probe as Prober;
      let deadAt = Number.NaN;
      prober.onRound((r) => {
        if (r.transition === "became-dead") deadAt = performance.now();
      });
      const out: Run[] = [];
      for (let i = 0; i < runs; i++) {
        await Bun.sleep(Math.random() * PERIOD_MS);
        const t0 = performance.now();
        await pair.gateway.kill();
        await m.until(() => m.notReady.size >= n, `${n} mirror Endpoints not ready`, 60_000);
        const allNotReadyMs = performance.now() - t0;
        const noticedMs = deadAt - t0;
        const t1 = performance.now();
        pair.gateway.restart();
        await m.until(() => m.ready.size >= n, `${n} mirror Endpoints ready`, 60_000);
        const allReadyMs = performance.now() - t1;
        await m.settle();
        out.push({ noticedMs, allNotReadyMs, allReadyMs });
        say(
          `${fast ? "fast" : "Linkerd's"} run ${i + 1}: noticed after ${ms(noticedMs)}, all not ready after ${ms(allNotReadyMs)}, ready again after ${ms(allReadyMs)}`,
        );
      }
      return out;
    },
  );
}

export const failure: Scenario = {
  name: "failure",
  title: "Failure detection: gateway stop → mirrors not ready, restart → ready",
  flags: {
    mirrors: { default: "100", description: "exported Services mirrored" },
    runs: { default: "3", description: "stops and restarts per mode" },
  },
  async run(flags) {
    const n = number("mirrors", flags.mirrors!);
    const runs = number("runs", flags.runs!);
    const modes: Mode[] = [];
    for (const [name, fast] of [
      ["as Linkerd (period × threshold)", false],
      ["--fast-failure-detection", true],
    ] as const)
      modes.push({ name, fast, runs: await measure(n, runs, fast) });
    const fast = modes.find((m) => m.fast)!;
    const worstFast = Math.max(...fast.runs.map((r) => r.noticedMs));
    const row = (m: Mode, f: (r: Run) => number) => `${ms(median(m.runs.map(f)))} (max ${ms(Math.max(...m.runs.map(f)))})`;
    return {
      tables: [
        {
          headers: ["mode", "gateway stop → noticed", `→ all ${n} Endpoints not ready`, `restart → all ready`, "bound"],
          rows: modes.map((m) => [
            m.name,
            row(m, (r) => r.noticedMs),
            row(m, (r) => r.allNotReadyMs),
            row(m, (r) => r.allReadyMs),
            m.fast ? "≤ 4 s" : `${ms(PERIOD_MS * THRESHOLD)} + jitter`,
          ]),
        },
      ],
      targets: [
        { name: "dead gateway noticed, --fast-failure-detection (worst run)", want: "≤ 4 s", got: ms(worstFast), met: worstFast <= 4000 },
      ],
      figures: { mirrors: n, periodMs: PERIOD_MS, threshold: THRESHOLD, modes },
      notes: [
        `Probe period ${PERIOD_MS / 1000} s, threshold ${THRESHOLD}, timeout 30 s; a stopped gateway refuses connections. Medians (max) of ${runs} runs, each stopped at a random point of the probe cycle.`,
      ],
    };
  },
};
