// What the controller tells its supervisor about the Link's target, as it changes: the worst of what the target's watches say (rejected,
// error, not yet known, ok), that the caches synced, and whether the selector selects anything (with whether this Link's mirrors existed),
// and a watch that found the target's history gone backwards (relisted).
import type { Informer, KubeError, KubeObject } from "../../kube/index.ts";
import type { SelectedServices } from "./selected.ts";
import { ownMirrorCount, remoteInformers, type Sources } from "./sources.ts";

// The supervisor writes it as the Link's status.conditions (src/serve/link-health.ts,
// link-conditions.ts).

/** What the controller's watches of the target say. */
export type TargetState =
  | { state: "unknown" }
  /** The Link reads nothing from the target (it selects nothing). */
  | { state: "unwatched" }
  | { state: "ok" }
  | { state: "error"; error: KubeError }
  /** A permanent answer (400, 422) or a bug: the watches gave up. */
  | { state: "rejected"; error: Error };

/** Whether the Link's selector selects anything in the target, and whether this Link's mirrors existed when it stopped. */
export interface Selection {
  selected: boolean;
  /** Mirrors of this Link were in the source when the selection was found empty. */
  mirrorsExisted: boolean;
  /** `--namespace-selector`, when set: only Services in the target's namespaces it selects count. */
  namespaceSelector?: string;
}

/** What the controller tells its supervisor about the Link (which writes it as status.conditions). */
export type ControllerHealth =
  /** The worst of what the watches of the target say now. */
  | { kind: "target"; target: TargetState }
  | { kind: "synced" }
  /** Whether the selector selects anything (told at sync and when that changes). */
  | { kind: "selection"; selection: Selection }
  /** A watch of the target found its history gone backwards (an etcd restore) and relisted: `what` at `resourceVersion`, after `before`. */
  | { kind: "historyReset"; what: string; before: string; resourceVersion: string };

const RANK = { rejected: 0, error: 1, unknown: 2, unwatched: 3, ok: 3 } as const;

export class TargetHealth {
  private readonly listeners = new Set<(h: ControllerHealth) => void>();
  private readonly states = new Map<Informer<KubeObject>, TargetState>();
  private lastKey = "";
  private selected: boolean | undefined;
  private hasSynced = false;

  /** Follows the target's informers of `informers` and the selection of `cluster`'s exported Services (what the Link's selectors select in the namespaces `namespaceSelector` selects: `selected`). */
  constructor(
    private readonly informers: Sources,
    private readonly cluster: string,
    private readonly selectedServices: SelectedServices,
    private readonly namespaceSelector = "",
  ) {
    for (const inf of remoteInformers(informers)) {
      this.states.set(inf, { state: "unknown" });
      inf.onStatus((st) => {
        if (st.state === "reset")
          return this.tell({ kind: "historyReset", what: inf.what, before: st.before, resourceVersion: st.resourceVersion });
        if (st.state === "watching") this.states.set(inf, { state: "ok" });
        else if (st.state === "backoff") this.states.set(inf, { state: "error", error: st.error });
        else if (st.state === "failed") this.states.set(inf, { state: "rejected", error: st.error });
        else return;
        const worst = [...this.states.values()].sort((a, b) => RANK[a.state] - RANK[b.state])[0]!;
        // The cause, not only its kind: an outage whose cause changes (a reset connection, then a CA
        // the target no longer matches) is told again, so the Link's condition says what is wrong now.
        const key = worst.state === "error" ? `error ${worst.error.code} ${worst.error.reason} ${worst.error.message}` : worst.state;
        if (key === this.lastKey) return;
        this.lastKey = key;
        this.tell({ kind: "target", target: worst });
      });
    }
    // Subscribed after `selectedServices` (made first), so it has counted the event. An update can change the selection (the informer may be unfiltered).
    informers.remoteServices?.on(() => {
      if (this.hasSynced) this.checkSelection();
    });
    // So can a target namespace that starts or stops matching `--namespace-selector`.
    informers.remoteNamespaces?.on(() => {
      if (this.hasSynced) this.checkSelection();
    });
  }

  on(listener: (h: ControllerHealth) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every cache synced: says so (and that nothing is watched, for a Link that reads nothing), then the selection. */
  markSynced(): void {
    this.hasSynced = true;
    if (remoteInformers(this.informers).length === 0) this.tell({ kind: "target", target: { state: "unwatched" } });
    this.tell({ kind: "synced" });
    this.checkSelection(true);
  }

  /** Tells the selection when whether anything is selected changed (and at sync). */
  private checkSelection(force = false): void {
    const selected = this.selectedServices.size > 0;
    if (!force && selected === this.selected) return;
    this.selected = selected;
    const mirrorsExisted = !selected && ownMirrorCount(this.informers, this.cluster) > 0;
    this.tell({
      kind: "selection",
      selection: { selected, mirrorsExisted, ...(this.namespaceSelector && { namespaceSelector: this.namespaceSelector }) },
    });
  }

  private tell(h: ControllerHealth): void {
    for (const l of this.listeners) l(h);
  }
}
