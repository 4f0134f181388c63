// The prober on a ManualClock with a scripted fetch: timing, thresholds, metrics, status
// writes and stop(), each in a few milliseconds.
import { describe, expect, test } from "bun:test";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { createMetrics, type Metrics } from "../../src/metrics.ts";
import type { GatewayStatus } from "../../src/model/link.ts";
import { proberFactory } from "../../src/prober/prober.ts";
import { probedLink, recordingLog, scriptedFetch, type Answer } from "./helpers.ts";
import { rig } from "./rig.ts";

async function series(m: Metrics) {
  const families = parsePrometheusTextFormat(await m.registry.metrics());
  const value = (name: string, labels: Record<string, string> = {}) =>
    families
      .find((f) => f.name === name)
      ?.metrics.find((s) => Object.entries({ target_cluster_name: "east", ...labels }).every(([k, v]) => s.labels?.[k] === v))?.value;
  const histogram = families.find((f) => f.name === "gateway_probe_latency_ms")?.metrics[0]?.buckets;
  return { value, histogram, families };
}

describe("prober timing", () => {
  test("the first probe runs one period plus jitter after start, not at once", async () => {
    const r = rig(() => 200, { deps: { random: () => 0.5 } });
    r.prober.start();
    expect(r.urls).toEqual([]);
    expect(r.clock.pendingDelays()).toEqual([1050]);
    r.clock.advance(1049);
    expect(r.urls).toEqual([]);
    r.clock.advance(1);
    await r.prober.idle();
    expect(r.urls).toEqual(["http://10.0.0.1:4191/ready"]);
    await r.prober.stop();
  });

  test("rounds follow every period with uniform jitter in [0, period/10)", async () => {
    const randoms = [0, 0.999, 0.25];
    const r = rig(() => 200, { deps: { random: () => randoms.shift() ?? 0 } });
    r.prober.start();
    const delays = [r.clock.pendingDelays()[0]];
    for (let i = 0; i < 2; i++) {
      await r.tick();
      delays.push(r.clock.pendingDelays().find((d) => d >= 1000));
    }
    expect(delays[0]).toBe(1000);
    expect(delays[1]).toBeCloseTo(1099.9, 3);
    expect(delays[2]).toBe(1025);
    await r.prober.stop();
  });

  test("a round that outlasts the period is followed by the next at once", async () => {
    const r = rig(() => "hang", { link: { timeout: "2s" } });
    r.prober.start();
    r.clock.advance(1000); // the round starts and hangs for its 2 s timeout
    r.clock.advance(2000);
    await r.prober.idle();
    expect(r.clock.pendingDelays()).toEqual([0]);
    await r.prober.stop();
  });
});

