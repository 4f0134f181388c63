// Time, injected: the informer, queue and lease take a Clock so tests run in milliseconds and
// assert exact delays. `systemClock` is the real one; `ManualClock` moves only when told.

export interface Clock {
  now(): number;
  /** Runs `fn` after `ms`; the returned function cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
}

/** The longest wait one setTimeout takes: 2^31−1 ms (~24.8 days); a longer one fires at once. */
const MAX_TIMER_STEP_MS = 2 ** 31 - 1;

/**
 * setTimeout for any `ms`: waits in steps of at most `stepMs` (MAX_TIMER_STEP_MS; smaller only in
 * tests), so a long wait can never overflow into one that fires at once. The returned function cancels it.
 */
export function setLongTimer(ms: number, fn: () => void, stepMs = MAX_TIMER_STEP_MS): () => void {
  const due = Date.now() + Math.max(0, Number.isFinite(ms) ? ms : MAX_TIMER_STEP_MS);
  let t: ReturnType<typeof setTimeout>;
  const step = () => {
    const left = due - Date.now();
    if (left <= 0) return fn();
    t = setTimeout(step, Math.min(left, stepMs));
  };
  t = setTimeout(step, Math.min(Math.max(0, due - Date.now()), stepMs));
  return () => clearTimeout(t);
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (ms, fn) => setLongTimer(ms, fn),
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
