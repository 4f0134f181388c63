// What became of each target Service: mirrored, skipped (missing namespace, no ports, waiting
// for endpoints), failed (foreign name holder, retries exhausted), or nothing to do. Kept in
// memory for the mirrors gauge, the Link status (failures only) and transition-only logging.
import type { Clock } from "../runtime/index.ts";
import type { Metrics, MirrorState } from "../metrics.ts";
import type { MirrorFailure } from "./status.ts";
import type { MirrorProblem } from "./types.ts";

export type Outcome = { state: "mirrored" } | { state: "absent" } | { state: "waiting" } | { state: "problem"; problem: MirrorProblem };

export interface Transition {
  /** A problem that was not there before (or has changed): log it and raise its Event. */
  newProblem: MirrorProblem | null;
  /** The failure list (and so the Link status) changed. */
  failuresChanged: boolean;
}

export class Outcomes {
  private readonly states = new Map<string, MirrorState>();
  private readonly problems = new Map<string, MirrorFailure>();
  private readonly counts: Record<MirrorState, number> = { mirrored: 0, failed: 0, skipped: 0 };

  constructor(
    private readonly cluster: string,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
  ) {
    this.publish();
  }

  record(key: string, outcome: Outcome): Transition {
    this.setState(key, stateOf(outcome));
    const before = this.problems.get(key);
    if (outcome.state !== "problem") {
      if (before) this.problems.delete(key);
      return { newProblem: null, failuresChanged: before !== undefined };
    }
    const p = outcome.problem;
    if (before && before.reason === p.reason && before.message === p.message) return { newProblem: null, failuresChanged: false };
    const slash = key.indexOf("/");
    this.problems.set(key, {
      namespace: key.slice(0, slash),
      name: key.slice(slash + 1),
      reason: p.reason,
      message: p.message,
      since: new Date(this.clock.now()).toISOString(),
      ...(p.localRef && { localRef: p.localRef }),
    });
    return { newProblem: p, failuresChanged: true };
  }

  /** Failures known before this controller started (the Link's status): kept until their Service is reconciled. */
  seed(failures: Iterable<MirrorFailure>): void {
    for (const f of failures) {
      const key = `${f.namespace}/${f.name}`;
      if (!this.problems.has(key)) this.problems.set(key, f);
    }
  }

  failures(): Iterable<MirrorFailure> {
    return this.problems.values();
  }

  get failureCount(): number {
    return this.problems.size;
  }

  problemOf(key: string): MirrorFailure | undefined {
    return this.problems.get(key);
  }

  stateOf(key: string): MirrorState | undefined {
    return this.states.get(key);
  }

  /** Removes this cluster's mirror gauges (the controller stopped). */
  forget(): void {
    for (const state of Object.keys(this.counts) as MirrorState[]) this.metrics.mirrors.remove({ target_cluster_name: this.cluster, state });
  }

  private setState(key: string, state: MirrorState | undefined): void {
    const old = this.states.get(key);
    if (old === state) return;
    if (old) this.counts[old]--;
    if (state) {
      this.counts[state]++;
      this.states.set(key, state);
    } else {
      this.states.delete(key);
    }
    this.publish();
  }

  private publish(): void {
    for (const [state, n] of Object.entries(this.counts)) this.metrics.mirrors.set({ target_cluster_name: this.cluster, state }, n);
  }
}

function stateOf(o: Outcome): MirrorState | undefined {
  switch (o.state) {
    case "mirrored":
      return "mirrored";
    case "absent":
      return undefined;
    case "waiting":
      return "skipped";
    case "problem":
      return o.problem.reason === "Error" ? "failed" : "skipped";
  }
}