describe("prober liveness", () => {
  test("threshold failures report dead once; one success reports alive again", async () => {
    const script: Answer[] = [200, 500, 500, 500, 500, 200, 200];
    const r = rig((_, n) => script[n - 1] ?? 200);
    r.prober.start();
    const seen: boolean[][] = [];
    for (let i = 0; i < script.length; i++) {
      await r.tick();
      seen.push([...r.liveness]);
    }
    expect(seen).toEqual([[], [], [], [false], [false], [false, true], [false, true]]);
    expect(r.log.at("warn")).toEqual(["gateway east became unreachable after 3 failed probes (10.0.0.1:4191: HTTP 500)"]);
    expect(r.log.at("info")).toContain("gateway east is reachable again after 4 failed probes");
    await r.prober.stop();
  });

  test("a probe that hangs fails at probeSpec.timeout", async () => {
    const r = rig(() => "hang", { link: { failureThreshold: "1", timeout: "300ms" } });
    r.prober.start();
    r.clock.advance(1000); // the round starts and hangs
    expect(r.liveness).toEqual([]);
    r.clock.advance(299);
    expect(r.liveness).toEqual([]);
    r.clock.advance(1);
    await r.prober.idle();
    expect(r.liveness).toEqual([false]);
    expect(r.log.at("warn")[0]).toContain("no answer within 300ms");
    await r.prober.stop();
  });

  test("a refused connection and a missing address are failures", async () => {
    let targets = ["10.0.0.1:4191"];
    const r = rig(() => "refused", { link: { failureThreshold: "1" }, targets: () => targets });
    r.prober.start();
    await r.tick();
    expect(r.log.at("warn")[0]).toContain("connection refused");
    targets = [];
    await r.tick();
    expect(r.prober.health().consecutiveFailures).toBe(2);
    expect(r.log.at("debug")).toEqual(["http://10.0.0.1:4191/ready: connection refused after 0ms"]);
    await r.prober.stop();
  });

  test("with several targets the gateway is alive only while all of them answer 200", async () => {
    let dead = "";
    const r = rig((url) => (url.includes(dead || "none") ? 500 : 200), {
      link: { failureThreshold: "1" },
      targets: () => ["10.0.0.1:4191", "10.0.0.2:4191", "10.0.0.1:4191"],
    });
    r.prober.start();
    await r.tick();
    expect(r.urls).toEqual(["http://10.0.0.1:4191/ready", "http://10.0.0.2:4191/ready"]); // duplicates probed once
    dead = "10.0.0.2";
    await r.tick();
    expect(r.liveness).toEqual([false]);
    expect(r.log.at("info")).toContain("gateway east address 10.0.0.2:4191 stopped answering: HTTP 500");
    expect(r.log.at("warn")).toEqual(["gateway east became unreachable after 1 failed probes (10.0.0.2:4191: HTTP 500)"]);
    dead = "";
    await r.tick();
    expect(r.liveness).toEqual([false, true]);
    expect(r.log.at("info")).toContain("gateway east address 10.0.0.2:4191 answers again");
    await r.prober.stop();
  });

  test("targets() is read before every round, so address changes apply", async () => {
    let targets = ["10.0.0.1:4191"];
    const r = rig(() => 200, { targets: () => targets });
    r.prober.start();
    await r.tick();
    targets = ["[2001:db8::1]:4191"];
    await r.tick();
    expect(r.urls).toEqual(["http://10.0.0.1:4191/ready", "http://[2001:db8::1]:4191/ready"]);
    await r.prober.stop();
  });
});

describe("prober metrics", () => {
  test("gateway series follow Linkerd's names and parse as Prometheus text", async () => {
    const script: Answer[] = [200, 500, 500, 500];
    const r = rig((_, n) => script[n - 1] ?? 200, { delayMs: 12 });
    r.prober.start();
    let s = await series(r.metrics);
    expect(s.value("gateway_enabled")).toBe("1");
    expect(s.value("gateway_alive")).toBeUndefined(); // nothing known before the first probe
    await r.tick();
    s = await series(r.metrics);
    expect([s.value("gateway_alive"), s.value("gateway_latency"), s.value("gateway_probes", { probe_successful: "true" })]).toEqual([
      "1",
      "12",
      "1",
    ]);
    expect(s.histogram).toMatchObject({ "10": "0", "20": "1", "+Inf": "1" });
    for (let i = 0; i < 3; i++) await r.tick();
    s = await series(r.metrics);
    expect([s.value("gateway_alive"), s.value("gateway_latency"), s.value("gateway_probes", { probe_successful: "false" })]).toEqual([
      "0",
      "12",
      "3",
    ]);
    await r.prober.stop();
    s = await series(r.metrics);
    for (const name of ["gateway_alive", "gateway_enabled", "gateway_latency", "gateway_probes", "gateway_probe_latency_ms"]) {
      expect(s.families.find((f) => f.name === name)?.metrics ?? []).toEqual([]);
    }
  });

  test("stop() removes only this cluster's gateway series", async () => {
    const r = rig(() => 200);
    r.metrics.gatewayAlive.set({ target_cluster_name: "north" }, 1);
    r.metrics.endpointRepairs.inc({ target_cluster_name: "east" });
    r.prober.start();
    await r.tick();
    await r.prober.stop();
    const text = await r.metrics.registry.metrics();
    expect(text).toContain('gateway_alive{target_cluster_name="north"} 1');
    expect(text).toContain('service_mirror_endpoint_repairs{target_cluster_name="east"} 1');
    expect(text).not.toContain('gateway_alive{target_cluster_name="east"}');
  });
});

