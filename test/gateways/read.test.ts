// `mc gateways` reading a sandbox source cluster: the Link CRD, Links whose status.gateway is
// written through the status subresource, and mirror Services.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { gatewaysOutput, readGateways, readGatewaysSnapshot } from "../../src/gateways/read.ts";
import type { Clock } from "../../src/runtime/clock.ts";
import { resources } from "../../src/kube/resources.ts";
import { linkResource } from "../../src/model/link.ts";
import { recordingLog } from "../prober/helpers.ts";
import {
  ago,
  alive,
  dead,
  endpointMirror,
  gatewayMirror,
  gatewaysSandbox,
  linkObject,
  mirrorService,
  NS,
  type GatewaysSandbox,
} from "./fixtures.ts";

let t: GatewaysSandbox;
beforeAll(async () => {
  t = await gatewaysSandbox();
});
afterAll(async () => {
  await t.sb.stop();
});
beforeEach(async () => {
  for (const l of (await t.client.list(linkResource, { namespace: NS })).items) await t.client.delete(linkResource, NS, l.metadata.name!);
  for (const s of (await t.client.list(resources.service)).items)
    await t.client.delete(resources.service, s.metadata.namespace, s.metadata.name!);
});

/** A clock whose timers fire at once after running `onSleep`: waits end on events, not time. */
function eventClock(onSleep: (call: number) => Promise<void>, start = Date.now()): Clock & { sleeps: number } {
  const c = {
    now: () => start,
    sleeps: 0,
    setTimer(ms: number, fn: () => void) {
      start += ms;
      void onSleep(++c.sleeps).then(fn);
      return () => {};
    },
  };
  return c;
}

