// Fault injection for reliability tests, in one place: what a test can break (`SandboxControl`, reached as `sandbox.control`, and `mc
// sandbox`'s fault flags) and where the sandbox applies it.
import type { WatchStreams } from "./http/watch.ts";
import type { Store } from "./storage/store.ts";
import { tooLargeResourceVersion } from "./http/watch.ts";
import { ApiError, errors, type ResourceType } from "./types.ts";

// Every fault is off by default and can be switched while the sandbox runs:
// - latency, added to every response but health checks (`latencyFault`), and a fraction of API
//   requests failed with 500, 503 or 429 + Retry-After after authentication (`requestFault`);
// - a limit of API requests in flight, beyond which they are shed with 429 (`inflightFault`);
// - a fraction of writes that carry a resourceVersion answered 409 Conflict (`conflictFault`);
// - "forget history": every watch resumed from a resourceVersion, and every list at an exact one,
//   answered 410 Gone where kube-apiserver answers it (`historyFault`), or the one-shot
//   `forgetHistory()` that drops the retained events;
// - watch streams ended every so often (`dropWatchesEveryMs`) or at once (`dropWatches()`);
// - a watch cache behind the client: every resumed watch ends in kube's 504 "Too large resource
//   version" ERROR event with details.retryAfterSeconds (`watchRetryAfterSeconds`, `laggingWatchFault`).
// The rates draw from `random`, seeded for reproducible runs (`seededRandom`). A new fault
// belongs here: a field on Faults and the one place that applies it.

interface Faults {
  /** Fraction of API requests (0..1) failed before they reach the store, with one of `failWith` at random. */
  failRate: number;
  /** The statuses failures are drawn from: 500, 503 and 429 (with Retry-After) by default. */
  failWith: readonly FailStatus[];
  /** Extra latency added to every response, in ms. */
  delayMs: number;
  /**
   * API requests served at once (0 = no limit); one more is shed with 429 and Retry-After as
   * kube-apiserver's priority and fairness (and --max-requests-inflight) sheds load. Watches
   * are long-running and not counted.
   */
  maxInflight: number;
  /** The Retry-After of a shed request, in seconds (1: what priority and fairness starts at). */
  retryAfterSeconds: number;
  /** Fraction of writes (0..1) carrying a resourceVersion that are answered 409 Conflict. */
  conflictRate: number;
  /**
   * While true, every watch resumed from a resourceVersion gets 410 Gone (an ERROR event), and so
   * does every list at an exact one (resourceVersionMatch=Exact, or a limit without a match); a
   * list "not older than" a resourceVersion is served, as kube-apiserver serves it.
   */
  forgetHistory: boolean;
  /**
   * While > 0, every watch resumed from a resourceVersion gets what kube-apiserver's watch cache
   * sends a watch it cannot serve until it catches up (cacher.go: newErrWatcher with the watch
   * cache's TooLargeResourceVersionError, which kube sends to a watch-list): 200, one ERROR event —
   * 504 Timeout "Too large resource version: <rv>, current: <rv − 1>", cause ResourceVersionTooLarge,
   * details.retryAfterSeconds = this — and the end. 0 = off.
   */
  watchRetryAfterSeconds: number;
  /** Ends every open watch stream this often, in ms (0 = never). Setting it (re)starts the timer. */
  dropWatchesEveryMs: number;
  /** Where the rates draw from: Math.random, or `seededRandom(seed)` for a reproducible run. */
  random: () => number;
}

type FailStatus = 500 | 503 | 429;
const FAIL_STATUSES: readonly FailStatus[] = [500, 503, 429];

/** The faults a sandbox starts with (`startSandbox({ faults })`, `mc sandbox` flags). */
export type FaultSettings = Partial<Omit<Faults, "random">> & { seed?: number };

/** How many faults were injected, by kind (a suite's summary reads them). */
interface InjectedFaults {
  failures: number;
  /** Requests shed by maxInflight. */
  throttled: number;
  conflicts: number;
  gone: number;
  drops: number;
  /** Watches answered by watchRetryAfterSeconds. */
  lagging: number;
}

/** API requests served (past the faults), by kind: how a test measures the load a client puts on the server. */
interface ServedRequests {
  lists: number;
  watches: number;
}

export interface SandboxControl {
  /** Ends every open watch stream. */
  dropWatches(): void;
  /** Forgets the event history once, so resuming from an older resourceVersion gets 410 Gone. */
  forgetHistory(): void;
  /** The faults: set these fields while the sandbox runs. */
  faults: Faults;
  /** Counts of injected faults so far. */
  readonly injected: InjectedFaults;
  /** Counts of lists and watches served so far. */
  readonly served: ServedRequests;
  /** Turns every fault off (the seed stays). */
  clear(): void;
  openWatches(): number;
  /** Stops the drop timer (the sandbox's stop calls it). */
  stop(): void;
}

