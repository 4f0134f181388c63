// The status.gateway the prober writes, through the Link CRD's status subresource on a sandbox:
// the CRD's schema accepts it (formats duration and date-time are checked), a merge patch with
// gatewayStatusPatch removes a latency that ran out, and `kubectl get links` shows it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { createMetrics } from "../../src/metrics.ts";
import { linkResource, parseLink, type GatewayStatus } from "../../src/model/link.ts";
import { proberFactory } from "../../src/prober/prober.ts";
import { gatewayStatusPatch } from "../../src/prober/status.ts";
import { gatewaysSandbox, NS, type GatewaysSandbox } from "../gateways/fixtures.ts";
import { hasKubectl, kubectlFor } from "../helpers/kubectl.ts";
import { manualTimeout, recordingLog, scriptedFetch, type Answer } from "./helpers.ts";

let t: GatewaysSandbox;
beforeAll(async () => {
  t = await gatewaysSandbox();
});
afterAll(async () => {
  await t.sb.stop();
});

describe("status.gateway on the Link", () => {
  test("the prober's status passes the CRD schema, loses a latency that ran out, and shows in kubectl get links", async () => {
    await t.addLink("east", { period: "10s" });
    const link = parseLink(await t.client.get(linkResource, NS, "east"));
    let answer: Answer = 200;
    let extra = 0;
    const clock = new ManualClock(Date.parse("2026-12-02T10:00:00Z"));
    const prober = proberFactory({
      clock,
      elapsed: () => clock.now() + extra,
      fetch: scriptedFetch(
        () => answer,
        () => void (extra += 12),
      ),
      random: () => 0,
      timeoutSignal: manualTimeout(clock),
      statusIntervalMs: 0,
    })({
      link,
      targets: () => ["10.0.0.1:4191"],
      onLiveness: () => {},
      writeStatus: async (s) => {
        await t.client.patch(
          linkResource,
          NS,
          "east",
          { status: { gateway: gatewayStatusPatch(s) } },
          { type: "merge", subresource: "status" },
        );
      },
      metrics: createMetrics(),
      log: recordingLog(),
    });
    const stored = async () => ((await t.client.get(linkResource, NS, "east")) as { status?: { gateway?: GatewayStatus } }).status?.gateway;
    const round = async () => {
      clock.advance(10_000);
      await prober.idle();
    };
    prober.start();
    await round();
    expect(await stored()).toEqual({
      alive: true,
      latency: { p50: "12ms", p95: "12ms", p99: "12ms" },
      lastProbeTime: "2026-12-02T10:00:10.000Z",
      consecutiveFailures: 0,
      lastTransitionTime: "2026-12-02T10:00:10.000Z",
    });
    if (hasKubectl) {
      const get = await kubectlFor(t.sb.kubeconfig)(["get", "links", "-n", NS]);
      expect(get.stdout.split("\n")[1]).toMatch(/^east\s+east\s+true\s+12ms\s+/);
    }
    answer = 500;
    for (let i = 0; i < 7; i++) await round(); // dead after 3; the last success leaves the window at 70 s
    expect(await stored()).toEqual({
      alive: false,
      lastProbeTime: "2026-12-02T10:01:20.000Z",
      consecutiveFailures: 7,
      lastTransitionTime: "2026-12-02T10:00:40.000Z",
    });
    await prober.stop();
  });
});
