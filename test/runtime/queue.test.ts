// WorkQueue: a key processed once at a time, retries with backoff up to the limit, drain and stop.
import { describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { kubeError } from "../../src/kube/kube-error.ts";
import { WorkQueue } from "../../src/runtime/queue.ts";
import type { Logger } from "../../src/log.ts";

const quiet: Logger = { error() {}, warn() {}, info() {}, debug() {} };

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const retryable = () => kubeError({ verb: "update", target: "services a/b on east", code: 409, reason: "Conflict" });
const terminal = () => kubeError({ verb: "update", target: "services a/b on east", code: 422, reason: "Invalid" });

describe("WorkQueue", () => {
  test("a key added several times before it runs is processed once", async () => {
    const seen: string[] = [];
    const q = new WorkQueue<string>((k) => void seen.push(k), { log: quiet });
    for (const k of ["a", "b", "a", "a", "b", "c"]) q.add(k);
    expect(q.length).toBe(3);
    await q.drain();
    expect(seen).toEqual(["a", "b", "c"]);
  });

  test("a key is never run by two workers at once, and an add while it runs re-runs it after", async () => {
    let running = 0;
    let maxOnA = 0;
    let runsOfA = 0;
    const gate = deferred();
    const started = deferred();
    const q = new WorkQueue<string>(
      async (k) => {
        if (k !== "a") return;
        runsOfA++;
        running++;
        maxOnA = Math.max(maxOnA, running);
        if (runsOfA === 1) {
          started.resolve();
          await gate.promise;
        }
        running--;
      },
      { workers: 4, log: quiet },
    );
    q.start();
    q.add("a");
    await started.promise;
    q.add("a"); // while a runs: marked dirty, not started on another worker
    q.add("a");
    q.add("b");
    await Promise.resolve();
    expect(runsOfA).toBe(1); // idle workers did not pick a up; it waits for its current run
    gate.resolve();
    await q.drain();
    await q.stop();
    expect(maxOnA).toBe(1);
    expect(runsOfA).toBe(2);
  });

  test("different keys run concurrently up to the worker count", async () => {
    let running = 0;
    let peak = 0;
    const release = deferred();
    let arrived = 0;
    const allArrived = deferred();
    const q = new WorkQueue<string>(
      async () => {
        running++;
        peak = Math.max(peak, running);
        if (++arrived === 3) allArrived.resolve();
        await release.promise;
        running--;
      },
      { workers: 3, log: quiet },
    );
    for (const k of ["a", "b", "c", "d", "e"]) q.add(k);
    const drained = q.drain();
    await allArrived.promise;
    expect(running).toBe(3);
    release.resolve();
    await drained;
    expect(peak).toBe(3);
  });

  test("a retryable failure is retried after a per-key backoff that doubles", async () => {
    const clock = new ManualClock();
    let calls = 0;
    const q = new WorkQueue<string>(
      () => {
        calls++;
        if (calls < 3) throw retryable();
      },
      { clock, backoff: { initialMs: 100, maxMs: 10_000, jitter: 0 }, log: quiet },
    );
    q.add("a");
    const firstDelay = clock.nextTimer();
    expect(await q.processNext()).toBe(true);
    expect(await firstDelay).toBe(100);
    expect(q.length).toBe(0);
    clock.advance(99);
    expect(q.length).toBe(0);
    clock.advance(1);
    expect(q.length).toBe(1);
    const secondDelay = clock.nextTimer();
    await q.processNext();
    expect(await secondDelay).toBe(200);
    expect(q.attempts("a")).toBe(2);
    clock.advance(200);
    await q.processNext();
    expect(calls).toBe(3);
    expect(q.attempts("a")).toBe(0); // success forgets the failures
    expect(q.isIdle).toBe(true);
  });

  test("by default a key's retries start at ~500 ms and double: the requeue limit's 3 are not spent within a blip (they were, in 350 ms)", async () => {
    const clock = new ManualClock();
    const q = new WorkQueue<string>(
      () => {
        throw retryable();
      },
      { clock, log: quiet },
    );
    q.add("a");
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      const delay = clock.nextTimer();
      await q.processNext();
      delays.push(await delay);
      clock.advance(delays.at(-1)!);
    }
    // 10% jitter at most, each.
    expect(delays.map((d, i) => d >= 500 * 2 ** i * 0.9 && d <= 500 * 2 ** i)).toEqual([true, true, true]);
    expect(delays.reduce((a, b) => a + b)).toBeGreaterThanOrEqual(3150);
    await q.stop();
  });

  test("a key that keeps failing is dropped after the requeue limit and reported", async () => {
    const given: Array<[string, number]> = [];
    let calls = 0;
    const q = new WorkQueue<string>(
      () => {
        calls++;
        throw retryable();
      },
      {
        requeueLimit: 3,
        backoff: { initialMs: 1, maxMs: 2, jitter: 0 },
        onGiveUp: (k, _e, n) => given.push([k, n]),
        log: quiet,
      },
    );
    q.add("a");
    await q.drain();
    expect(calls).toBe(4); // the first run plus three requeues
    expect(given).toEqual([["a", 4]]);
  });

  test("a terminal failure is reported once and not retried", async () => {
    const given: string[] = [];
    let calls = 0;
    const q = new WorkQueue<string>(
      () => {
        calls++;
        throw terminal();
      },
      { onGiveUp: (k) => given.push(k), log: quiet },
    );
    q.add("a");
    await q.drain();
    expect(calls).toBe(1);
    expect(given).toEqual(["a"]);
    expect(q.delayedCount).toBe(0);
  });

  test("any error's retry hint decides: isRetryable false is not retried, retryAfterMs delays the retry; a plain error is retried", async () => {
    const clock = new ManualClock();
    const given: string[] = [];
    const thrown: Record<string, unknown> = {
      hinted: Object.assign(new Error("busy"), { isRetryable: true, retryAfterMs: 2_000 }),
      refused: Object.assign(new Error("bad"), { isRetryable: false }),
      plain: new Error("plain"),
    };
    const q = new WorkQueue<string>(
      (k) => {
        throw thrown[k];
      },
      { clock, backoff: { initialMs: 100, maxMs: 10_000, jitter: 0 }, onGiveUp: (k) => given.push(k), log: quiet },
    );
    q.add("hinted");
    const hinted = clock.nextTimer();
    await q.processNext();
    expect(await hinted).toBe(2_000);
    q.add("refused");
    await q.processNext();
    expect(given).toEqual(["refused"]);
    q.add("plain");
    const plain = clock.nextTimer();
    await q.processNext();
    expect(await plain).toBe(100);
    expect(q.delayedCount).toBe(2);
  });

  test("drain waits for delayed retries to run", async () => {
    let calls = 0;
    const q = new WorkQueue<string>(
      () => {
        if (++calls === 1) throw retryable();
      },
      { backoff: { initialMs: 5, maxMs: 5, jitter: 0 }, log: quiet },
    );
    q.start();
    q.add("a");
    await q.drain();
    expect(calls).toBe(2);
    expect(q.isIdle).toBe(true);
    await q.stop();
  });

  test("drain resolves at once on an empty queue", async () => {
    const q = new WorkQueue<string>(() => {}, { log: quiet });
    await q.drain();
    expect(q.isIdle).toBe(true);
  });

  test("stop drops queued and delayed keys and waits for the running one", async () => {
    const clock = new ManualClock();
    const gate = deferred();
    const started = deferred();
    const seen: string[] = [];
    const q = new WorkQueue<string>(
      async (k) => {
        seen.push(k);
        if (k === "a") {
          started.resolve();
          await gate.promise;
        }
      },
      { clock, log: quiet },
    );
    q.start();
    q.add("a");
    q.add("b");
    q.addAfter("c", 1000);
    await started.promise;
    const stopped = q.stop();
    gate.resolve();
    await stopped;
    clock.advance(2000);
    q.add("d");
    expect(seen).toEqual(["a"]);
    expect(q.isIdle).toBe(true);
  });

  test("addAfter keeps the earlier deadline of the same key", async () => {
    const clock = new ManualClock();
    const q = new WorkQueue<string>(() => {}, { clock, log: quiet });
    q.addAfter("a", 500);
    q.addAfter("a", 1000);
    q.addAfter("a", 100);
    expect(clock.pendingDelays()).toEqual([100]);
    clock.advance(100);
    expect(q.length).toBe(1);
  });
});
