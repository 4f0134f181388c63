// Capped exponential backoff with jitter, shared by the informer (re-watch) and the queue (retry).

export interface BackoffOptions {
  /** Delay after the first failure. */
  initialMs: number;
  /** No delay exceeds this. */
  maxMs: number;
  /** Fraction of each delay taken off at random (0 = none, 0.2 = up to 20% shorter). */
  jitter: number;
  /** Source of randomness in [0, 1); injectable for tests. */
  random?: () => number;
}

/** Delay before retry number `attempt` (1 = after the first failure): initial·2^(attempt−1), capped, jittered down. */
export function backoffDelay(attempt: number, opts: BackoffOptions): number {
  const exp = Math.max(0, attempt - 1);
  const base = Math.min(opts.maxMs, opts.initialMs * 2 ** Math.min(exp, 52));
  const jitter = Math.min(1, Math.max(0, opts.jitter));
  const r = (opts.random ?? Math.random)();
  return Math.round(base * (1 - jitter * r));
}
