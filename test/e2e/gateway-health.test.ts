// Gateway health end to end on two sandboxes (test/helpers/clusters.ts: fake Linkerd, `mc install`, `mc link`, and the controller
// in-process as `mc serve east --probe-address` runs it), probing a loopback fake gateway that answers /ready after a known delay.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { gatewaysOutput } from "../../src/gateways/read.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import { linkResource, type GatewayStatus } from "../../src/model/link.ts";
import { parseDuration } from "../../src/model/duration.ts";
import type { EndpointsObject } from "../../src/mirror/types.ts";
import { hasKubectl, needsKubectl, kubectlFor } from "../helpers/kubectl.ts";
import { mc } from "../helpers/mc.ts";
import { multiclusterSetup, NS, waitFor, type Setup, type Target } from "../helpers/clusters.ts";

// The tests run in order as one story — healthy, gateway killed, gateway back, controller stopped —
// and every wait ends on a watch event, with a deadline that is a generous multiple of what is
// expected.

const PERIOD_MS = 1000;
const THRESHOLD = 2;
const DELAY_MS = 40;
/** Longest a round can be late: the 10% jitter. */
const JITTER_MS = PERIOD_MS / 10;
/** A probe, the status write and the Endpoints writes on loopback, with room for a loaded machine. */
const SLACK_MS = 1000;
/** Wait deadlines: a generous multiple of the longest expected time. */
const DEADLINE_MS = 3 * (THRESHOLD * (PERIOD_MS + JITTER_MS) + SLACK_MS);

let setup: Setup;
let east: Target;
beforeAll(async () => {
  setup = await multiclusterSetup({
    probe: { period: `${PERIOD_MS}ms`, failureThreshold: String(THRESHOLD), timeout: "1s" },
    gatewayDelayMs: DELAY_MS,
  });
  east = setup.targets.get("east")!;
}, 15_000);
afterAll(async () => {
  await setup?.stop();
});

type Subset = NonNullable<EndpointsObject["subsets"]>[number];
const subsetsOf = (o: KubeObject | undefined): Subset[] => (o as EndpointsObject | undefined)?.subsets ?? [];
/** Every mirror address is ready (and there is one). */
const allReady = (o: KubeObject | undefined) =>
  subsetsOf(o).length > 0 && subsetsOf(o).every((s) => (s.addresses?.length ?? 0) > 0 && !s.notReadyAddresses?.length);
/** Every mirror address moved to notReadyAddresses. */
const allNotReady = (o: KubeObject | undefined) =>
  subsetsOf(o).length > 0 && subsetsOf(o).every((s) => !s.addresses?.length && (s.notReadyAddresses?.length ?? 0) > 0);
const gatewayOf = (o: KubeObject | undefined) => (o as { status?: { gateway?: GatewayStatus } } | undefined)?.status?.gateway;

const waitMirror = (pred: (o: KubeObject | undefined) => boolean, what: string) =>
  waitFor(setup.westClient, resources.endpoints, "default", "web-east", pred, what, DEADLINE_MS);
const waitLink = (pred: (o: KubeObject | undefined) => boolean, what: string) =>
  waitFor(setup.westClient, linkResource, NS, "east", pred, what, DEADLINE_MS);

/** `gateway_alive{target_cluster_name="east"}` on the controller's admin server. */
async function gatewayAlive(): Promise<number | undefined> {
  const admin = setup.controllers.get("east")!.serving.admin.url;
  const text = await (await fetch(`${admin}/metrics`)).text();
  const family = parsePrometheusTextFormat(text).find((f) => f.name === "gateway_alive");
  const sample = family?.metrics.find((m) => m.labels?.target_cluster_name === "east");
  return sample?.value === undefined ? undefined : Number(sample.value);
}

