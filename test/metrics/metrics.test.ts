// The Prometheus metrics: Linkerd's names, one cluster's series forgotten, registries apart.
import { describe, expect, test } from "bun:test";
import { createMetrics } from "../../src/metrics.ts";

describe("metrics", () => {
  test("exports Linkerd's gateway metric names with target_cluster_name", async () => {
    const m = createMetrics();
    m.gatewayAlive.set({ target_cluster_name: "east" }, 1);
    m.gatewayProbes.inc({ target_cluster_name: "east", probe_successful: "true" });
    m.gatewayProbeLatency.observe({ target_cluster_name: "east" }, 12);
    const text = await m.registry.metrics();
    expect(text).toContain('gateway_alive{target_cluster_name="east"} 1');
    expect(text).toContain('gateway_probes{target_cluster_name="east",probe_successful="true"} 1');
    expect(text).toContain('gateway_probe_latency_ms_bucket{le="20",target_cluster_name="east"} 1');
  });

  test("forgetCluster removes one cluster's series and keeps the others", async () => {
    const m = createMetrics();
    for (const c of ["east", "north"]) {
      m.gatewayAlive.set({ target_cluster_name: c }, 1);
      m.apiWrites.inc({ target_cluster_name: c, verb: "create" });
      m.mirrors.set({ target_cluster_name: c, state: "mirrored" }, 3);
    }
    m.forgetCluster("east");
    const text = await m.registry.metrics();
    expect(text).not.toContain('"east"');
    expect(text).toContain('gateway_alive{target_cluster_name="north"} 1');
    expect(text).toContain('mc_api_writes_total{target_cluster_name="north",verb="create"} 1');
  });

  test("two registries do not share series", async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.gatewayAlive.set({ target_cluster_name: "east" }, 1);
    expect(await b.registry.metrics()).not.toContain("east");
  });
});
