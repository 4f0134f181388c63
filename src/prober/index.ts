// The gateway prober: what the controller imports. createProber is the production factory;
// proberFactory binds `--status-interval` (and, in tests, the clock, fetch and randomness).
export { createProber, proberFactory, Prober } from "./prober.ts";
export type { ProberDeps, RoundReport } from "./prober.ts";
export { DEFAULT_STATUS_INTERVAL_MS, gatewayStatusPatch } from "./status.ts";
export type { GatewayHealth, GatewayProber, ProberFactory, ProberOptions } from "./types.ts";