/** A small, fast, seedable PRNG (mulberry32): the same seed gives the same faults. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The controls of a sandbox, with the faults it starts with (none by default). */
export function sandboxControl(
  watches: Pick<WatchStreams, "dropAll" | "open">,
  store: Pick<Store, "forgetHistory">,
  initial: FaultSettings = {},
): SandboxControl {
  const injected: InjectedFaults = { failures: 0, throttled: 0, conflicts: 0, gone: 0, drops: 0, lagging: 0 };
  const served: ServedRequests = { lists: 0, watches: 0 };
  let timer: ReturnType<typeof setInterval> | undefined;
  let everyMs = 0;
  const drop = () => {
    if (watches.open > 0) injected.drops++;
    watches.dropAll();
  };
  // No fault at all: what a sandbox starts from and what clear() goes back to.
  const none = () => ({
    failRate: 0,
    failWith: FAIL_STATUSES,
    delayMs: 0,
    maxInflight: 0,
    retryAfterSeconds: RETRY_AFTER_SECONDS,
    conflictRate: 0,
    forgetHistory: false,
    watchRetryAfterSeconds: 0,
  });
  const faults: Faults = {
    ...none(),
    random: initial.seed === undefined ? Math.random : seededRandom(initial.seed),
    get dropWatchesEveryMs() {
      return everyMs;
    },
    set dropWatchesEveryMs(ms: number) {
      // biome-ignore lint/complexity/useMathMinMax: NaN must become 0, which Math.max(NaN, 0) is not
      everyMs = ms > 0 ? ms : 0;
      if (timer) clearInterval(timer);
      timer = everyMs > 0 ? setInterval(drop, everyMs) : undefined;
      timer?.unref?.();
    },
  };
  const { seed: _seed, ...settings } = initial;
  Object.assign(faults, settings);
  return {
    dropWatches: drop,
    forgetHistory: () => store.forgetHistory(),
    faults,
    injected,
    served,
    clear() {
      Object.assign(faults, { ...none(), dropWatchesEveryMs: 0 });
    },
    openWatches: () => watches.open,
    stop() {
      faults.dropWatchesEveryMs = 0;
    },
  };
}

/** Seconds a 429 asks the client to wait: what kube-apiserver's priority and fairness starts at (it doubles under sustained shedding, up to 32). */
const RETRY_AFTER_SECONDS = 1;

/** A request shed as priority and fairness sheds it (answered by http/codec.ts's throttledResponse). */
export class Throttled {
  constructor(readonly retryAfterSeconds: number) {}
}

/** Takes a seat for one API request: a release function, or Throttled when maxInflight are already served. */
export function inflightFault(control: Pick<SandboxControl, "faults" | "injected">, seats: { inflight: number }): (() => void) | Throttled {
  const max = control.faults.maxInflight;
  if (max > 0 && seats.inflight >= max) {
    control.injected.throttled++;
    return new Throttled(control.faults.retryAfterSeconds);
  }
  seats.inflight++;
  let held = true;
  return () => {
    if (held) seats.inflight--;
    held = false;
  };
}

/** Waits the added latency (every response but health checks). */
export async function latencyFault(control: Pick<SandboxControl, "faults">): Promise<void> {
  if (control.faults.delayMs > 0) await Bun.sleep(control.faults.delayMs);
}

/** Perhaps fails one API request at the fail rate: the error to answer with, or undefined. */
export function requestFault(control: Pick<SandboxControl, "faults" | "injected">): ApiError | Throttled | undefined {
  const f = control.faults;
  if (!(f.failRate > 0) || f.random() >= f.failRate) return undefined;
  control.injected.failures++;
  // Which failure: a second draw, so the mix does not depend on the rate.
  const statuses = f.failWith.length > 0 ? f.failWith : FAIL_STATUSES;
  const status = statuses[Math.min(statuses.length - 1, Math.floor(f.random() * statuses.length))]!;
  if (status === 500) return new ApiError(500, "InternalError", "Internal error occurred: the sandbox is injecting failures");
  if (status === 503) return new ApiError(503, "ServiceUnavailable", "the sandbox is injecting failures");
  return new Throttled(f.retryAfterSeconds);
}

/** A 409 for a write that carries a resourceVersion, at the conflict rate; undefined to let it through. */
export function conflictFault(
  control: Pick<SandboxControl, "faults" | "injected">,
  type: ResourceType,
  name: string,
  resourceVersion: unknown,
): ApiError | undefined {
  const f = control.faults;
  if (typeof resourceVersion !== "string" || resourceVersion === "") return undefined;
  if (!(f.conflictRate > 0) || f.random() >= f.conflictRate) return undefined;
  control.injected.conflicts++;
  return errors.conflict(type.plural, name, type.group);
}

/**
 * 410 Gone while history is being forgotten, for a request kube-apiserver answers so when its
 * history is gone: a watch resumed from a resourceVersion, or a list at an `exact` one. A list
 * "not older than" a resourceVersion is never 410 there (it is served from newer data).
 */
export function historyFault(
  control: Pick<SandboxControl, "faults" | "injected">,
  resourceVersion: string | undefined | null,
  current: string,
  exact: boolean,
): ApiError | undefined {
  if (!control.faults.forgetHistory || !exact || !resourceVersion || resourceVersion === "0") return undefined;
  control.injected.gone++;
  return errors.gone(`too old resource version: ${resourceVersion} (${current})`);
}

/** The lagging watch cache's answer to a watch resumed from `resourceVersion` (see watchRetryAfterSeconds), or undefined. */
export function laggingWatchFault(
  control: Pick<SandboxControl, "faults" | "injected">,
  resourceVersion: string | undefined | null,
): ApiError | undefined {
  const seconds = control.faults.watchRetryAfterSeconds;
  const rv = Number(resourceVersion);
  if (!(seconds > 0) || !Number.isInteger(rv) || rv <= 0) return undefined;
  control.injected.lagging++;
  return tooLargeResourceVersion(rv, String(rv - 1), seconds);
}
