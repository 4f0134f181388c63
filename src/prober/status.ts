// status.gateway on the Link: what it says (from the prober's health) and when to write it —
// at once when `alive` changed, otherwise at most every `intervalMs`, never when nothing
// changed. Pure: the caller passes the time and remembers what it last wrote.
import type { GatewayStatus } from "../model/link.ts";
import { DEFAULT_MIRROR_SETTINGS } from "../model/mirror-settings.ts";
import { formatLatency } from "./latency.ts";
import type { GatewayHealth } from "./types.ts";

/** `--status-interval` default: the fastest a steady status is rewritten (its row's default). */
export const DEFAULT_STATUS_INTERVAL_MS = DEFAULT_MIRROR_SETTINGS.statusInterval;

/**
 * The status for a health snapshot; undefined before the first probe (nothing is known yet).
 * Every field is always present once probing started, except `latency` (no successful probe in
 * the window): the writer must remove what is absent (send `null` in a merge patch).
 */
export function gatewayStatus(health: GatewayHealth): GatewayStatus | undefined {
  if (health.lastProbeTime === undefined) return undefined;
  const status: GatewayStatus = { alive: health.alive };
  if (health.latencyMs) {
    status.latency = {
      p50: formatLatency(health.latencyMs.p50),
      p95: formatLatency(health.latencyMs.p95),
      p99: formatLatency(health.latencyMs.p99),
    };
  }
  status.lastProbeTime = health.lastProbeTime;
  status.consecutiveFailures = health.consecutiveFailures;
  if (health.lastTransitionTime !== undefined) status.lastTransitionTime = health.lastTransitionTime;
  return status;
}

export interface WrittenStatus {
  status: GatewayStatus;
  /** Epoch ms of the write. */
  at: number;
}

export type StatusWriteDecision =
  | { write: true; reason: "first" | "liveness" | "interval" }
  | { write: false; reason: "unchanged" }
  /** Changed, but written too recently: decide again at `dueAt`. */
  | { write: false; reason: "too-soon"; dueAt: number };

export function decideStatusWrite(
  last: WrittenStatus | undefined,
  next: GatewayStatus,
  now: number,
  intervalMs: number,
): StatusWriteDecision {
  if (last === undefined) return { write: true, reason: "first" };
  if (sameGatewayStatus(last.status, next)) return { write: false, reason: "unchanged" };
  if (last.status.alive !== next.alive) return { write: true, reason: "liveness" };
  const dueAt = last.at + intervalMs;
  return now >= dueAt ? { write: true, reason: "interval" } : { write: false, reason: "too-soon", dueAt };
}

export function sameGatewayStatus(a: GatewayStatus, b: GatewayStatus): boolean {
  return (
    a.alive === b.alive &&
    a.lastProbeTime === b.lastProbeTime &&
    a.consecutiveFailures === b.consecutiveFailures &&
    a.lastTransitionTime === b.lastTransitionTime &&
    a.latency?.p50 === b.latency?.p50 &&
    a.latency?.p95 === b.latency?.p95 &&
    a.latency?.p99 === b.latency?.p99
  );
}

/**
 * The merge patch for `status.gateway` that makes it equal `status`: absent fields become
 * `null` so a stale latency does not survive. For writers that merge-patch the status.
 */
export function gatewayStatusPatch(status: GatewayStatus): Record<string, unknown> {
  return {
    alive: status.alive ?? null,
    latency: status.latency ? { p50: status.latency.p50 ?? null, p95: status.latency.p95 ?? null, p99: status.latency.p99 ?? null } : null,
    lastProbeTime: status.lastProbeTime ?? null,
    consecutiveFailures: status.consecutiveFailures ?? null,
    lastTransitionTime: status.lastTransitionTime ?? null,
  };
}
