// The production prober (real clock, native fetch, AbortSignal.timeout) against a loopback
// Bun.serve gateway that answers 200 or 500, hangs, adds a delay, or is stopped. Short periods;
// every wait ends on an event (a liveness report or a round), guarded against hangs.
import { afterEach, describe, expect, test } from "bun:test";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { createMetrics, type Metrics } from "../../src/metrics.ts";
import type { GatewayStatus } from "../../src/model/link.ts";
import { proberFactory, type Prober, type RoundReport } from "../../src/prober/prober.ts";
import { probedLink, recordingLog, startGateway, within, type LoopbackGateway } from "./helpers.ts";

const PERIOD = "25ms";
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Live {
  gw: LoopbackGateway;
  prober: Prober;
  metrics: Metrics;
  writes: GatewayStatus[];
  /** Resolves at the next liveness report equal to `alive`. Ask before causing it. */
  next(alive: boolean): Promise<void>;
  /** Resolves once `n` more rounds have finished. */
  rounds(n: number): Promise<RoundReport[]>;
}

function live(
  mode: Parameters<typeof startGateway>[0],
  o: { timeout?: string; failureThreshold?: string; period?: string; fast?: boolean; targets?: (gw: LoopbackGateway) => string[] } = {},
): Live {
  const gw = startGateway(mode);
  const metrics = createMetrics();
  const writes: GatewayStatus[] = [];
  const waiters: Array<{ alive: boolean; resolve: () => void }> = [];
  const prober = proberFactory({ statusIntervalMs: 0, fastFailureDetection: o.fast ?? false })({
    link: probedLink({ period: o.period ?? PERIOD, timeout: o.timeout ?? "150ms", failureThreshold: o.failureThreshold ?? "2" }),
    targets: () => (o.targets ? o.targets(gw) : [gw.target]),
    onLiveness: (alive) => {
      for (const w of waiters.filter((x) => x.alive === alive)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    },
    writeStatus: async (s) => void writes.push(s),
    metrics,
    log: recordingLog(),
  });
  cleanups.push(async () => {
    await prober.stop();
    await gw.stop();
  });
  return {
    gw,
    prober,
    metrics,
    writes,
    next: (alive) => within(new Promise<void>((resolve) => waiters.push({ alive, resolve })), `gateway ${alive ? "alive" : "dead"}`),
    rounds: (n) =>
      within(
        new Promise<RoundReport[]>((resolve) => {
          const seen: RoundReport[] = [];
          const off = prober.onRound((r) => {
            seen.push(r);
            if (seen.length === n) {
              off();
              resolve(seen);
            }
          });
        }),
        `${n} probe rounds`,
      ),
  };
}

async function gauge(m: Metrics, name: string): Promise<string | undefined> {
  return parsePrometheusTextFormat(await m.registry.metrics())
    .find((f) => f.name === name)
    ?.metrics.find((s) => s.labels?.target_cluster_name === "east")?.value;
}

describe("prober against a loopback gateway", () => {
  test("a gateway that answers 200 stays alive and reports nothing", async () => {
    const t = live("ok");
    const done = t.rounds(3);
    t.prober.start();
    const rounds = await done;
    expect(rounds.map((r) => [r.outcome.ok, r.transition])).toEqual([
      [true, undefined],
      [true, undefined],
      [true, undefined],
    ]);
    expect(t.gw.requests).toBeGreaterThanOrEqual(3);
    expect(await gauge(t.metrics, "gateway_alive")).toBe("1");
    expect(t.writes[0]).toMatchObject({ alive: true, consecutiveFailures: 0 });
  });

  test("a gateway that answers 500 is dead after failureThreshold probes", async () => {
    const t = live("fail");
    const dead = t.next(false);
    const rounds = t.rounds(2);
    t.prober.start();
    await dead;
    expect((await rounds).map((r) => (r.outcome.ok ? "ok" : r.outcome.failure))).toEqual([
      { kind: "status", status: 500 },
      { kind: "status", status: 500 },
    ]);
    expect(await gauge(t.metrics, "gateway_alive")).toBe("0");
    expect(t.prober.health()).toMatchObject({ alive: false, consecutiveFailures: 2 });
  });

  test("a gateway that hangs fails each probe at the timeout", async () => {
    const t = live("hang", { timeout: "60ms" });
    const dead = t.next(false);
    const rounds = t.rounds(2);
    t.prober.start();
    await dead;
    expect((await rounds).map((r) => (r.outcome.ok ? "ok" : r.outcome.failure.kind))).toEqual(["timeout", "timeout"]);
  });

  test("a stopped gateway goes dead, and alive again once it is back on its port", async () => {
    const t = live("ok");
    const ok = t.rounds(1);
    t.prober.start();
    await ok;
    const dead = t.next(false);
    await t.gw.stop();
    await dead;
    expect(t.writes.at(-1)).toMatchObject({ alive: false, consecutiveFailures: 2 });
    const alive = t.next(true);
    t.gw.restart();
    await alive;
    expect(await gauge(t.metrics, "gateway_alive")).toBe("1");
    expect(t.writes.at(-1)).toMatchObject({ alive: true, consecutiveFailures: 0 });
  });

  test("a known gateway delay shows in the latency percentiles and gauges", async () => {
    const t = live("ok", { timeout: "1s" });
    t.gw.delayMs = 40;
    const rounds = t.rounds(4);
    t.prober.start();
    await rounds;
    const latency = t.prober.health().latencyMs!;
    for (const p of [latency.p50, latency.p95, latency.p99]) {
      expect(p).toBeGreaterThanOrEqual(39);
      expect(p).toBeLessThan(1000);
    }
    expect(Number(await gauge(t.metrics, "gateway_latency"))).toBeGreaterThanOrEqual(39);
    expect(t.writes.at(-1)?.latency?.p50).toMatch(/^\d+ms$/);
  });

  test("one dead address of several makes the gateway dead, and says which", async () => {
    const other = startGateway("ok");
    await other.stop(); // a port nothing listens on
    const t = live("ok", { failureThreshold: "1", targets: (gw) => [gw.target, other.target] });
    const dead = t.next(false);
    const round = t.rounds(1);
    t.prober.start();
    await dead;
    const [r] = await round;
    expect(r!.targets.map((x) => [x.target, x.ok])).toEqual([
      [t.gw.target, true],
      [other.target, false],
    ]);
    expect(r!.targets[1]!.failure).toEqual({ kind: "transport", message: "connection refused" });
  });

  test("with --fast-failure-detection, a gateway that accepts connections and stops answering is dead long before one timeout", async () => {
    const t = live("ok", { period: "200ms", timeout: "30s", failureThreshold: "3", fast: true });
    const answered = t.rounds(2);
    t.prober.start();
    await answered;
    const dead = t.next(false);
    const rounds = t.rounds(3);
    rounds.catch(() => {}); // its failure is the missing report's
    t.gw.mode = "hang";
    await dead; // guarded: 5 s, where three 30 s timeouts would take 90
    const failures = (await rounds).map((r) => (r.outcome.ok ? undefined : r.outcome.failure));
    expect(failures.map((f) => f?.kind)).toEqual(["timeout", "timeout", "timeout"]);
    // Each probe counted as failed after max(period/30, 2 × the p99 of its answers), never the 30 s timeout.
    for (const f of failures) expect(f?.kind === "timeout" && f.timeoutMs < 30_000).toBe(true);
  });

  test("with --fast-failure-detection, a gateway slower than period/10 is slow, not dead", async () => {
    const t = live("ok", { period: "200ms", timeout: "30s", failureThreshold: "2", fast: true });
    t.gw.delayMs = 60; // three times period/10
    const rounds = t.rounds(6);
    t.prober.start();
    expect((await rounds).map((r) => r.outcome.ok)).toEqual([true, true, true, true, true, true]);
    expect(t.prober.health()).toMatchObject({ alive: true, consecutiveFailures: 0 });
  });

  test("stop() during a hanging probe returns at once and leaves no series", async () => {
    const t = live("hang", { timeout: "5s" });
    const requested = t.gw.nextRequest();
    t.prober.start();
    await within(requested, "the first probe request"); // the first round is in flight
    const started = performance.now();
    await t.prober.stop();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await t.metrics.registry.metrics()).not.toContain('target_cluster_name="east"');
  });
});
