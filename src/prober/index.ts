// The gateway prober: what the controller imports. createProber is the production factory;
// proberFactory binds `--status-interval` (and, in tests, the clock, fetch and randomness).
export { proberFactory, Prober } from "./prober.ts";
export type { ProberDeps } from "./prober.ts";
export { gatewayStatusPatch } from "./status.ts";
export type { GatewayProber, ProberOptions } from "./types.ts";
