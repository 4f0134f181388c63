// The Link's `status.conditions`, kept by the supervisor across controller restarts, with an Event on each transition.
import type { KubeObject } from "../kube/index.ts";
import {
  applyConditions,
  readConditions,
  sameConditions,
  TRUE_IS_PROBLEM,
  type Condition,
  type ConditionUpdates,
} from "../model/conditions.ts";
import { linkResource } from "../model/link.ts";
import { systemClock, type Clock } from "../runtime/index.ts";
import type { RecordEvent } from "../mirror/status/events.ts";
import type { LinkStatus, StatusWrite } from "../mirror/status/link-status.ts";

// The Link's `status.conditions` (src/model/conditions.ts), kept by the supervisor across
// controller restarts: every part of mc serve that learns something about the Link — it is
// invalid, its Secret is missing, the target refused the token, the target is down, the
// selector selects nothing — says so here; the latest view is the `conditions` part of the Link's
// status writer (mirror/status/link-status.ts: the newest wins, retried by its one rule), and a
// change that turns a condition True or False raises one Event on the Link (Warning when it went
// False for a problem). A condition that did not change costs nothing.

/** False reasons that are no problem (Normal Events): nothing is exported yet. */
const BENIGN = new Set(["NoneExported"]);

/**
 * The one transition of an update that gets an Event (one change, one Event): a problem before
 * good news, the specific condition before Ready (which only sums them up); none for Unknown.
 */
function eventWorthy(transitions: readonly Condition[]): Condition | undefined {
  const bad = (c: Condition) => (TRUE_IS_PROBLEM.has(c.type) ? c.status === "True" : c.status === "False");
  const rank = (c: Condition) => (bad(c) ? 0 : 2) + (c.type === "Ready" ? 1 : 0);
  return transitions.filter((c) => c.status !== "Unknown").sort((a, b) => rank(a) - rank(b))[0];
}

/** A condition that says something is wrong: False for most, True for those like Conflicted. */
function isProblem(c: Condition): boolean {
  return TRUE_IS_PROBLEM.has(c.type) ? c.status === "True" : c.status === "False" && !BENIGN.has(c.reason);
}

export interface LinkConditionsOptions {
  /** The Link's status writer: the conditions are its `conditions` part. */
  status: LinkStatus;
  namespace: string;
  name: string;
  /** Events on the Link (source cluster). */
  events: RecordEvent;
  clock?: Clock;
}

export class LinkConditions {
  /** What the Link holds (as read, then as written). */
  private written: Condition[] = [];
  /** What it should hold; undefined until the Link was seen. */
  private wanted: Condition[] | undefined;
  private clearAlive = false;
  /** Whether the Link, as last read, says `status.gateway.alive: true`. */
  private aliveStored = false;
  private link: { uid?: string; generation?: number; resourceVersion?: string } = {};
  private events: Promise<void> = Promise.resolve();
  private readonly clock: Clock;

  constructor(private readonly o: LinkConditionsOptions) {
    this.clock = o.clock ?? systemClock;
    o.status.attach("conditions", () => this.next());
  }

  /** Waits for the Events asked for so far (the status writer is stopped by its owner). */
  async stop(): Promise<void> {
    await this.events;
  }

  /** The Link as last read: the first one seeds the conditions (so a restart keeps their times and raises no Event for what did not change). */
  seen(obj: KubeObject): void {
    const m = obj.metadata;
    this.link = { uid: m.uid, generation: (m as { generation?: number }).generation, resourceVersion: m.resourceVersion };
    this.aliveStored = (obj as { status?: { gateway?: { alive?: unknown } } }).status?.gateway?.alive === true;
    if (this.wanted === undefined) {
      this.written = readConditions((obj as { status?: unknown }).status);
      this.wanted = this.written;
    }
  }

  /** The conditions as they should be now. */
  get conditions(): readonly Condition[] {
    return this.wanted ?? [];
  }

  /**
   * Sets these conditions; `clearAlive` also removes `status.gateway.alive` (nothing probes the
   * gateway while the Link or its credentials are unusable, so the last `true` must not stand).
   */
  update(updates: ConditionUpdates, opts: { clearAlive?: boolean } = {}): void {
    if (this.wanted === undefined) return; // the Link was never seen: nothing to write on
    const now = new Date(this.clock.now()).toISOString();
    const { conditions, transitions } = applyConditions(this.wanted, updates, now, this.link.generation);
    const clear = opts.clearAlive === true && this.aliveStored && !this.clearAlive;
    if (clear) this.clearAlive = true;
    if (sameConditions(conditions, this.wanted) && !clear) return;
    this.wanted = conditions;
    const c = eventWorthy(transitions);
    if (c) {
      const type = isProblem(c) ? "Warning" : "Normal";
      const subject = this.subject();
      const message = `${c.type} is ${c.status}: ${c.message}`;
      this.events = this.events.then(() => this.o.events(subject, type, c.reason, message));
    }
    this.o.status.changed("conditions");
  }

  /** Records an Event on the Link that no condition carries (something that happened, not a state). */
  record(type: "Normal" | "Warning", reason: string, message: string): void {
    const subject = this.subject();
    this.events = this.events.then(() => this.o.events(subject, type, reason, message));
  }

  private subject() {
    return {
      apiVersion: linkResource.apiVersion,
      kind: linkResource.kind,
      metadata: { name: this.o.name, namespace: this.o.namespace, ...(this.link.uid && { uid: this.link.uid }) },
    };
  }

  /** Resolves once what was asked so far is written (or given up) and its Events recorded. */
  async settle(): Promise<void> {
    await this.o.status.drain();
    await this.events;
  }

  /** The `conditions` part: what to write now, unless the Link holds it already. */
  private next(): StatusWrite {
    const wanted = this.wanted;
    if (wanted === undefined) return undefined;
    const clearAlive = this.clearAlive;
    if (sameConditions(wanted, this.written) && !clearAlive) return undefined;
    return {
      patch: { conditions: wanted, ...(clearAlive && { gateway: { alive: null } }) },
      written: () => {
        this.written = wanted;
        if (clearAlive) {
          this.clearAlive = false;
          this.aliveStored = false;
        }
      },
    };
  }
}
