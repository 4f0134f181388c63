// When a Link's status.gateway stops saying anything about now: the one rule `mc gateways` and
// `mc check` both apply (the controller probes every period; a missed few mean it is not running).
import type { GatewayStatus } from "./link.ts";

/** A status is stale once its last probe is older than 3 probe periods, and never sooner than this. */
const MIN_STALE_MS = 30_000;

/** How old a status may be before it is stale: max(3 × period, 30 s). */
export function staleAfterMs(periodMs: number): number {
  return Math.max(3 * periodMs, MIN_STALE_MS);
}

/** Whether a status no longer says anything about now; a missing or unreadable probe time is stale. */
export function isStale(status: GatewayStatus | undefined, periodMs: number, now: number): boolean {
  const at = status?.lastProbeTime === undefined ? Number.NaN : Date.parse(status.lastProbeTime);
  if (Number.isNaN(at)) return true;
  return now - at > staleAfterMs(periodMs);
}
