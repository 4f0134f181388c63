// The client's side of an API server's flow control, as client-go does it. A token bucket per connection (`--kube-api-qps`,
// `--kube-api-burst`): each request, and each retry, takes a token and waits for one when the bucket is empty.

import { setLongTimer } from "../runtime/clock.ts";

// And the server's side: a 429 with Retry-After (what API Priority and Fairness and max-in-flight
// answer when they shed load: the request was never executed, so sending it again is safe) is sent
// again after the wait the server asked for, up to RETRY_AFTER_ATTEMPTS times — the caller sees a
// slower answer, not an error. (client-go also retries a 5xx that carries Retry-After; mc leaves those
// to its callers' backoff, which honours the hint: a 504 "too large resource version" is the
// informer's to handle.) Between the two, a window of requests in flight per connection
// (`inflightWindow`): unlimited until the server sheds one, then halved at each 429 and grown by one
// per window of answers, unlimited again once wide — so a controller with many workers queues its
// requests at home instead of sending a herd that the server sheds again at every Retry-After.

/** client-go's rest.Request maxRetries: how many times a response with Retry-After is retried. */
export const RETRY_AFTER_ATTEMPTS = 10;
/** The longest wait honoured per retry (APF asks for at most 32 s). */
export const MAX_RETRY_AFTER_MS = 60_000;

/** `--kube-api-qps` / `--kube-api-burst`: qps 0 = no client-side limit. */
export interface ClientLimits {
  qps: number;
  burst: number;
}

export interface RequestLimiter {
  /** Resolves when the request may be sent; rejects with the signal's reason when it aborts first. */
  take(signal?: AbortSignal): Promise<void>;
}

/** A token bucket of `burst` tokens refilled at `qps` per second (burst < 1 counts as 1). */
export function tokenBucket(limits: ClientLimits, now: () => number = () => performance.now()): RequestLimiter {
  const capacity = Math.max(1, Math.floor(limits.burst));
  const perMs = limits.qps / 1000;
  let tokens = capacity;
  let at = now();
  /** Tokens are handed out in order: a request reserves the next one and waits until it exists. */
  return {
    async take(signal) {
      const t = now();
      tokens = Math.min(capacity, tokens + (t - at) * perMs);
      at = t;
      tokens -= 1;
      if (tokens >= 0) return;
      await sleep(-tokens / perMs, signal);
    },
  };
}

/** The wait a response asks for before it is sent again, or undefined when it is not to be: a 429 with a Retry-After in seconds. */
export function retryAfterMs(status: number, header: string | null): number | undefined {
  if (status !== 429) return undefined;
  if (header === null || !/^\s*\d+\s*$/.test(header)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Number(header) * 1000);
}

/** Sleeps `ms` (in steps that cannot overflow); an abort of `signal` ends it early with a rejection. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      cancel();
      reject(signal!.reason);
    };
    const cancel = setLongTimer(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Past this width the window is unlimited again. */
const MAX_WINDOW = 256;

/** Requests in flight to one server, under additive-increase / multiplicative-decrease on its 429s. */
export interface InflightWindow {
  /** Resolves when the request may be sent (a slot is taken); rejects with the signal's reason when it aborts first. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** Gives the slot back, saying how the request ended: answered, shed (429), or neither (an error). */
  release(outcome: "answered" | "shed" | "failed"): void;
  /** The current width; Infinity: unlimited. */
  readonly width: number;
}

export function inflightWindow(max = MAX_WINDOW): InflightWindow {
  let width = Number.POSITIVE_INFINITY;
  let inflight = 0;
  /** Answers since the width last grew. */
  let answered = 0;
  const waiting: Array<{ go: () => void }> = [];
  const pump = () => {
    while (waiting.length > 0 && inflight < width) {
      inflight++;
      waiting.shift()!.go();
    }
  };
  return {
    get width() {
      return width;
    },
    acquire(signal) {
      if (inflight < width && waiting.length === 0) {
        inflight++;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const entry = {
          go: () => {
            signal?.removeEventListener("abort", onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          const i = waiting.indexOf(entry);
          if (i >= 0) waiting.splice(i, 1);
          reject(signal!.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        waiting.push(entry);
      });
    },
    release(outcome) {
      inflight--;
      if (outcome === "shed") {
        // Halved from what was in flight when the server said no (at least one stays).
        width = Math.max(1, Math.floor(Math.min(width, inflight + 1) / 2));
        answered = 0;
      } else if (outcome === "answered" && width !== Number.POSITIVE_INFINITY && ++answered >= width) {
        answered = 0;
        width = width + 1 > max ? Number.POSITIVE_INFINITY : width + 1;
      }
      pump();
    },
  };
}
