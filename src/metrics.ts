// The controller's Prometheus metrics: Linkerd's names (label `target_cluster_name`) for the gateway and repairs, plus mc's own for
// mirrors, the work queue, reconciles, watches and writes. One registry per process (or per test), never the global default, and only
// metrics that are true under Bun (prom-client's GC/heap defaults read 0 there: see BUN-NOTES.md).
import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** Linkerd's gateway_probe_latency_ms buckets (multicluster/service-mirror/metrics.go). */
const PROBE_LATENCY_BUCKETS_MS = [
  1, 2, 3, 4, 5, 10, 20, 30, 40, 50, 100, 200, 300, 400, 500, 1000, 2000, 3000, 4000, 5000, 10000, 20000, 30000, 40000, 50000,
];

const CLUSTER = "target_cluster_name";

const MIRROR_STATES = ["mirrored", "failed", "skipped"] as const;
export type MirrorState = (typeof MIRROR_STATES)[number];
const WRITE_VERBS = ["create", "update", "patch", "delete"] as const;
/** The `resource` label values of mc_watch_restarts_total. */
const WATCHED_RESOURCES = ["services", "endpoints", "links", "secrets", "namespaces"] as const;

export interface Metrics {
  registry: Registry;
  gatewayAlive: Gauge<typeof CLUSTER>;
  gatewayEnabled: Gauge<typeof CLUSTER>;
  gatewayLatency: Gauge<typeof CLUSTER>;
  gatewayProbeLatency: Histogram<typeof CLUSTER>;
  gatewayProbes: Counter<typeof CLUSTER | "probe_successful">;
  endpointRepairs: Counter<typeof CLUSTER>;
  mirrors: Gauge<typeof CLUSTER | "state">;
  queueDepth: Gauge<typeof CLUSTER>;
  reconcileDuration: Histogram<typeof CLUSTER>;
  propagation: Histogram<typeof CLUSTER>;
  watchRestarts: Counter<typeof CLUSTER | "resource">;
  apiWrites: Counter<typeof CLUSTER | "verb">;
  livenessOnly: Counter<typeof CLUSTER>;
  /** Removes every series of one cluster (its link was deleted or its controller stopped). */
  forgetCluster(cluster: string): void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const m: Omit<Metrics, "forgetCluster" | "registry"> = {
    gatewayAlive: new Gauge({
      name: "gateway_alive",
      help: "Whether the target cluster's gateway answers its probe (1) or not (0)",
      labelNames: [CLUSTER],
      registers,
    }),
    gatewayEnabled: new Gauge({
      name: "gateway_enabled",
      help: "1 once a probe worker runs for the target cluster's gateway",
      labelNames: [CLUSTER],
      registers,
    }),
    gatewayLatency: new Gauge({
      name: "gateway_latency",
      help: "Latency of the last successful gateway probe, in milliseconds",
      labelNames: [CLUSTER],
      registers,
    }),
    gatewayProbeLatency: new Histogram({
      name: "gateway_probe_latency_ms",
      help: "Latency of successful gateway probes, in milliseconds",
      labelNames: [CLUSTER],
      buckets: PROBE_LATENCY_BUCKETS_MS,
      registers,
    }),
    gatewayProbes: new Counter({
      name: "gateway_probes",
      help: "Gateway probes, by whether they succeeded",
      labelNames: [CLUSTER, "probe_successful"],
      registers,
    }),
    endpointRepairs: new Counter({
      name: "service_mirror_endpoint_repairs",
      help: "Endpoint repair runs",
      labelNames: [CLUSTER],
      registers,
    }),
    mirrors: new Gauge({ name: "mc_mirrors", help: "Mirror services by state", labelNames: [CLUSTER, "state"], registers }),
    queueDepth: new Gauge({
      name: "mc_queue_depth",
      help: "Keys waiting in the controller's work queue",
      labelNames: [CLUSTER],
      registers,
    }),
    reconcileDuration: new Histogram({
      name: "mc_reconcile_duration_seconds",
      help: "Time to reconcile one key",
      labelNames: [CLUSTER],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    propagation: new Histogram({
      name: "mc_propagation_seconds",
      help: "Time from a change of an exported Service or its Endpoints, as the target's watch delivered it, to the mirror written for it",
      labelNames: [CLUSTER],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    watchRestarts: new Counter({
      name: "mc_watch_restarts_total",
      help: "Watches re-opened after a drop or an error",
      labelNames: [CLUSTER, "resource"],
      registers,
    }),
    livenessOnly: new Counter({
      name: "mc_liveness_only_reconciles_total",
      help: "Keys a gateway liveness change reconciled by rewriting only their mirror Endpoints (nothing else had changed)",
      labelNames: [CLUSTER],
      registers,
    }),
    apiWrites: new Counter({
      name: "mc_api_writes_total",
      help: "Writes to the source cluster's API, by verb",
      labelNames: [CLUSTER, "verb"],
      registers,
    }),
  };
  return {
    registry,
    ...m,
    forgetCluster(cluster) {
      const c = { [CLUSTER]: cluster };
      for (const g of [m.gatewayAlive, m.gatewayEnabled, m.gatewayLatency, m.queueDepth]) g.remove(c);
      m.gatewayProbeLatency.remove(c);
      m.reconcileDuration.remove(c);
      m.propagation.remove(c);
      m.endpointRepairs.remove(c);
      m.livenessOnly.remove(c);
      for (const ok of ["true", "false"]) m.gatewayProbes.remove({ ...c, probe_successful: ok });
      for (const state of MIRROR_STATES) m.mirrors.remove({ ...c, state });
      for (const verb of WRITE_VERBS) m.apiWrites.remove({ ...c, verb });
      for (const resource of WATCHED_RESOURCES) m.watchRestarts.remove({ ...c, resource });
    },
  };
}