describe("mc gateways reading the API", () => {
  test("NUM_SVC counts each cluster's mirrors, not the gateway mirror, endpoint mirrors or other services", async () => {
    await t.addLink("east", { status: alive({ at: ago(1000, Date.now()) }) });
    await t.addLink("north", { status: dead({ at: ago(1000, Date.now()) }) });
    for (const obj of [
      mirrorService("web", "default", "east"),
      mirrorService("api", "shop", "east"),
      mirrorService("web", "default", "north"),
      gatewayMirror("east"),
      endpointMirror("db-0", "shop", "east"),
      { apiVersion: "v1", kind: "Service", metadata: { name: "local", namespace: "default" }, spec: { ports: [{ port: 80 }] } },
    ]) {
      await t.add(obj);
    }
    const rows = await readGateways({ client: t.client, namespace: NS, output: "table" });
    expect(rows.map((r) => [r.clusterName, r.alive, r.stale, r.numberOfServices])).toEqual([
      ["east", true, false, 2],
      ["north", false, false, 1],
    ]);
  });

  test("NUM_SVC counts each MCS import a cluster takes part in (mc's EndpointSlice of that cluster), not other slices", async () => {
    await t.addLink("east", { status: alive({ at: ago(1000, Date.now()) }) });
    await t.addLink("north", { status: alive({ at: ago(1000, Date.now()) }) });
    const slice = (name: string, cluster: string, managedBy = "mc.multicluster.linkerd.io") => ({
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: {
        name: `derived-${name}-${cluster}`,
        namespace: "default",
        labels: {
          "multicluster.kubernetes.io/service-name": name,
          "multicluster.kubernetes.io/source-cluster": cluster,
          "endpointslice.kubernetes.io/managed-by": managedBy,
        },
      },
      addressType: "IPv4",
      endpoints: [],
    });
    await t.add(mirrorService("web", "default", "east"));
    for (const obj of [slice("web", "east"), slice("api", "east"), slice("web", "north"), slice("db", "north", "someone-else")])
      await t.client.create(resources.endpointSlice, obj);
    const rows = await readGateways({ client: t.client, namespace: NS, output: "table" });
    expect(rows.map((r) => [r.clusterName, r.numberOfServices])).toEqual([
      ["east", 3],
      ["north", 1],
    ]);
    for (const s of (await t.client.list(resources.endpointSlice)).items)
      await t.client.delete(resources.endpointSlice, s.metadata.namespace, s.metadata.name!);
  });

  test("NUM_SVC counts remote-discovery mirrors (as Linkerd does: they carry the cluster's label) and never federated Services", async () => {
    await t.addLink("east", { status: alive({ at: ago(1000, Date.now()) }) });
    const rd = mirrorService("api", "default", "east", {
      "multicluster.linkerd.io/remote-discovery": "east",
      "multicluster.linkerd.io/remote-service": "api",
    });
    const federated = {
      apiVersion: "v1",
      kind: "Service",
      metadata: {
        name: "web-federated",
        namespace: "default",
        labels: { "mirror.linkerd.io/mirrored-service": "true" },
        annotations: { "multicluster.linkerd.io/remote-discovery": "web@east" },
      },
      spec: { ports: [{ port: 80 }] },
    };
    for (const obj of [mirrorService("web", "default", "east"), rd, federated]) await t.add(obj);
    const rows = await readGateways({ client: t.client, namespace: NS, output: "table" });
    expect(rows.map((r) => [r.clusterName, r.numberOfServices])).toEqual([["east", 2]]);
  });

  test("--cluster-name shows only that Link", async () => {
    await t.addLink("east", { status: alive({ at: new Date().toISOString() }) });
    await t.addLink("north");
    await t.add(mirrorService("web", "default", "north"));
    const rows = await readGateways({ client: t.client, namespace: NS, clusterName: "north", output: "table" });
    expect(rows.map((r) => [r.clusterName, r.stale, r.numberOfServices])).toEqual([["north", true, 1]]);
  });

  test("a status goes stale when the controller stops writing it", async () => {
    const now = Date.now();
    await t.addLink("east", { status: alive({ at: new Date(now).toISOString() }) });
    const at = (ms: number): Clock => ({ now: () => ms, setTimer: () => () => {} });
    const fresh = await gatewaysOutput({ client: t.client, namespace: NS, output: "table", clock: at(now + 29_000) });
    const stale = await gatewaysOutput({ client: t.client, namespace: NS, output: "table", clock: at(now + 31_000) });
    expect(fresh.split("\n")[1]).toBe("east     True           0          3ms          9ms         14ms");
    expect(stale.split("\n")[1]).toBe("east     stale          0            -            -            -");
  });

  test("--wait reads again until every Link reports a fresh status", async () => {
    await t.addLink("east");
    await t.addLink("north", { status: alive({ at: new Date().toISOString() }) });
    const clock = eventClock(async (call) => {
      if (call === 1) await t.setStatus("east", dead({ at: new Date(clock.now()).toISOString() }));
    });
    const rows = await readGateways({ client: t.client, namespace: NS, output: "json", waitMs: 30_000, clock });
    expect(clock.sleeps).toBe(1);
    expect(rows.map((r) => [r.clusterName, r.alive, r.stale])).toEqual([
      ["east", false, false],
      ["north", true, false],
    ]);
  });

  test("--wait gives up at its deadline naming the Links that do not report", async () => {
    await t.addLink("east");
    const clock = eventClock(async () => {});
    const read = readGateways({ client: t.client, namespace: NS, output: "table", waitMs: 5_000, pollMs: 1_000, clock });
    await expect(read).rejects.toThrow(
      "timed out after 5s waiting for the gateway status of east: is mc serve running for that Link? (its logs say why it does not report)",
    );
    await read.catch(() => {});
    expect(clock.sleeps).toBe(5);
  });

  test("only gateway-less Links: the JSON is an empty array", async () => {
    await t.addLink("flat", { probe: false });
    const log = recordingLog();
    expect(await gatewaysOutput({ client: t.client, namespace: NS, output: "json", log })).toBe("[]\n");
    expect(log.at("debug")).toEqual(["Link linkerd-multicluster/flat probes no gateway (no probeSpec): not shown"]);
  });

  test("a Link mc cannot read is shown as ALIVE invalid, with a warning naming the field", async () => {
    await t.addLink("east", { status: alive({ at: new Date().toISOString() }) });
    const bad = linkObject("north");
    (bad.spec as { targetClusterName: string }).targetClusterName = "North_1";
    await t.client.create(linkResource, bad);
    const log = recordingLog();
    const rows = await readGateways({ client: t.client, namespace: NS, output: "table", log });
    const problem = `Link linkerd-multicluster/north: spec.targetClusterName: must be a DNS-1123 label (lowercase letters, digits, '-'; at most 63), got "North_1"`;
    expect(rows.map((r) => [r.clusterName, r.problem])).toEqual([
      ["North_1", problem],
      ["east", undefined],
    ]);
    expect(log.at("warn")).toEqual([`${problem} (shown as ALIVE invalid)`]);
  });

  test('when the only Link is invalid, it is shown (ALIVE invalid), not "no Links"', async () => {
    const bad = linkObject("east");
    (bad.spec as { selector: unknown }).selector = { matchLabels: { "bad key!": "x" } };
    await t.client.create(linkResource, bad);
    await t.add(mirrorService("web", "default", "east"));
    const table = await gatewaysOutput({ client: t.client, namespace: NS, output: "table", log: recordingLog() });
    expect(table).toBe(
      "CLUSTER  ALIVE      NUM_SVC  LATENCY_P50  LATENCY_P95  LATENCY_P99\neast     invalid          1            -            -            -\n",
    );
    const json = JSON.parse(await gatewaysOutput({ client: t.client, namespace: NS, output: "json", log: recordingLog() }));
    expect(json).toEqual([
      {
        clusterName: "east",
        alive: false,
        stale: false,
        numberOfServices: 1,
        latency: { p50: null, p95: null, p99: null },
        lastProbeTime: null,
        problem: `Link linkerd-multicluster/east: spec.selector: matchLabels: "bad key!" is not a valid label key (an optional DNS-subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit)`,
      },
    ]);
  });

  test("no Links: one line with the fix", async () => {
    await expect(readGatewaysSnapshot(t.client, { namespace: NS })).rejects.toThrow(
      "no Links in namespace linkerd-multicluster on west: link a target with `mc --context <target> link --cluster-name <name> | kubectl apply -f -`",
    );
  });

  test("an unknown --cluster-name lists the Links there are", async () => {
    await t.addLink("east");
    await t.addLink("north");
    await expect(readGatewaysSnapshot(t.client, { namespace: NS, clusterName: "south" })).rejects.toThrow(
      "no Link for cluster south in namespace linkerd-multicluster on west (Links there are for east, north): check --cluster-name, or link a target",
    );
  });

  test("a missing extension namespace says to install it or pass --namespace", async () => {
    await expect(readGatewaysSnapshot(t.client, { namespace: "elsewhere" })).rejects.toThrow(
      "namespace elsewhere not found on west: install the extension with `mc install | kubectl apply -f -`, or pass --namespace",
    );
  });
});

describe("mc gateways without the Link CRD", () => {
  test("says the Link resource is not installed", async () => {
    const bare = await gatewaysSandbox({ crd: false });
    try {
      await expect(readGatewaysSnapshot(bare.client, { namespace: NS })).rejects.toThrow(
        "the Link resource (links.multicluster.linkerd.io) is not installed on west: install the extension with `mc install | kubectl apply -f -`",
      );
    } finally {
      await bare.sb.stop();
    }
  });
});
