// The Link's `status.federatedServices`: one entry per target Service of this Link that is, or tried to be, a federated member.
import { MIRROR_CONTROLLER_NAME } from "../../model/names.ts";
import type { Clock } from "../../runtime/index.ts";
import type { FederatedPlan } from "./federated.ts";
import { serviceKey, splitServiceKey, type ServiceKey } from "../sources/keys.ts";
import { cmp, MAX_MESSAGE_LENGTH, MAX_STATUS_ENTRIES, ref, type ObjectRef } from "../status/status.ts";
import type { FailureReason } from "../types.ts";

// The Link's `status.federatedServices` (docs/linkerd-compatibility.md#link-status): one entry per
// target Service of this Link that is (or tried to be) a member of a federated Service — `Mirrored`
// True with the federated Service as localRef once joined, False with Linkerd's reason when refused
// (a headless member is `InvalidService`, a missing namespace `MissingNamespace`, a foreign Service
// on the name `Error`). Leaving removes the entry. Failures sort first, and the list is capped like
// mirrorServices so the Link never approaches the object size limit. Pure, plus the memory the
// controller keeps.

export interface FederatedEntry {
  namespace: string;
  name: string;
  joined: boolean;
  reason: "Mirrored" | FailureReason;
  message: string;
  /** RFC 3339: when this condition was first seen. */
  since: string;
  /** The federated Service (joined) or the foreign Service on its name. */
  localRef?: { namespace: string; name: string };
}

export interface FederatedServiceStatus {
  controllerName: string;
  remoteRef: ObjectRef;
  conditions: Array<{
    type: "Mirrored";
    status: "True" | "False";
    reason: FederatedEntry["reason"];
    message: string;
    lastTransitionTime: string;
    localRef?: ObjectRef;
  }>;
}

/** The entry a plan's outcome leaves (null: none — not a member, nothing wrong). */
function entryOf(key: ServiceKey, plan: FederatedPlan, before: FederatedEntry | undefined, now: number): FederatedEntry | null {
  const { namespace, name } = splitServiceKey(key);
  const next: Omit<FederatedEntry, "since"> | null = plan.problem
    ? {
        namespace,
        name,
        joined: false,
        reason: plan.problem.reason,
        message: plan.problem.message,
        ...(plan.problem.localRef && { localRef: plan.problem.localRef }),
      }
    : plan.member
      ? { namespace, name, joined: true, reason: "Mirrored", message: "", localRef: { namespace, name: plan.name } }
      : null;
  if (!next) return null;
  if (before && before.reason === next.reason && before.message === next.message && before.joined === next.joined) return before;
  return { ...next, since: new Date(now).toISOString() };
}

/** The entries to write: failures first, each group by namespace/name, at most `cap`. */
export function federatedServicesStatus(entries: Iterable<FederatedEntry>, cap = MAX_STATUS_ENTRIES): FederatedServiceStatus[] {
  return [...entries]
    .sort((a, b) => Number(a.joined) - Number(b.joined) || cmp(a.namespace, b.namespace) || cmp(a.name, b.name))
    .slice(0, Math.max(0, cap))
    .map((e) => ({
      controllerName: MIRROR_CONTROLLER_NAME,
      remoteRef: ref(e.namespace, e.name),
      conditions: [
        {
          type: "Mirrored",
          status: e.joined ? "True" : "False",
          reason: e.reason,
          message: e.message.length > MAX_MESSAGE_LENGTH ? `${e.message.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : e.message,
          lastTransitionTime: e.since,
          ...(e.localRef && { localRef: ref(e.localRef.namespace, e.localRef.name) }),
        },
      ],
    }));
}

/** The entries a Link's status already lists, so a restarted controller does not rewrite them. */
export function federatedFromStatus(current: unknown): FederatedEntry[] {
  const out: FederatedEntry[] = [];
  for (const item of Array.isArray(current) ? current : []) {
    const e = item as Partial<FederatedServiceStatus>;
    const c = e.conditions?.[0];
    if (e.controllerName !== MIRROR_CONTROLLER_NAME || !e.remoteRef?.name || !c) continue;
    out.push({
      namespace: e.remoteRef.namespace ?? "",
      name: e.remoteRef.name,
      joined: c.status === "True",
      reason: c.reason,
      message: c.message ?? "",
      since: c.lastTransitionTime ?? "",
      ...(c.localRef?.name && { localRef: { namespace: c.localRef.namespace ?? "", name: c.localRef.name } }),
    });
  }
  return out;
}

/** This controller's federated memberships, as the Link status lists them. */
export class FederatedOutcomes {
  private readonly entries = new Map<ServiceKey, FederatedEntry>();

  constructor(
    private readonly clock: Clock,
    /** Told when the list changed (the Link status needs a write). */
    private readonly onChanged: () => void = () => {},
  ) {}

  seed(entries: Iterable<FederatedEntry>): void {
    for (const e of entries) this.entries.set(serviceKey(e.namespace, e.name), e);
  }

  /** Records a reconcile's plan; true when this Service's entry changed. */
  record(key: ServiceKey, plan: FederatedPlan): boolean {
    const before = this.entries.get(key);
    const next = entryOf(key, plan, before, this.clock.now());
    if (next === before || (next === null && before === undefined)) return false;
    if (next) this.entries.set(key, next);
    else this.entries.delete(key);
    this.onChanged();
    return true;
  }

  entryOf(key: ServiceKey): FederatedEntry | undefined {
    return this.entries.get(key);
  }

  all(): Iterable<FederatedEntry> {
    return this.entries.values();
  }

  keys(): Iterable<ServiceKey> {
    return this.entries.keys();
  }
}
