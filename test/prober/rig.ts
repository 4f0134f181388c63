// The prober on a ManualClock with a scripted fetch, for tests that step it round by round.
import { ManualClock } from "../../src/runtime/clock.ts";
import { createMetrics, type Metrics } from "../../src/metrics.ts";
import type { GatewayStatus } from "../../src/model/link.ts";
import { proberFactory, type Prober, type ProberDeps } from "../../src/prober/prober.ts";
import { manualTimeout, probedLink, recordingLog, scriptedFetch, type Answer, type RecordingLog } from "./helpers.ts";

export interface Rig {
  clock: ManualClock;
  prober: Prober;
  metrics: Metrics;
  log: RecordingLog;
  liveness: boolean[];
  writes: Array<{ at: number; status: GatewayStatus }>;
  urls: string[];
  /** Fires timers until one more round has finished, and waits for it (and any status write). */
  tick(): Promise<void>;
}

export function rig(
  answer: (url: string, call: number) => Answer,
  o: {
    targets?: () => string[];
    link?: Parameters<typeof probedLink>[0];
    deps?: ProberDeps;
    delayMs?: number;
    writeStatus?: (s: GatewayStatus) => Promise<void>;
  } = {},
): Rig {
  const clock = new ManualClock(Date.parse("2026-12-02T10:00:00Z"));
  // Latency is measured on `elapsed`: each request adds `delayMs` to it, so latencies are exact
  // while the clock (and so the schedule) stays where the test put it.
  let extra = 0;
  const fetch = scriptedFetch(answer, () => void (extra += o.delayMs ?? 0));
  const metrics = createMetrics();
  const log = recordingLog();
  const liveness: boolean[] = [];
  const writes: Rig["writes"] = [];
  const prober = proberFactory({
    clock,
    elapsed: () => clock.now() + extra,
    fetch,
    random: () => 0,
    timeoutSignal: manualTimeout(clock),
    ...o.deps,
  })({
    link: probedLink(o.link),
    targets: o.targets ?? (() => ["10.0.0.1:4191"]),
    onLiveness: (alive) => void liveness.push(alive),
    writeStatus: o.writeStatus ?? (async (status) => void writes.push({ at: clock.now(), status })),
    metrics,
    log,
  });
  let rounds = 0;
  prober.onRound(() => void rounds++);
  return {
    clock,
    prober,
    metrics,
    log,
    liveness,
    writes,
    urls: fetch.urls,
    async tick() {
      // Fire timers in order (status timers, spent timeouts) until one more round has finished.
      const before = rounds;
      for (;;) {
        if (rounds !== before) return await prober.idle();
        const next = clock.pendingDelays()[0];
        if (next === undefined) throw new Error("no timer pending: the prober is not scheduled");
        clock.advance(next);
        // A hanging probe ends only when the clock passes its timeout: wait for the round, or
        // until every settled promise has run (then the next timer is the hang's timeout).
        await Promise.race([prober.idle(), new Promise((resolve) => setImmediate(resolve))]);
      }
    },
  };
}
