// The shortest and longest durations mc accepts, wherever they come from (Link spec, CRD schema, flags).

// The shortest and longest durations mc accepts, wherever they come from (Link spec, CRD schema,
// flags): a floor is where the loop it paces turns hot (a probe every 1 ns), a ceiling where it
// stops doing its job (a Lease that blocks the next leader for weeks); a value outside is refused
// with the field's name, never clamped. k8s/link-crd.yaml states the Link's as `pattern`s
// (test/manifests/crd-limits.test.ts holds them to these numbers). Pure.

/** `spec.probeSpec.period`: the gateway is probed this often at most. */
export const MIN_PROBE_PERIOD_MS = 1_000;
/** `spec.probeSpec.timeout`: one probe request. */
export const MIN_PROBE_TIMEOUT_MS = 100;
/** `mc serve --endpoint-refresh-period`: every mirror is re-checked (and the gateway re-resolved) each period. */
export const MIN_REFRESH_PERIOD_MS = 10_000;
/** `mc serve --status-interval`: a steady status.gateway is rewritten at most this often. */
export const MIN_STATUS_INTERVAL_MS = 1_000;
/** `mc serve --leader-elect-lease-duration`, `-renew-deadline`, `-retry-period` (kube's are 15s, 10s, 2s; mc's 30s, 10s, 2s). */
export const MIN_LEASE_DURATION_MS = 1_000;
export const MIN_LEASE_RENEW_DEADLINE_MS = 500;
export const MIN_LEASE_RETRY_PERIOD_MS = 100;
/** `mc sandbox --drop-watches-every` (0 = never): each one ends every watch, and every client relists. */
export const MIN_FAULT_PERIOD_MS = 100;
/** `mc check --timeout`: one API call. */
export const MIN_API_TIMEOUT_MS = 100;

/**
 * The ceiling of every duration without one of its own (`--wait`, `--drop-watches-every`, …): a
 * day, below the 2^31−1 ms a JavaScript timer takes in one step (longer ones fire at once; every
 * timer of mc waits in steps anyway, src/runtime/clock.ts `setLongTimer`).
 */
export const MAX_DURATION_MS = 24 * 3600_000;
/** `spec.probeSpec.period` and `timeout`: a gateway probed less often than hourly is not watched. */
export const MAX_PROBE_PERIOD_MS = 3600_000;
export const MAX_PROBE_TIMEOUT_MS = 3600_000;
/** `mc serve --endpoint-refresh-period`: a missed event is repaired within a day at the latest. */
export const MAX_REFRESH_PERIOD_MS = 24 * 3600_000;
/** `mc serve --status-interval`: status.gateway is at most an hour old. */
export const MAX_STATUS_INTERVAL_MS = 3600_000;
/** `mc serve --leader-elect-*`: a Lease left by a dead leader blocks the next one at most this long. */
export const MAX_LEASE_MS = 10 * 60_000;
/** `mc check --timeout`: one API call. */
export const MAX_API_TIMEOUT_MS = 3600_000;
