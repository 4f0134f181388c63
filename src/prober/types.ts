// The contract between the service mirror controller (src/mirror) and the gateway prober (src/prober): the controller starts one prober per
// Link that has a probe spec, tells it where to probe, and hears liveness transitions; the prober reports gateway health into the Link's
// status through the writer the controller hands it.
import type { Logger } from "../log.ts";
import type { Metrics } from "../metrics.ts";
import type { GatewayStatus, Link } from "../model/link.ts";

export interface GatewayHealth {
  alive: boolean;
  consecutiveFailures: number;
  /** RFC 3339 times; undefined before the first probe / the first transition. */
  lastProbeTime?: string;
  lastTransitionTime?: string;
  /** Percentiles of successful probes over the last minute, in ms; undefined with no samples. */
  latencyMs?: { p50: number; p95: number; p99: number };
}

export interface ProberOptions {
  link: Link;
  /**
   * Where to probe, as `host:port` (IPv6 hosts bracketed): the probe service's name and
   * `probeSpec.port`, or with `--probe-direct` every resolved gateway address. Read before
   * every round, so address changes apply.
   */
  targets: () => string[];
  /** Called on every liveness transition (never for a probe that changes nothing). */
  onLiveness: (alive: boolean) => void;
  /**
   * Writes `status.gateway` on the Link (a status-subresource merge patch). `gateway` is the
   * whole new value: a field it lacks (`latency` once no probe succeeded for a minute) must be
   * removed, so merge-patch `gatewayStatusPatch(gateway)` from ./status.ts, which nulls them.
   */
  writeStatus: (gateway: GatewayStatus) => Promise<void>;
  metrics: Metrics;
  log: Logger;
}

export interface GatewayProber {
  start(): void;
  /** Stops probing and removes this cluster's gateway metric series. */
  stop(): Promise<void>;
  health(): GatewayHealth;
}

export type ProberFactory = (opts: ProberOptions) => GatewayProber;
