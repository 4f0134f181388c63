// The runtime every long-running part of mc shares, knowing nothing of clusters: injected time,
// backoff, the keyed work queue, waiting on events. The kube layer builds on it, never the reverse.
export { sleep, systemClock } from "./clock.ts";
export type { Clock } from "./clock.ts";
export type { BackoffOptions } from "./backoff.ts";
export { WorkQueue } from "./queue.ts";
export type { Priority } from "./queue.ts";
