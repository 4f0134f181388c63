// --fast-failure-detection on a ManualClock: confirmations at period/10, a probe unanswered for
// period/30 failed, so at 3 s × 3 a dead or hung gateway is noticed within 4 s at every jitter; while
// healthy (or dead) rounds keep Linkerd's schedule, and one lost probe does not flip liveness.
import { describe, expect, test } from "bun:test";
import type { FetchLike } from "../../src/prober/probe.ts";
import type { ManualClock } from "../../src/runtime/clock.ts";
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
    expect(r.log.at("info")).toContain(
      "gateway east probe failed (1 of 3 before it counts as dead): 10.0.0.1:4191: connection refused; probing again in 300ms",
    );
    await r.prober.stop();
  });

  test("a gateway that hangs just after a probe is noticed within 4 s: a probe unanswered for period/30 failed", async () => {
    let hung = false;
    const r = rig(() => (hung ? "hang" : 200), {
      link: { ...DEFAULTS, timeout: "30s" },
      deps: { fastFailureDetection: true, random: () => 0.999 },
    });
    const t = timeline(r);
    r.prober.start();
    await r.tick(); // a success at 3.3 s
    const hungAt = t.rounds[0]!;
    hung = true;
    while (r.liveness.length === 0) await r.tick();
    expect(r.liveness).toEqual([false]);
    // The next round at one period + jitter, confirmations every 300 ms, the last one unanswered
    // for 100 ms (it was 3 × 30 s, then 4.2 s with period/10).
    expect(t.rounds.slice(1).map((at, i) => Math.round(at - t.rounds[i]!))).toEqual([3400, 300, 300]);
    expect(Math.round(t.reports[0]![0] - hungAt)).toBe(3300 + 2 * 300 + 100);
    expect(r.log.at("info")).toContain(
      "gateway east probe failed (1 of 3 before it counts as dead): 10.0.0.1:4191: no answer within 100ms; probing again in 300ms",
    );
    await r.prober.stop();
  });

  test("at 3 s × 3, every jitter and every mix of refused, HTTP 500 and hung probes is noticed within 4 s of the last answer", async () => {
    const jitters = [0, 0.25, 0.5, 0.75, 0.999, 1 - 2 ** -53]; // Math.random's range is [0, 1)
    const kinds: Answer[] = ["refused", 500, "hang"];
    const seen: Array<{ jitter: number; script: Answer[]; ms: number }> = [];
    for (const jitter of jitters) {
      for (const a of kinds)
        for (const b of kinds)
          for (const c of kinds) {
            const script: Answer[] = [200, a, b, c];
            const r = rig((_, n) => script[n - 1] ?? 500, {
              link: { ...DEFAULTS, timeout: "30s" },
              deps: { fastFailureDetection: true, random: () => jitter },
            });
            const t = timeline(r);
            r.prober.start();
            await r.tick(); // the last answer, at once: the failure starts just after it
            while (r.liveness.length === 0) await r.tick();
            expect(r.urls.length).toBe(4); // dead on the third failed probe, nothing more
            seen.push({ jitter, script, ms: t.reports[0]![0] - t.rounds[0]! });
            await r.prober.stop();
          }
    }
    const worst = seen.reduce((w, s) => (s.ms > w.ms ? s : w));
    expect(seen.length).toBe(jitters.length * 27);
    expect(seen.filter((s) => s.ms > 4000)).toEqual([]);
    // The bound is reached, not just respected: the largest jitter, then a hung last confirmation.
    expect(worst.jitter).toBe(1 - 2 ** -53);
    expect(worst.script[3]).toBe("hang");
    expect(worst.ms).toBeCloseTo(3000 + 300 + 2 * 300 + 100, 6);
    // A refused or failing gateway is noticed as before: period + jitter + 2 × period/10 ≤ 3.9 s.
    const answered = seen.filter((s) => s.script[3] !== "hang");
    expect(Math.max(...answered.map((s) => s.ms))).toBeCloseTo(3900, 6);
  });

  test("a gateway answering in 250 ms or 900 ms (over period/30, and 3 × period/10) stays alive: twice its p99 is its deadline", async () => {
    for (const answerMs of [250, 900]) {
      // Answers 200 after answerMs on the rig's clock (so the deadline decides), or fails at its abort.
      let clock: ManualClock | undefined;
      const fetch: FetchLike = (_url, init) =>
        new Promise<Response>((resolve, reject) => {
          const cancel = clock!.setTimer(answerMs, () => resolve(new Response("ready\n")));
          init.signal.addEventListener("abort", () => (cancel(), reject(init.signal.reason)), { once: true });
        });
      const r = rig(() => 200, { link: { ...DEFAULTS, timeout: "30s" }, deps: { fastFailureDetection: true, fetch } });
      clock = r.clock;
      r.prober.start();
      for (let i = 0; i < 20; i++) await r.tick();
      expect(r.liveness).toEqual([]);
      expect(r.prober.health()).toMatchObject({ alive: true, consecutiveFailures: 0, latencyMs: { p99: answerMs } });
      await r.prober.stop();
    }
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
