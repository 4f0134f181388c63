// The Link's `status.mirrorServices`: in mc, only the target Services that failed to mirror (docs/linkerd-compatibility.md#differences),
// sorted and capped, so a Link with 10,000 healthy mirrors carries an empty list and never approaches the 1.5 MB object limit. Entries keep
// Linkerd's shape (docs/linkerd-compatibility.md#link-status). Pure.
import { MIRROR_CONTROLLER_NAME } from "../../model/names.ts";
import type { FailureReason } from "../types.ts";

/** At most this many entries are written; the rest are counted in the controller's log and metrics. */
export const MAX_STATUS_ENTRIES = 100;
/** Messages are cut to this many characters. */
export const MAX_MESSAGE_LENGTH = 256;

export interface MirrorFailure {
  namespace: string;
  name: string;
  reason: FailureReason;
  message: string;
  /** RFC 3339: when this failure was first seen. */
  since: string;
  localRef?: { namespace: string; name: string };
}

export interface ObjectRef {
  group: string;
  kind: "Service";
  name: string;
  namespace: string;
}

export interface MirrorServiceStatus {
  controllerName: string;
  remoteRef: ObjectRef;
  conditions: Array<{
    type: "Mirrored";
    status: "False";
    reason: FailureReason;
    message: string;
    lastTransitionTime: string;
    localRef?: ObjectRef;
  }>;
}

/** What keepTransitionTimes needs of an entry (mirrorServices' and federatedServices' alike). */
export interface StatusEntry {
  remoteRef: { namespace: string; name: string };
  conditions: Array<{ reason: string; message: string; lastTransitionTime: string }>;
}

export const ref = (namespace: string, name: string): ObjectRef => ({ group: "", kind: "Service", name, namespace });

/** The entries to write for these failures: sorted by namespace/name, at most `cap`. */
export function mirrorServicesStatus(failures: Iterable<MirrorFailure>, cap = MAX_STATUS_ENTRIES): MirrorServiceStatus[] {
  return [...failures]
    .sort((a, b) => (a.namespace === b.namespace ? cmp(a.name, b.name) : cmp(a.namespace, b.namespace)))
    .slice(0, Math.max(0, cap))
    .map((f) => ({
      controllerName: MIRROR_CONTROLLER_NAME,
      remoteRef: ref(f.namespace, f.name),
      conditions: [
        {
          type: "Mirrored",
          status: "False",
          reason: f.reason,
          message: f.message.length > MAX_MESSAGE_LENGTH ? `${f.message.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : f.message,
          lastTransitionTime: f.since,
          ...(f.localRef && { localRef: ref(f.localRef.namespace, f.localRef.name) }),
        },
      ],
    }));
}

/**
 * `next` with each entry's lastTransitionTime taken from `current` when the same Service
 * already had the same condition there: a restart does not rewrite an unchanged status.
 */
export function keepTransitionTimes<E extends StatusEntry>(current: unknown, next: E[]): E[] {
  const old = new Map<string, { reason?: string; message?: string; lastTransitionTime?: string }>();
  for (const entry of Array.isArray(current) ? current : []) {
    const e = entry as { controllerName?: string; remoteRef?: { namespace?: string; name?: string }; conditions?: unknown[] };
    const c = (e.conditions?.[0] ?? {}) as { reason?: string; message?: string; lastTransitionTime?: string };
    if (e.controllerName === MIRROR_CONTROLLER_NAME) old.set(`${e.remoteRef?.namespace}/${e.remoteRef?.name}`, c);
  }
  return next.map((entry) => {
    const c = entry.conditions[0]!;
    const before = old.get(`${entry.remoteRef.namespace}/${entry.remoteRef.name}`);
    if (!before?.lastTransitionTime || before.reason !== c.reason || before.message !== c.message) return entry;
    return { ...entry, conditions: [{ ...c, lastTransitionTime: before.lastTransitionTime }] };
  });
}

/**
 * The failures a Link's status already lists (written by an earlier controller), so a restarted
 * controller starts from them instead of clearing them before it has looked at those Services.
 */
export function failuresFromStatus(current: unknown): MirrorFailure[] {
  const reasons: readonly string[] = ["MissingNamespace", "InvalidService", "Error"];
  const out: MirrorFailure[] = [];
  for (const entry of Array.isArray(current) ? current : []) {
    const e = entry as { controllerName?: string; remoteRef?: { namespace?: string; name?: string }; conditions?: unknown[] };
    const c = (e.conditions?.[0] ?? {}) as {
      reason?: string;
      message?: string;
      lastTransitionTime?: string;
      localRef?: { namespace?: string; name?: string };
    };
    if (e.controllerName !== MIRROR_CONTROLLER_NAME || !e.remoteRef?.name || !reasons.includes(c.reason ?? "")) continue;
    out.push({
      namespace: e.remoteRef.namespace ?? "",
      name: e.remoteRef.name,
      reason: c.reason as FailureReason,
      message: c.message ?? "",
      since: c.lastTransitionTime ?? "",
      ...(c.localRef?.name && { localRef: { namespace: c.localRef.namespace ?? "", name: c.localRef.name } }),
    });
  }
  return out;
}

/** Whether writing `next` would change what the Link holds (absent and empty are the same). */
export function sameMirrorServices(current: unknown, next: readonly StatusEntry[]): boolean {
  const cur = Array.isArray(current) ? current : [];
  return JSON.stringify(cur.map(canonical)) === JSON.stringify(next.map(canonical));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
