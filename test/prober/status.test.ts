// status.gateway: its content and when it is written.
import { describe, expect, test } from "bun:test";
import type { GatewayStatus } from "../../src/model/link.ts";
import { decideStatusWrite, gatewayStatus, gatewayStatusPatch, sameGatewayStatus } from "../../src/prober/status.ts";

const T0 = "2026-12-02T10:00:00.000Z";
const T1 = "2026-12-02T10:00:03.000Z";

function status(over: Partial<GatewayStatus> = {}): GatewayStatus {
  return {
    alive: true,
    latency: { p50: "5ms", p95: "9ms", p99: "9ms" },
    lastProbeTime: T0,
    consecutiveFailures: 0,
    lastTransitionTime: T0,
    ...over,
  };
}

describe("status.gateway content", () => {
  test("nothing is known before the first probe", () => {
    expect(gatewayStatus({ alive: true, consecutiveFailures: 0 })).toBeUndefined();
  });

  test("a probed gateway's status carries every field, latencies as whole milliseconds", () => {
    expect(
      gatewayStatus({
        alive: true,
        consecutiveFailures: 0,
        lastProbeTime: T1,
        lastTransitionTime: T0,
        latencyMs: { p50: 4.6, p95: 9, p99: 12.2 },
      }),
    ).toEqual({
      alive: true,
      latency: { p50: "5ms", p95: "9ms", p99: "12ms" },
      lastProbeTime: T1,
      consecutiveFailures: 0,
      lastTransitionTime: T0,
    });
  });

  test("without a successful probe in the window there is no latency", () => {
    expect(gatewayStatus({ alive: false, consecutiveFailures: 4, lastProbeTime: T1, lastTransitionTime: T1 })).toEqual({
      alive: false,
      lastProbeTime: T1,
      consecutiveFailures: 4,
      lastTransitionTime: T1,
    });
  });

  test("the merge patch removes what the status lacks", () => {
    expect(gatewayStatusPatch({ alive: false, lastProbeTime: T1, consecutiveFailures: 4, lastTransitionTime: T1 })).toEqual({
      alive: false,
      latency: null,
      lastProbeTime: T1,
      consecutiveFailures: 4,
      lastTransitionTime: T1,
    });
  });

  test("statuses compare field by field, latency included", () => {
    expect(sameGatewayStatus(status(), status())).toBe(true);
    expect(sameGatewayStatus(status(), status({ latency: { p50: "5ms", p95: "9ms", p99: "10ms" } }))).toBe(false);
    expect(sameGatewayStatus(status(), status({ latency: undefined }))).toBe(false);
  });
});

describe("when status.gateway is written", () => {
  const interval = 10_000;

  test("the first status is written at once", () => {
    expect(decideStatusWrite(undefined, status(), 0, interval)).toEqual({ write: true, reason: "first" });
  });

  test("nothing changed: never written, however long ago the last write was", () => {
    expect(decideStatusWrite({ status: status(), at: 0 }, status(), 1_000_000, interval)).toEqual({ write: false, reason: "unchanged" });
  });

  test("a liveness change is written at once, even right after another write", () => {
    const next = status({ alive: false, consecutiveFailures: 3, lastProbeTime: T1, lastTransitionTime: T1 });
    expect(decideStatusWrite({ status: status(), at: 1000 }, next, 1001, interval)).toEqual({ write: true, reason: "liveness" });
  });

  test("other changes wait for the interval and say when it ends", () => {
    const next = status({ lastProbeTime: T1 });
    expect(decideStatusWrite({ status: status(), at: 1000 }, next, 4000, interval)).toEqual({
      write: false,
      reason: "too-soon",
      dueAt: 11_000,
    });
    expect(decideStatusWrite({ status: status(), at: 1000 }, next, 11_000, interval)).toEqual({ write: true, reason: "interval" });
  });

  test("a failure count below the threshold is not a liveness change", () => {
    const next = status({ consecutiveFailures: 1, lastProbeTime: T1 });
    expect(decideStatusWrite({ status: status(), at: 0 }, next, 3000, interval)).toMatchObject({ write: false, reason: "too-soon" });
  });
});
