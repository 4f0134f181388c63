// WorkQueue priorities (liveness flips first, docs/decisions.md#d46): high keys run before normal ones, a queued normal key added as high
// moves up, and high keys fan out to `highWorkers` while normal ones stay within `workers` — urgent work overtakes routine work and does
// not wait behind it. Below normal, `low` (a resync's keys): a live change, queued normal, never waits behind them.
import { describe, expect, test } from "bun:test";
import { kubeError } from "../../src/kube/kube-error.ts";
import type { Logger } from "../../src/log.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { WorkQueue } from "../../src/runtime/queue.ts";

const quiet: Logger = { error() {}, warn() {}, info() {}, debug() {} };

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

describe("WorkQueue priorities", () => {
  test("high keys run before normal keys queued earlier, in their own order", async () => {
    const seen: string[] = [];
    const q = new WorkQueue<string>((k) => void seen.push(k), { log: quiet });
    q.add("n1");
    q.add("n2");
    q.add("h1", "high");
    q.add("n3");
    q.add("h2", "high");
    expect(q.length).toBe(5);
    while (await q.processNext());
    expect(seen).toEqual(["h1", "h2", "n1", "n2", "n3"]);
  });

  test("a queued normal key added as high moves up and still runs once; a high key added as normal stays high", async () => {
    const seen: string[] = [];
    const q = new WorkQueue<string>((k) => void seen.push(k), { log: quiet });
    for (const k of ["a", "b", "c"]) q.add(k);
    q.add("c", "high");
    q.add("a", "high");
    q.add("a");
    expect(q.length).toBe(3);
    await q.drain();
    expect(seen).toEqual(["c", "a", "b"]);
  });

  test("high keys run highWorkers at once; normal keys wait until fewer than workers are in flight", async () => {
    const g = gate();
    const started: string[] = [];
    let inFlight = 0;
    let most = 0;
    const q = new WorkQueue<string>(
      async (k) => {
        started.push(k);
        most = Math.max(most, ++inFlight);
        await g.opened;
        inFlight--;
      },
      { workers: 2, highWorkers: 4, log: quiet },
    );
    q.add("n1");
    q.add("n2");
    for (let i = 1; i <= 6; i++) q.add(`h${i}`, "high");
    q.start(); // starts what it may at once, synchronously
    expect(started).toEqual(["h1", "h2", "h3", "h4"]);
    expect(q.inFlight).toBe(4);
    g.open();
    await q.drain();
    expect(started.slice(4, 6).sort()).toEqual(["h5", "h6"]); // the rest of the high keys before any normal one
    expect(started.slice(6).sort()).toEqual(["n1", "n2"]);
    expect(most).toBe(4);
    await q.stop();
  });

  test("normal work alone stays within workers", async () => {
    let inFlight = 0;
    let most = 0;
    const q = new WorkQueue<string>(
      async () => {
        most = Math.max(most, ++inFlight);
        await Promise.resolve();
        inFlight--;
      },
      { workers: 2, highWorkers: 8, log: quiet },
    );
    for (let i = 0; i < 10; i++) q.add(`n${i}`);
    q.start();
    await q.drain();
    await q.stop();
    expect(most).toBe(2);
  });

  test("an add at high while the key runs re-runs it at high, ahead of normal keys", async () => {
    const g = gate();
    const seen: string[] = [];
    let first = true;
    const q = new WorkQueue<string>(
      async (k) => {
        seen.push(k);
        if (k === "a" && first) {
          first = false;
          await g.opened;
        }
      },
      { workers: 1, log: quiet },
    );
    q.add("a");
    const running = q.processNext();
    q.add("n1");
    q.add("a", "high");
    g.open();
    await running;
    while (await q.processNext());
    expect(seen).toEqual(["a", "a", "n1"]);
  });

  test("a failed high key is retried at high", async () => {
    const clock = new ManualClock();
    const seen: string[] = [];
    let failOnce = true;
    const q = new WorkQueue<string>(
      (k) => {
        seen.push(k);
        if (k === "h" && failOnce) {
          failOnce = false;
          throw kubeError({ verb: "update", target: "endpoints a/b on west", code: 409, reason: "Conflict" });
        }
      },
      { workers: 1, clock, backoff: { initialMs: 10, maxMs: 10, jitter: 0 }, log: quiet },
    );
    q.add("h", "high");
    await q.processNext();
    q.add("n1");
    clock.advance(10);
    while (await q.processNext());
    expect(seen).toEqual(["h", "h", "n1"]);
  });
});

