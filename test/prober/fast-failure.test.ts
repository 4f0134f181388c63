// --fast-failure-detection on a ManualClock: a failed probe is confirmed at period/10 until the
// threshold decides, so at the default 3 s × 3 a dead gateway is noticed within 4 s; while the
// gateway is healthy (or already dead) rounds keep Linkerd's schedule, and one lost probe does
// not flip liveness.
import { describe, expect, test } from "bun:test";
import type { Answer } from "./helpers.ts";
import { rig } from "./rig.ts";

const DEFAULTS = { period: "3s", failureThreshold: "3" };

/** Clock times (ms after start) of every round, and of every liveness report. */
function timeline(r: ReturnType<typeof rig>) {
  const t0 = r.clock.now();
  const rounds: number[] = [];
  const reports: Array<[number, boolean]> = [];
  r.prober.onRound((report) => {
    rounds.push(report.outcome.at - t0);
    if (report.transition) reports.push([report.outcome.at - t0, report.transition === "became-alive"]);
  });
  return { rounds, reports };
}

describe("fast failure detection", () => {
  test("a gateway that dies just after a probe is noticed within 4 s, even at the largest jitter", async () => {
    let dead = false;
    const r = rig(() => (dead ? "refused" : 200), { link: DEFAULTS, deps: { fastFailureDetection: true, random: () => 0.999 } });
    const t = timeline(r);
    r.prober.start();
    await r.tick(); // a success at 3.3 s
    const diedAt = t.rounds[0]!;
    dead = true;
    while (r.liveness.length === 0) await r.tick();
    expect(r.liveness).toEqual([false]);
    const noticedAfter = t.reports[0]![0] - diedAt;
    expect(noticedAfter).toBeLessThanOrEqual(4000);
    // One full period (+ jitter) to the failing probe, then two confirmations at 300 ms each.
    expect(t.rounds.slice(1).map((at, i) => Math.round(at - t.rounds[i]!))).toEqual([3300, 300, 300]);
    expect(r.log.at("info")).toContain("gateway east probe failed (1 of 3 before it counts as dead): 10.0.0.1:4191: connection refused; probing again in 300ms");
    await r.prober.stop();
  });

  test("a gateway that hangs just after a probe is noticed within period + jitter + threshold × period/10: a probe unanswered for period/10 failed", async () => {
    let hung = false;
    const r = rig(() => (hung ? "hang" : 200), { link: { ...DEFAULTS, timeout: "30s" }, deps: { fastFailureDetection: true, random: () => 0.999 } });
    const t = timeline(r);
    r.prober.start();
    await r.tick(); // a success at 3.3 s
    const hungAt = t.rounds[0]!;
    hung = true;
    while (r.liveness.length === 0) await r.tick();
    expect(r.liveness).toEqual([false]);
    // The next round at one period + jitter, each of three probes unanswered for 300 ms: 4.2 s at
    // the largest jitter (it was 3 × 30 s); a hang that starts 200 ms after a probe is seen within 4 s.
    expect(Math.round(t.reports[0]![0] - hungAt)).toBe(3300 + 3 * 300);
    expect(r.log.at("info")).toContain("gateway east probe failed (1 of 3 before it counts as dead): 10.0.0.1:4191: no answer within 300ms; probing again in 300ms");
    await r.prober.stop();
  });

  test("without the flag a hung gateway costs threshold × timeout, as Linkerd", async () => {
    const r = rig((_, n) => (n === 1 ? 200 : "hang"), { link: { ...DEFAULTS, timeout: "30s" } });
    const t = timeline(r);
    r.prober.start();
    while (r.liveness.length === 0) await r.tick();
    // One period to the next round, then three 30 s timeouts back to back: 93 s.
    expect(t.reports[0]![0] - t.rounds[0]!).toBe(3000 + 3 * 30_000);
    await r.prober.stop();
  });

  test("a gateway that has not answered yet gets the whole timeout, even with the flag (no answer to tell slow from hung)", async () => {
    const r = rig(() => "hang", { link: { ...DEFAULTS, timeout: "10s" }, deps: { fastFailureDetection: true } });
    const t = timeline(r);
    r.prober.start();
    await r.tick();
    expect(t.rounds).toEqual([13_000]);
    await r.prober.stop();
  });

  test("while the gateway is healthy it probes once a period, as without the flag", async () => {
    const rounds = async (fast: boolean) => {
      const r = rig(() => 200, { link: DEFAULTS, deps: { fastFailureDetection: fast } });
      const t = timeline(r);
      r.prober.start();
      while (r.clock.now() - Date.parse("2026-12-02T10:00:00Z") < 60_000) await r.tick();
      await r.prober.stop();
      return t.rounds;
    };
    const fast = await rounds(true);
    expect(fast).toEqual(await rounds(false));
    expect(fast.slice(1).map((at, i) => at - fast[i]!)).toEqual(Array(fast.length - 1).fill(3000));
  });

  test("one lost probe is confirmed once, changes nothing, and the period resumes", async () => {
    const script: Answer[] = [200, 500, 200, 200];
    const r = rig((_, n) => script[n - 1] ?? 200, { link: DEFAULTS, deps: { fastFailureDetection: true } });
    const t = timeline(r);
    r.prober.start();
    for (let i = 0; i < script.length; i++) await r.tick();
    expect(r.liveness).toEqual([]);
    expect(t.rounds).toEqual([3000, 6000, 6300, 9300]);
    expect(r.prober.health()).toMatchObject({ alive: true, consecutiveFailures: 0 });
    await r.prober.stop();
  });

  test("once dead it probes once a period again, and one success revives it", async () => {
    let dead = true;
    const r = rig(() => (dead ? 500 : 200), { link: DEFAULTS, deps: { fastFailureDetection: true } });
    const t = timeline(r);
    r.prober.start();
    while (r.liveness.length === 0) await r.tick();
    expect(t.rounds).toEqual([3000, 3300, 3600]);
    await r.tick();
    await r.tick();
    expect(t.rounds.slice(3)).toEqual([6600, 9600]);
    dead = false;
    await r.tick();
    expect(r.liveness).toEqual([false, true]);
    expect(t.rounds.slice(5)).toEqual([12_600]);
    await r.prober.stop();
  });

  test("without the flag a failure is confirmed at the period, as Linkerd: dead after 3 periods", async () => {
    const r = rig(() => 500, { link: DEFAULTS });
    const t = timeline(r);
    r.prober.start();
    while (r.liveness.length === 0) await r.tick();
    expect(t.rounds).toEqual([3000, 6000, 9000]);
    await r.prober.stop();
  });

  test("at threshold 1 the first failure is the verdict: nothing to confirm", async () => {
    const r = rig(() => 500, { link: { ...DEFAULTS, failureThreshold: "1" }, deps: { fastFailureDetection: true } });
    const t = timeline(r);
    r.prober.start();
    await r.tick();
    await r.tick();
    expect(r.liveness).toEqual([false]);
    expect(t.rounds).toEqual([3000, 6000]);
    await r.prober.stop();
  });
});
