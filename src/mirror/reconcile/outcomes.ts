// What became of each target Service: mirrored, skipped (missing namespace, no ports, waiting for endpoints), failed (foreign name holder,
// retries exhausted), or nothing to do.
import type { Metrics, MirrorState } from "../../metrics.ts";
import type { Clock } from "../../runtime/index.ts";
import type { DesiredMirror } from "./desired.ts";
import type { EventType } from "../status/events.ts";
import type { OpResult } from "./execute.ts";
import { serviceKey, splitServiceKey, type ServiceKey } from "../sources/keys.ts";
import type { MirrorOp } from "./plan.ts";
import type { Snapshot } from "./read.ts";
import type { MirrorFailure } from "../status/status.ts";
import type { MirrorProblem, ServiceObject } from "../types.ts";

// The record step of reconcile: `outcomeOf` decides, purely, from what was read, wanted and written —
// the Service's Link status entry, the Events to raise and the log lines; `Outcomes` keeps the result
// in memory for the mirrors gauge, the Link status (failures only) and transition-only logging.

export type Outcome = { state: "mirrored" } | { state: "absent" } | { state: "waiting" } | { state: "problem"; problem: MirrorProblem };

export interface Transition {
  /** The gauge state the Service counts under; undefined: not counted. */
  state: MirrorState | undefined;
  /** The Service's Link status entry after this outcome; null: none. */
  failure: MirrorFailure | null;
  /** A problem that was not there before (or has changed): log it and raise its Event. */
  newProblem: MirrorProblem | null;
  /** The failure list (and so the Link status) changed. */
  failuresChanged: boolean;
}

/** What recording `outcome` changes, given the Service's entry before. Pure. */
function transition(key: ServiceKey, outcome: Outcome, before: MirrorFailure | undefined, now: number): Transition {
  const state = stateOf(outcome);
  if (outcome.state !== "problem") return { state, failure: null, newProblem: null, failuresChanged: before !== undefined };
  const p = outcome.problem;
  if (before && before.reason === p.reason && before.message === p.message)
    return { state, failure: before, newProblem: null, failuresChanged: false };
  const failure: MirrorFailure = {
    ...splitServiceKey(key),
    reason: p.reason,
    message: p.message,
    since: new Date(now).toISOString(),
    ...(p.localRef && { localRef: p.localRef }),
  };
  return { state, failure, newProblem: p, failuresChanged: true };
}

/** One reconcile of a target Service, as the record step sees it. */
export interface Reconciled {
  snapshot: Snapshot;
  desired: DesiredMirror;
  /** A foreign Service holds the mirror's name. */
  conflict: MirrorProblem | null;
  /** Every write made, in order. */
  done: readonly OpResult[];
}

/** An Event to raise: on the target Service (in the target cluster) or on a local Service. */
interface MirrorEvent {
  cluster: "remote" | "local";
  on: ServiceObject;
  type: EventType;
  reason: string;
  message: string;
}

interface LogLine {
  level: "debug" | "info" | "warn";
  message: string;
}

export interface Verdict extends Transition {
  outcome: Outcome;
  events: MirrorEvent[];
  logs: LogLine[];
}

/** The record step, decided: outcome, status entry, Events and log lines. Pure. */
export function outcomeOf(r: Reconciled, cluster: string, before: MirrorFailure | undefined, now: number): Verdict {
  const { snapshot: s, desired } = r;
  const problem = desired.problem ?? r.conflict;
  const outcome: Outcome = problem
    ? { state: "problem", problem }
    : desired.service
      ? { state: "mirrored" }
      : desired.waiting
        ? { state: "waiting" } // a headless target with no endpoints yet
        : { state: "absent" };
  const t = transition(s.key, outcome, before, now);
  const logs = writeLines(s, cluster, r.done, !!desired.headless);
  const events: MirrorEvent[] = [];
  if (t.newProblem) {
    logs.push({ level: "warn", message: `not mirroring ${s.key}: ${t.newProblem.message}` });
    if (desired.remoteEvent && s.remote.service)
      events.push({ cluster: "remote", on: s.remote.service, type: "Normal", ...desired.remoteEvent });
    if (r.conflict && s.mirror.service) {
      const message = `Skipped mirroring ${s.key} from ${cluster}: ${s.holder ? `this Service is the mirror of ${s.holder}` : `this Service is not a mirror of ${cluster}`}`;
      events.push({ cluster: "local", on: s.mirror.service, type: "Warning", reason: "ServiceMirroringSkipped", message });
    }
  }
  return { ...t, outcome, events, logs };
}

