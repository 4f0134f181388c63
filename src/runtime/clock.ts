// Time, injected: the informer, queue and lease take a Clock so tests run in milliseconds and
// assert exact delays. `systemClock` is the real one; `ManualClock` moves only when told.

export interface Clock {
  now(): number;
  /** Runs `fn` after `ms`; the returned function cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    return () => clearTimeout(t);
  },
};

/** Resolves after `ms` on `clock`, or early (with false) when `signal` aborts. Leaves nothing behind. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      cancel();
      resolve(false);
    };
    const cancel = clock.setTimer(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

interface ManualTimer {
  at: number;
  seq: number;
  fn: () => void;
}

/** A clock for tests: time stands still until `advance()`; `nextTimer()` waits for a scheduling. */
export class ManualClock implements Clock {
  private time: number;
  private seq = 0;
  private timers: ManualTimer[] = [];
  private waiters: Array<(delayMs: number) => void> = [];

  constructor(start = 1_000_000) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimer(ms: number, fn: () => void): () => void {
    const timer: ManualTimer = { at: this.time + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    for (const w of this.waiters.splice(0)) w(Math.max(0, ms));
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Moves time forward, firing due timers in order (each sees `now()` at its own deadline). */
  advance(ms: number): void {
    const until = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = Math.max(this.time, due.at);
      due.fn();
    }
    this.time = until;
  }

  /** Timers waiting to fire. */
  get pending(): number {
    return this.timers.length;
  }

  /** Delays of the pending timers from now, soonest first. */
  pendingDelays(): number[] {
    return this.timers.map((t) => t.at - this.time).sort((a, b) => a - b);
  }

  /** Resolves with the delay of the next timer scheduled after this call. */
  nextTimer(): Promise<number> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
