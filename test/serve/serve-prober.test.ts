// The prober as `mc serve` wires it: `--status-interval` reaches the prober (a steady status is rewritten at that pace, not every 10 s),
// and a controller that is replaced — by a Link change in the supervisor, or by losing and winning back the lease — stops its prober before
// the next one starts, because a stopping prober removes the cluster's gateway series.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import { createMetrics, type Metrics } from "../../src/metrics.ts";
import { serve, type ServeOptions, type Serving } from "../../src/serve/serve.ts";
import { LinkSupervisor } from "../../src/serve/supervisor.ts";
import { linkResource, type GatewayStatus } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE, leaseName } from "../../src/model/names.ts";
import { proberFactory, type GatewayProber, type ProberOptions } from "../../src/prober/index.ts";
import { startFakeGateway, waitFor } from "../helpers/clusters.ts";
import { within } from "../kube/helpers.ts";
import { credentialsSecret, fakeResolver, linkObject, remoteEndpoints, remoteService, type LinkFixture } from "../mirror/fixtures.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { cached, quiet } from "../mirror/harness.ts";

let pair: Pair;
const cleanup: Array<() => Promise<void>> = [];
beforeEach(async () => {
  pair = await startPair();
});
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
  await pair.stop();
});

async function seed(fixture: LinkFixture = {}) {
  await pair.eastClient.create(resources.service, remoteService());
  await pair.eastClient.create(resources.endpoints, remoteEndpoints());
  await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
  await pair.westClient.create(linkResource, linkObject(fixture));
}

async function start(o: Partial<ServeOptions>): Promise<Serving> {
  const s = await serve({
    local: pair.westClient,
    namespace: DEFAULT_NAMESPACE,
    linkName: "east",
    adminAddr: "127.0.0.1:0",
    log: quiet,
    ...o,
    controller: { resolver: fakeResolver({}), log: quiet, informerBackoff: { initialMs: 20, maxMs: 100 }, ...o.controller },
  });
  cleanup.push(() => s.stop());
  return s;
}

const gatewayOf = (o: KubeObject | undefined) => (o as { status?: { gateway?: GatewayStatus } } | undefined)?.status?.gateway;

/** gateway_enabled for east as the registry has it now (undefined: no series). */
async function gatewayEnabled(metrics: Metrics): Promise<number | undefined> {
  const m = await metrics.gatewayEnabled.get();
  return m.values.find((v) => v.labels.target_cluster_name === "east")?.value;
}

/**
 * Real probers (the production factory), numbered 1, 2, … as the controllers make them, with
 * what happened to each in `events`. The first prober's stop takes a while before it really
 * stops (as one waiting for an in-flight status write does): until `slowStop` resolves — or at
 * once when prober 2 starts, which only a supervisor that did not wait for it lets happen.
 */
function recordingProbers(slowStop: () => Promise<void>) {
  const events: string[] = [];
  const real = proberFactory();
  let made = 0;
  let secondStarted!: () => void;
  const second = new Promise<void>((resolve) => (secondStarted = resolve));
  const factory = (o: ProberOptions): GatewayProber => {
    const n = ++made;
    const p = real(o);
    events.push(`made ${n}`);
    return {
      start() {
        p.start();
        events.push(`started ${n}`);
        if (n === 2) secondStarted();
      },
      async stop() {
        events.push(`stopping ${n}`);
        if (n === 1) await Promise.race([slowStop(), second]);
        await p.stop();
        events.push(`stopped ${n}`);
      },
      health: () => p.health(),
    };
  };
  return { factory, events, second };
}

const slowFor = (ms: number) => () => Bun.sleep(ms);

