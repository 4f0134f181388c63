// Fault injection for reliability tests, in one place: what a test can break (`SandboxControl`,
// reached as `sandbox.control`) and where the sandbox applies it. Request faults (latency, a
// fraction answered 503) are applied by the HTTP layer to every API request after
// authentication and discovery; watch faults end the open streams or forget the event history
// so resumes get 410 Gone. A new fault belongs here: a field or method on SandboxControl and
// the one place that applies it.
import type { WatchStreams } from "./http/watch.ts";
import type { Store } from "./storage/store.ts";
import { ApiError } from "./types.ts";

export interface Faults {
  /** Fraction of API requests (0..1) answered 503 before they reach the store. */
  failRate: number;
  /** Extra latency added to every API request, in ms. */
  delayMs: number;
}

export interface SandboxControl {
  /** Ends every open watch stream. */
  dropWatches(): void;
  /** Forgets the event history, so resuming from an older resourceVersion gets 410 Gone. */
  forgetHistory(): void;
  /** Request faults: set these fields while the sandbox runs. */
  faults: Faults;
  openWatches(): number;
}

/** The controls of a sandbox, no fault set. */
export function sandboxControl(watches: Pick<WatchStreams, "dropAll" | "open">, store: Pick<Store, "forgetHistory">): SandboxControl {
  return {
    dropWatches: () => watches.dropAll(),
    forgetHistory: () => store.forgetHistory(),
    faults: { failRate: 0, delayMs: 0 },
    openWatches: () => watches.open,
  };
}

/** Applies the request faults to one request: waits the delay, then perhaps fails it (the error to answer with). */
export async function requestFault(faults: Faults): Promise<ApiError | undefined> {
  if (faults.delayMs > 0) await Bun.sleep(faults.delayMs);
  if (faults.failRate > 0 && Math.random() < faults.failRate) return new ApiError(503, "ServiceUnavailable", "the sandbox is injecting failures");
  return undefined;
}
