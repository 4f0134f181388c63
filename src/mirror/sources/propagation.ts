// How long a change of the target takes to reach its mirror (mc_propagation_seconds): from the watch delivering a change of an exported
// Service or of its Endpoints to the end of the reconcile that wrote the mirror for it. A reconcile that writes nothing (the change did not
// touch the mirror) observes nothing; one that fails gives the change back, so its retry counts the whole wait.
import type { ServiceKey } from "./keys.ts";

// A change that comes while its key is being reconciled waits for the next run. Only changes after the
// caches synced count: the initial list is the start's, not a change.

export class Propagation {
  /** Keys with a change not yet reconciled → when the first of them came. */
  private readonly pending = new Map<ServiceKey, number>();
  private counting = false;

  constructor(
    private readonly now: () => number,
    /** Told each propagation, in seconds. */
    private readonly observe: (seconds: number) => void,
  ) {}

  /** The caches synced: changes count from now on. */
  start(): void {
    this.counting = true;
  }

  /** The target's watch delivered a change of `key`. */
  changed(key: ServiceKey): void {
    if (this.counting && !this.pending.has(key)) this.pending.set(key, this.now());
  }

  /** A reconcile of `key` starts: it takes the pending change (when it came), if any. */
  take(key: ServiceKey): number | undefined {
    const since = this.pending.get(key);
    this.pending.delete(key);
    return since;
  }

  /** That reconcile ended: it wrote the mirror (observed), found nothing to write (dropped), or failed (given back, unless a newer one came). */
  done(key: ServiceKey, since: number | undefined, end: "wrote" | "unchanged" | "failed"): void {
    if (since === undefined) return;
    if (end === "wrote") this.observe(Math.max(0, this.now() - since) / 1000);
    else if (end === "failed") this.pending.set(key, Math.min(since, this.pending.get(key) ?? since));
  }
}