/** The real `mc gateways` as a subprocess; its stdout. */
async function mcGateways(...args: string[]): Promise<string> {
  const r = await mc(["--kubeconfig", setup.westKubeconfig, "gateways", ...args]);
  if (r.code !== 0) throw new Error(`mc gateways ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

/** The east row of a gateways table, split into its cells. */
const eastRow = (table: string) => (table.split("\n").find((l) => l.startsWith("east ")) ?? "").trim().split(/\s+/);

describe("gateway health end to end (two sandboxes, mc serve --probe-address)", () => {
  test("a healthy gateway: the mirror Endpoints are ready, gateway_alive is 1 and mc gateways says True with one service", async () => {
    await waitMirror(allReady, "ready mirror Endpoints");
    await waitLink((o) => gatewayOf(o)?.alive === true, "status.gateway.alive true");
    expect(await gatewayAlive()).toBe(1);
    const table = await mcGateways();
    expect(table.split("\n")[0]).toMatch(/^CLUSTER\s+ALIVE\s+NUM_SVC\s+LATENCY_P50\s+LATENCY_P95\s+LATENCY_P99$/);
    expect(eastRow(table).slice(0, 3)).toEqual(["east", "True", "1"]);
  });

  test(`probe latencies are plausible: mc gateways -o json reports a p50 of at least the gateway's ${DELAY_MS} ms delay and under ${DELAY_MS + 200} ms`, async () => {
    const rows = JSON.parse(await mcGateways("-o", "json")) as Array<{
      clusterName: string;
      alive: boolean;
      stale: boolean;
      latency: { p50: string | null; p95: string | null; p99: string | null };
    }>;
    expect(rows.map((r) => [r.clusterName, r.alive, r.stale])).toEqual([["east", true, false]]);
    const { p50, p95, p99 } = rows[0]!.latency;
    const ms = [p50, p95, p99].map((v) => parseDuration(v ?? "none"));
    expect(ms[0]!).toBeGreaterThanOrEqual(DELAY_MS);
    expect(ms[0]!).toBeLessThan(DELAY_MS + 200);
    expect(ms[1]!).toBeGreaterThanOrEqual(ms[0]!);
    expect(ms[2]!).toBeGreaterThanOrEqual(ms[1]!);
  });

  test.skipIf(!hasKubectl)(needsKubectl("kubectl get links fills the ALIVE and LATENCY columns"), async () => {
    const kubectl = kubectlFor(readFileSync(setup.westKubeconfig, "utf8"));
    const r = await kubectl(["get", "links", "-n", NS]);
    expect(r.code).toBe(0);
    const [header, row] = r.stdout.split("\n");
    expect(header).toMatch(/^NAME\s+CLUSTER\s+ALIVE\s+LATENCY\s+AGE$/);
    expect(row).toMatch(/^east\s+east\s+true\s+\d+ms\s+\S+$/);
  });

  test(`a killed gateway is dead after ${THRESHOLD} failed probes: all mirror addresses move to notReadyAddresses, gateway_alive is 0 and mc gateways says False`, async () => {
    const killed = performance.now();
    await east.gateway.kill();
    await waitMirror(allNotReady, "mirror Endpoints with every address not ready");
    const elapsed = performance.now() - killed;
    // Not before the threshold's worth of failed rounds (a round in flight at the kill fails too, so
    // the first may have started up to one gateway delay earlier), and within period × threshold
    // (+ jitter, + the writes).
    expect(elapsed).toBeGreaterThanOrEqual((THRESHOLD - 1) * PERIOD_MS - DELAY_MS - 50);
    expect(elapsed).toBeLessThan(THRESHOLD * (PERIOD_MS + JITTER_MS) + SLACK_MS);
    await waitLink((o) => gatewayOf(o)?.alive === false, "status.gateway.alive false");
    expect(await gatewayAlive()).toBe(0);
    const row = eastRow(await mcGateways());
    expect(row).toEqual(["east", "False", "1", "-", "-", "-"]);
  });

  test("the gateway back on the same port is alive at the next probe: mirror Endpoints ready again, gateway_alive 1, mc gateways True", async () => {
    const restarted = performance.now();
    east.gateway.restart();
    await waitMirror(allReady, "ready mirror Endpoints again");
    expect(performance.now() - restarted).toBeLessThan(PERIOD_MS + JITTER_MS + SLACK_MS);
    await waitLink((o) => gatewayOf(o)?.alive === true && gatewayOf(o)?.consecutiveFailures === 0, "status.gateway.alive true again");
    expect(await gatewayAlive()).toBe(1);
    const row = eastRow(await mcGateways());
    expect(row.slice(0, 3)).toEqual(["east", "True", "1"]);
    expect(row[3]).toMatch(/^\d+ms$/);
  });

  test("with the controller stopped, mc gateways shows stale once the last probe is older than max(3 × period, 30 s)", async () => {
    const controller = setup.controllers.get("east")!;
    setup.controllers.delete("east");
    await controller.stop();
    const link = await setup.westClient.get<KubeObject>(linkResource, NS, "east");
    const last = gatewayOf(link)?.lastProbeTime;
    expect(last).toBeDefined();
    const at = Date.parse(last!);
    // The reader's clock is the seam: the same Link read 30 s after its last probe, and just past that.
    const read = (now: number) => gatewaysOutput({ client: setup.westClient, namespace: NS, output: "table", clock: new ManualClock(now) });
    expect(eastRow(await read(at + 30_000)).slice(0, 2)).toEqual(["east", "True"]);
    expect(eastRow(await read(at + 30_001))).toEqual(["east", "stale", "1", "-", "-", "-"]);
    // The real command, on the real clock: the last status is still fresh.
    expect(eastRow(await mcGateways()).slice(0, 2)).toEqual(["east", "True"]);
  });
});