/** One line per transition of the mirror Service; Endpoints-only changes at debug. */
function writeLines(s: Snapshot, cluster: string, done: readonly OpResult[], headless: boolean): LogLine[] {
  if (done.length === 0) return [];
  const { namespace, name, mirrorName: mirror, localNamespace: local } = s;
  const main = done.filter((r) => r.op.kind === "Service" && nameOf(r.op) === mirror).map((r) => r.op);
  const created = main.some((op) => op.verb === "create");
  const deleted = main.some((op) => op.verb === "delete");
  const updated = main.find((op): op is Extract<MirrorOp, { verb: "update" }> => op.verb === "update");
  const epMirrors = done.filter((r) => r.op.kind === "Service" && nameOf(r.op) !== mirror).length;
  const extra = epMirrors > 0 ? ` (${epMirrors} endpoint mirror change${epMirrors === 1 ? "" : "s"})` : "";
  const info = (message: string): LogLine[] => [{ level: "info", message }];
  if (created && deleted) return info(`re-created mirror ${local}/${mirror} as ${headless ? "headless" : "ClusterIP"}${extra}`);
  if (created) return info(`mirrored ${namespace}/${name} as ${local}/${mirror}${headless ? " (headless)" : ""}${extra}`);
  if (deleted) return info(`deleted mirror ${local}/${mirror}: ${namespace}/${name} is no longer exported by ${cluster}${extra}`);
  if (updated) return info(`updated mirror ${local}/${mirror}: ${updated.changed.join(", ")}${extra}`);
  if (done.length > 0) return [{ level: "debug", message: `updated endpoints of ${local}/${mirror}${extra}` }];
  return [];
}

function nameOf(op: MirrorOp): string {
  return op.verb === "delete" ? op.name : (op.object.metadata.name ?? "");
}

export class Outcomes {
  private readonly states = new Map<ServiceKey, MirrorState>();
  private readonly problems = new Map<ServiceKey, MirrorFailure>();
  private readonly counts: Record<MirrorState, number> = { mirrored: 0, failed: 0, skipped: 0 };

  constructor(
    private readonly cluster: string,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
    /** Told when the failure list changed (the Link status needs a write). */
    private readonly onFailuresChanged: () => void = () => {},
  ) {
    this.publish();
  }

  /** Records a reconcile: decides its verdict (outcomeOf) against this Service's entry, and keeps it. */
  settle(r: Reconciled): Verdict {
    const verdict = outcomeOf(r, this.cluster, this.problems.get(r.snapshot.key), this.clock.now());
    this.apply(r.snapshot.key, verdict);
    return verdict;
  }

  /** Records an outcome decided elsewhere (a key the queue gave up on). */
  record(key: ServiceKey, outcome: Outcome): Transition {
    const t = transition(key, outcome, this.problems.get(key), this.clock.now());
    this.apply(key, t);
    return t;
  }

  /** Failures known before this controller started (the Link's status): kept until their Service is reconciled. */
  seed(failures: Iterable<MirrorFailure>): void {
    for (const f of failures) {
      const key = serviceKey(f.namespace, f.name);
      if (!this.problems.has(key)) this.problems.set(key, f);
    }
  }

  failures(): Iterable<MirrorFailure> {
    return this.problems.values();
  }

  get failureCount(): number {
    return this.problems.size;
  }

  problemOf(key: ServiceKey): MirrorFailure | undefined {
    return this.problems.get(key);
  }

  stateOf(key: ServiceKey): MirrorState | undefined {
    return this.states.get(key);
  }

  /** Removes this cluster's mirror gauges (the controller stopped). */
  forget(): void {
    for (const state of Object.keys(this.counts) as MirrorState[])
      this.metrics.mirrors.remove({ target_cluster_name: this.cluster, state });
  }

  private apply(key: ServiceKey, t: Transition): void {
    this.setState(key, t.state);
    if (t.failure) this.problems.set(key, t.failure);
    else this.problems.delete(key);
    if (t.failuresChanged) this.onFailuresChanged();
  }

  private setState(key: ServiceKey, state: MirrorState | undefined): void {
    const old = this.states.get(key);
    if (old === state) return;
    if (old) this.counts[old]--;
    if (state) {
      this.counts[state]++;
      this.states.set(key, state);
    } else {
      this.states.delete(key);
    }
    // Only the two states that changed (every state's gauge on every change was a hot spot).
    for (const s of [old, state]) if (s) this.metrics.mirrors.set({ target_cluster_name: this.cluster, state: s }, this.counts[s]);
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