describe("WorkQueue low priority (a resync)", () => {
  test("low keys run after every normal one; a queued low key added as normal moves up and runs once", async () => {
    const seen: string[] = [];
    const q = new WorkQueue<string>((k) => void seen.push(k), { log: quiet });
    for (const k of ["r1", "r2", "r3", "r4"]) q.add(k, "low");
    q.add("live");
    q.add("r3"); // a live change of a key the resync queued
    q.add("r4", "low");
    q.add("h", "high");
    expect(q.length).toBe(6);
    while (await q.processNext());
    expect(seen).toEqual(["h", "live", "r3", "r1", "r2", "r4"]);
  });

  test("a normal key added as low stays normal; an add at normal while a low key runs re-runs it at normal, ahead of the other low keys", async () => {
    const seen: string[] = [];
    let q!: WorkQueue<string>;
    q = new WorkQueue<string>(
      (k) => {
        if (k === "r1" && !seen.includes("r1")) q.add("r1"); // a live change while the resync reconciles it
        seen.push(k);
      },
      { log: quiet },
    );
    for (const k of ["r1", "r2", "r3"]) q.add(k, "low");
    q.add("n");
    q.add("n", "low");
    while (await q.processNext());
    expect(seen).toEqual(["n", "r1", "r1", "r2", "r3"]);
  });
});

describe("WorkQueue and the event loop", () => {
  test("keys that never wait on I/O still let the event loop in: a timer due meanwhile fires long before the last of them", async () => {
    let ran = 0;
    let firedAfter = -1;
    const busy = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    const q = new WorkQueue<string>(
      async () => {
        busy(1); // a reconcile of a mirror that is right: no write, no await that waits
        ran++;
      },
      { workers: 16, log: quiet },
    );
    for (let i = 0; i < 200; i++) q.add(`k${i}`, "low");
    setTimeout(() => (firedAfter = ran), 0);
    await q.drain();
    expect(ran).toBe(200);
    expect(firedAfter).toBeGreaterThanOrEqual(0);
    expect(firedAfter).toBeLessThan(100);
  });

  test("many queues (mc serve --all: one per Link) let I/O in as often as one: an answer never waits for each queue's run of keys", async () => {
    let ran = 0;
    const busy = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok") });
    // 10 queues × 4 workers, 300 keys of 0.2 ms each: 10 ms of keys is 50 of them. With a breath per queue, each
    // worker that woke ran 10 ms more before the next answer: hundreds of keys per queue, thousands in all.
    const queues = Array.from(
      { length: 10 },
      () =>
        new WorkQueue<string>(
          async () => {
            busy(0.2);
            ran++;
          },
          { workers: 4, log: quiet },
        ),
    );
    queues.forEach((q, i) => {
      for (let k = 0; k < 300; k++) q.add(`q${i}-k${k}`, "low");
    });
    let done = false;
    let most = 0;
    const asking = (async () => {
      let last = -1;
      while (!done) {
        await (await fetch(`http://127.0.0.1:${server.port}/`)).text();
        if (last >= 0) most = Math.max(most, ran - last);
        last = ran;
      }
    })();
    try {
      await Promise.all(queues.map((q) => q.drain()));
      done = true;
      await asking;
    } finally {
      await server.stop(true);
    }
    expect(ran).toBe(3000);
    // One shared breath: ~50 keys and one per worker (40) between two answers.
    expect(most).toBeLessThan(400);
  });
});
