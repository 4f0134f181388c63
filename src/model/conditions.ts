// A Link's `status.conditions`, as Kubernetes API conventions have them, and mc's condition types.

// A Link's `status.conditions`, as Kubernetes API conventions have them (metav1.Condition: type,
// status True/False/Unknown, a CamelCase reason, a message, lastTransitionTime — changed only
// when the status changes — and observedGeneration). mc's: Ready, CredentialsValid,
// TargetReachable, ServicesSelected (docs/decisions.md#d53), and Conflicted, written only once two
// Links target one cluster (True on both while they do). Pure.

type ConditionStatus = "True" | "False" | "Unknown";

export interface Condition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  /** RFC 3339. */
  lastTransitionTime: string;
  observedGeneration?: number;
}

const LINK_CONDITIONS = ["Ready", "CredentialsValid", "TargetReachable", "ServicesSelected", "Conflicted"] as const;

/** Conditions whose True is the problem (kube's `Conflicted` style, as Gateway API listeners have it). */
export const TRUE_IS_PROBLEM: ReadonlySet<string> = new Set(["Conflicted"]);
export type LinkConditionType = (typeof LINK_CONDITIONS)[number];

/** What a condition says, without its times. */
export interface ConditionState {
  status: ConditionStatus;
  reason: string;
  message: string;
}

export type ConditionUpdates = Partial<Record<LinkConditionType, ConditionState>>;

/** The conditions of a status object, well-formed ones only. */
export function readConditions(status: unknown): Condition[] {
  const list = (status as { conditions?: unknown } | null | undefined)?.conditions;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (c): c is Condition =>
      typeof c === "object" &&
      c !== null &&
      typeof (c as Condition).type === "string" &&
      ["True", "False", "Unknown"].includes((c as Condition).status) &&
      typeof (c as Condition).reason === "string",
  );
}

export function findCondition(conditions: readonly Condition[], type: LinkConditionType): Condition | undefined {
  return conditions.find((c) => c.type === type);
}

/**
 * `current` with `updates` applied at `now`: a condition whose status changes gets `now` as its
 * lastTransitionTime, one whose status stays keeps its time (even if reason or message moved);
 * conditions not updated are kept as they are. In LINK_CONDITIONS order, then any others.
 * `transitions` are the updated conditions whose status or reason changed (each deserves an Event).
 */
export function applyConditions(
  current: readonly Condition[],
  updates: ConditionUpdates,
  now: string,
  generation?: number,
): { conditions: Condition[]; transitions: Condition[] } {
  const byType = new Map(current.map((c) => [c.type, c]));
  const transitions: Condition[] = [];
  for (const [type, state] of Object.entries(updates) as Array<[LinkConditionType, ConditionState]>) {
    const before = byType.get(type);
    const next: Condition = {
      type,
      status: state.status,
      reason: state.reason,
      message: state.message,
      lastTransitionTime: before && before.status === state.status ? before.lastTransitionTime : now,
      ...(generation !== undefined && { observedGeneration: generation }),
    };
    if (!before || before.status !== next.status || before.reason !== next.reason) transitions.push(next);
    byType.set(type, next);
  }
  const order = (t: string) => {
    const i = (LINK_CONDITIONS as readonly string[]).indexOf(t);
    return i < 0 ? LINK_CONDITIONS.length : i;
  };
  const conditions = [...byType.values()].sort((a, b) => order(a.type) - order(b.type) || a.type.localeCompare(b.type));
  return { conditions, transitions };
}

/** Whether two lists say the same (times included). */
export function sameConditions(a: readonly Condition[], b: readonly Condition[]): boolean {
  const key = (l: readonly Condition[]) =>
    JSON.stringify(l.map((c) => [c.type, c.status, c.reason, c.message, c.lastTransitionTime, c.observedGeneration ?? null]));
  return key(a) === key(b);
}
