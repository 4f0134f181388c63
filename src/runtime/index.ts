// The runtime every long-running part of mc shares, knowing nothing of clusters: injected time,
// backoff, the keyed work queue, waiting on events. The kube layer builds on it, never the reverse.
export { ManualClock, sleep, systemClock } from "./clock.ts";
export type { Clock } from "./clock.ts";
export { backoffDelay } from "./backoff.ts";
export type { BackoffOptions } from "./backoff.ts";
export { WorkQueue } from "./queue.ts";
export type { Priority, Reconcile, RetryHint, WorkQueueOptions } from "./queue.ts";
export { waitFor, WaitTimeout } from "./wait.ts";
export type { Followable } from "./wait.ts";
