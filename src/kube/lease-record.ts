// Leader election decisions on a coordination.k8s.io/v1 Lease, as client-go's leaderelection makes
// them. Pure: the elector passes the record it read, when it last saw that record change (its own
// clock, so skew between nodes does not matter) and now; this says create, update or wait.

export interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number | null;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number | null;
}

/** The record as last seen, and when (local clock) it was first seen in that state. */
export interface Observation {
  holder: string;
  renewTime: string;
  atMs: number;
}

export type LeaseDecision =
  | { action: "create"; spec: LeaseSpec }
  | { action: "update"; spec: LeaseSpec; acquired: boolean }
  | { action: "wait"; holder: string; expiresInMs: number };

/** Updates the observation: its time moves only when holder or renewTime changed. */
export function observe(prev: Observation | undefined, spec: LeaseSpec | undefined, nowMs: number): Observation {
  const holder = spec?.holderIdentity ?? "";
  const renewTime = spec?.renewTime ?? "";
  if (prev && prev.holder === holder && prev.renewTime === renewTime) return prev;
  return { holder, renewTime, atMs: nowMs };
}

/**
 * What `identity` should do given the lease it read (`undefined` = not found): create it, take or
 * renew it (update), or wait because another holder's lease has not expired. A lease expires
 * `leaseDurationSeconds` after it was last seen to change; a released lease (empty holder) is
 * free at once.
 */
export function decideLease(
  spec: LeaseSpec | undefined,
  observed: Observation,
  nowMs: number,
  identity: string,
  leaseDurationMs: number,
): LeaseDecision {
  const fresh = (): LeaseSpec => ({
    holderIdentity: identity,
    leaseDurationSeconds: Math.max(1, Math.ceil(leaseDurationMs / 1000)),
    acquireTime: microTime(nowMs),
    renewTime: microTime(nowMs),
    leaseTransitions: 0,
  });
  if (!spec) return { action: "create", spec: fresh() };
  const holder = spec.holderIdentity ?? "";
  if (holder === identity) {
    return {
      action: "update",
      acquired: false,
      spec: { ...spec, leaseDurationSeconds: fresh().leaseDurationSeconds, renewTime: microTime(nowMs) },
    };
  }
  if (holder !== "") {
    const durationMs = (spec.leaseDurationSeconds ?? Math.ceil(leaseDurationMs / 1000)) * 1000;
    const expiresInMs = observed.atMs + durationMs - nowMs;
    if (expiresInMs > 0) return { action: "wait", holder, expiresInMs };
  }
  return { action: "update", acquired: true, spec: { ...fresh(), leaseTransitions: (spec.leaseTransitions ?? 0) + 1 } };
}

/** The record a holder writes when it steps down: no holder, so the next candidate takes it at once. */
export function releasedSpec(spec: LeaseSpec, nowMs: number): LeaseSpec {
  return { ...spec, holderIdentity: "", leaseDurationSeconds: 1, renewTime: microTime(nowMs) };
}

/** Kubernetes MicroTime: RFC 3339 with microseconds. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}
