// status.gateway as the controller writes it for its prober, through the Link's status
// subresource on a sandbox: each write replaces the whole object, so a field the prober no longer
// reports (a latency that ran out of its window) is removed, not kept by the merge patch.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { GatewayStatus } from "../../src/model/link.ts";
import type { GatewayProber, ProberOptions } from "../../src/prober/index.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { readLink, startController } from "./harness.ts";

let pair: Pair;
beforeEach(async () => {
  pair = await startPair();
});
afterEach(async () => {
  await pair.stop();
});

/** A prober factory that only hands the test the controller's options (no probing). */
function capturingProber(): { factory: (o: ProberOptions) => GatewayProber; options: () => ProberOptions } {
  let captured: ProberOptions | undefined;
  const factory = (o: ProberOptions): GatewayProber => {
    captured = o;
    return { start() {}, stop: async () => {}, health: () => ({ alive: true, consecutiveFailures: 0 }) };
  };
  return {
    factory,
    options: () => {
      if (!captured) throw new Error("the controller made no prober");
      return captured;
    },
  };
}

const storedGateway = () => (readLink(pair.west) as { status?: { gateway?: GatewayStatus } } | undefined)?.status?.gateway;

describe("status.gateway written by the controller", () => {
  test("a status without latency removes the latency an earlier write stored", async () => {
    const prober = capturingProber();
    await startController(pair, {}, { proberFactory: prober.factory });
    const { writeStatus } = prober.options();

    const alive: GatewayStatus = {
      alive: true,
      latency: { p50: "3ms", p95: "9ms", p99: "14ms" },
      lastProbeTime: "2026-12-02T10:00:10.000Z",
      consecutiveFailures: 0,
      lastTransitionTime: "2026-12-02T10:00:10.000Z",
    };
    await writeStatus(alive);
    expect(storedGateway()).toEqual(alive);

    const dead: GatewayStatus = {
      alive: false,
      lastProbeTime: "2026-12-02T10:01:20.000Z",
      consecutiveFailures: 7,
      lastTransitionTime: "2026-12-02T10:00:40.000Z",
    };
    await writeStatus(dead);
    expect(storedGateway()).toEqual(dead);
    expect(Object.keys(storedGateway() ?? {})).not.toContain("latency");
  });
});
