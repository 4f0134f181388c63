// The shortest durations mc accepts, wherever they come from (Link spec, CRD schema, flags):
// each is the floor below which the loop it paces turns hot — a probe every 1 ns, a refresh of
// every mirror every 1 ns — so a value under it is refused with the field's name, never clamped.
// k8s/link-crd.yaml states the Link's two as `pattern`s (test/manifests/crd-limits.test.ts holds
// them to these numbers). Pure.

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