describe("prober stop", () => {
  test("stop() aborts an in-flight probe, cancels every timer, and reports nothing afterwards", async () => {
    const r = rig(() => "hang", { link: { failureThreshold: "1" } });
    r.prober.start();
    r.clock.advance(1000);
    await r.prober.stop();
    expect(r.liveness).toEqual([]);
    expect(r.writes).toEqual([]);
    r.clock.advance(60_000);
    await r.prober.idle();
    expect(r.urls).toHaveLength(1);
    expect(r.liveness).toEqual([]);
    expect(r.log.at("info").at(-1)).toBe("stopped probing gateway east");
  });

  test("start() after stop() does nothing, and stop() twice is one stop", async () => {
    const r = rig(() => 200);
    await Promise.all([r.prober.stop(), r.prober.stop()]);
    r.prober.start();
    expect(r.clock.pending).toBe(0);
  });

  test("a Link without a probe spec gets no prober", () => {
    const link = { ...probedLink(), probe: null };
    expect(() =>
      proberFactory()({
        link,
        targets: () => [],
        onLiveness: () => {},
        writeStatus: async () => {},
        metrics: createMetrics(),
        log: recordingLog(),
      }),
    ).toThrow(/has no probeSpec/);
  });
});

describe("prober status writes", () => {
  test("health before the first probe is the assumed-alive state", () => {
    const r = rig(() => 200);
    expect(r.prober.health()).toEqual({ alive: true, consecutiveFailures: 0 });
  });

  test("written at the first probe, at once on a liveness change, otherwise at most every status interval", async () => {
    const script: Answer[] = [200, 200, 200, 500, 200, 200, 200, 200, 200];
    const r = rig((_, n) => script[n - 1] ?? 200, { link: { failureThreshold: "1", period: "3s" }, deps: { statusIntervalMs: 10_000 } });
    const t0 = r.clock.now();
    r.prober.start();
    for (let i = 0; i < 9; i++) await r.tick();
    // probes at 3 6 9 12 15 18 21 24 27 s: 3 (first), 12 (dead), 15 (alive), then the interval: 25.
    expect(r.writes.map((w) => [(w.at - t0) / 1000, w.status.alive])).toEqual([
      [3, true],
      [12, false],
      [15, true],
      [25, true],
    ]);
    expect(r.writes[1]!.status).toEqual({
      alive: false,
      latency: { p50: "0ms", p95: "0ms", p99: "0ms" },
      lastProbeTime: "2026-12-02T10:00:12.000Z",
      consecutiveFailures: 1,
      lastTransitionTime: "2026-12-02T10:00:12.000Z",
    });
    expect(r.writes[3]!.status.lastProbeTime).toBe("2026-12-02T10:00:24.000Z");
    await r.prober.stop();
  });

  test("nothing is written while nothing changes", async () => {
    const r = rig(() => 200, { deps: { statusIntervalMs: 10 } });
    r.prober.start();
    await r.tick();
    expect(r.writes).toHaveLength(1);
    r.clock.advance(500); // less than a period: no probe, no new status
    await r.prober.idle();
    expect(r.writes).toHaveLength(1);
    await r.prober.stop();
  });

  test("a failed write is logged once and retried after the next probe", async () => {
    let failing = true;
    const written: GatewayStatus[] = [];
    const r = rig(() => 200, {
      writeStatus: async (s) => {
        if (failing) throw new Error("patch links.multicluster.linkerd.io linkerd-multicluster/east on west: 503 ServiceUnavailable");
        written.push(s);
      },
    });
    r.prober.start();
    await r.tick();
    await r.tick();
    expect(r.log.at("warn")).toEqual([
      "could not write status.gateway of Link linkerd-multicluster/east: patch links.multicluster.linkerd.io linkerd-multicluster/east on west: 503 ServiceUnavailable; retrying after the next probe",
    ]);
    failing = false;
    await r.tick();
    expect(written).toHaveLength(1);
    expect(r.log.at("info")).toContain("writing status.gateway of Link linkerd-multicluster/east works again");
    await r.prober.stop();
  });

  test("a throwing liveness handler is logged and probing goes on", async () => {
    const r = rig(() => 500, { link: { failureThreshold: "1" } });
    const p = proberFactory({ clock: r.clock, fetch: scriptedFetch(() => 500), random: () => 0 })({
      link: probedLink({ failureThreshold: "1" }),
      targets: () => ["10.0.0.1:4191"],
      onLiveness: () => {
        throw new Error("queue closed");
      },
      writeStatus: async () => {},
      metrics: r.metrics,
      log: r.log,
    });
    p.start();
    r.clock.advance(1000);
    await p.idle();
    expect(r.log.at("error")).toEqual(["liveness handler for gateway east failed: queue closed"]);
    expect(r.clock.pendingDelays()).toEqual([1000]);
    await p.stop();
  });
});