describe("--status-interval", () => {
  test("reaches the prober: a steady gateway's status is rewritten at that pace (the default would wait 10 s)", async () => {
    const gateway = startFakeGateway();
    cleanup.push(() => gateway.kill());
    // The floors: probes every 1s at the fastest, a status interval of 1s at the fastest (src/model/limits.ts).
    await seed({ gatewayAddress: "192.0.2.10", probe: { path: "/ready", port: String(gateway.port), period: "1s" } });
    const intervalMs = 1500;
    const writes: Array<{ at: number; lastProbeTime: string }> = [];
    const seen = (o: KubeObject | undefined) => {
      const t = gatewayOf(o)?.lastProbeTime;
      if (t && writes.at(-1)?.lastProbeTime !== t) writes.push({ at: performance.now(), lastProbeTime: t });
      return writes.length >= 4;
    };
    const watching = waitFor(pair.westClient, linkResource, DEFAULT_NAMESPACE, "east", seen, "4 status.gateway writes", 15_000);
    await start({ leaderElect: false, settings: { statusInterval: intervalMs, probeAddress: { "": `127.0.0.1:${gateway.port}` } } });
    await watching;
    const gaps = writes.slice(1).map((w, i) => Math.round(w.at - writes[i]!.at));
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(intervalMs - 50); // never faster than the interval…
      expect(gap).toBeLessThan(2 * intervalMs); // …and not much slower, though a probe lands every second
    }
  }, 20_000);

  test("together with a prober factory of the caller's own is a programming error", async () => {
    await expect(start({ settings: { statusInterval: 1000 }, controller: { proberFactory: proberFactory() } })).rejects.toThrow(
      "serve: settings.statusInterval is bound by controller.proberFactory; pass one or the other",
    );
  });

  test("so is fastFailureDetection with a prober factory of the caller's own", async () => {
    await expect(start({ settings: { fastFailureDetection: true }, controller: { proberFactory: proberFactory() } })).rejects.toThrow(
      "serve: settings.fastFailureDetection is bound by controller.proberFactory; pass one or the other",
    );
  });
});

describe("replacing a controller", () => {
  test("a Link spec change stops the old prober, and waits for it, before the new one starts: the gateway series survive the restart", async () => {
    await seed();
    const metrics = createMetrics();
    const probers = recordingProbers(slowFor(150));
    const sup = new LinkSupervisor({
      local: pair.westClient,
      namespace: DEFAULT_NAMESPACE,
      linkName: "east",
      metrics,
      log: quiet,
      controller: {
        resolver: fakeResolver({}),
        log: quiet,
        proberFactory: probers.factory,
        informerBackoff: { initialMs: 20, maxMs: 100 },
      },
    });
    cleanup.push(() => sup.stop());
    const first = within(
      new Promise<void>((resolve) => sup.onController((c) => void c?.synced.then(resolve))),
      "the first controller to sync",
    );
    sup.start();
    await first;
    expect(await gatewayEnabled(metrics)).toBe(1);

    // A main-resource write to a Link without status stores status: null in the sandbox: give it one first.
    await pair.westClient.patch(linkResource, DEFAULT_NAMESPACE, "east", { status: {} }, { subresource: "status" });
    const changed = await pair.westClient.patch<KubeObject>(linkResource, DEFAULT_NAMESPACE, "east", {
      spec: { probeSpec: { timeout: "60s" } },
    });
    await cached(sup.informers.links, changed);
    await within(probers.second, "the new controller's prober to start");
    await sup.settle();
    expect(probers.events).toEqual(["made 1", "started 1", "stopping 1", "stopped 1", "made 2", "started 2"]);
    expect(sup.controller?.link.probe?.timeoutMs).toBe(60_000);
    expect(await gatewayEnabled(metrics)).toBe(1);
  });

  test("a replica that loses the lease and wins it back starts its new controller only once the old one has stopped: the gateway series survive", async () => {
    await seed();
    const metrics = createMetrics();
    let releadOnce!: () => void;
    const releaded = new Promise<void>((resolve) => (releadOnce = resolve));
    // The old prober is still stopping when the lease comes back.
    const probers = recordingProbers(async () => {
      await releaded;
      await Bun.sleep(300);
    });
    const s = await start({
      identity: "replica-a",
      metrics,
      lease: { leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 100 },
      controller: { proberFactory: probers.factory },
    });
    const leads: boolean[] = [];
    s.onLeading((leading) => {
      leads.push(leading);
      if (leads.slice(-2).join() === "false,true") releadOnce();
    });
    await within(
      new Promise<void>((resolve) => s.onElection(() => s.supervisor?.controller?.isSynced && resolve())),
      "replica-a to lead and mirror",
    );
    expect(await gatewayEnabled(metrics)).toBe(1);

    // Another holder renews the lease: replica-a steps down, and takes the lease back once it expires.
    const lease = await pair.westClient.get<KubeObject & { spec: Record<string, unknown> }>(
      resources.lease,
      DEFAULT_NAMESPACE,
      leaseName("east"),
    );
    await pair.westClient.update(resources.lease, {
      ...lease,
      spec: {
        ...lease.spec,
        holderIdentity: "intruder",
        leaseDurationSeconds: 1,
        renewTime: new Date().toISOString().replace("Z", "000Z"),
      },
    });
    await within(releaded, "replica-a to step down and lead again", 5000);
    await within(probers.second, "the new controller's prober to start", 5000);
    expect(probers.events).toEqual(["made 1", "started 1", "stopping 1", "stopped 1", "made 2", "started 2"]);
    expect(s.leading).toBe(true);
    expect(await gatewayEnabled(metrics)).toBe(1);
  });
});
