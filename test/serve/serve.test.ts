// `mc serve` in-process: the admin server, readiness while the target is unreachable, and two
// replicas electing a leader — only the leader mirrors, and a standby takes over when it dies.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { parseAddr, startAdmin } from "../../src/serve/admin.ts";
import { resources, waitForObject, type KubeObject } from "../../src/kube/index.ts";
import { serve, type ServeOptions, type Serving } from "../../src/serve/serve.ts";
import type { MirrorController } from "../../src/mirror/controller.ts";
import { linkResource } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import { startSandbox } from "../../src/sandbox/index.ts";
import { within } from "../kube/helpers.ts";
import { credentialsSecret, fakeResolver, linkObject, remoteEndpoints, remoteService } from "../mirror/fixtures.ts";
import { clientFor, ensureNamespaces, startPair, type Pair } from "../helpers/clusters.ts";
import { cached, list, quiet, untilStatus } from "../mirror/harness.ts";

let pair: Pair;
const running: Serving[] = [];
beforeEach(async () => {
  pair = await startPair();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
  await pair.stop();
});

const lease = { leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 100 };

async function start(o: Partial<ServeOptions> = {}): Promise<Serving> {
  const s = await serve({
    local: pair.westClient,
    namespace: DEFAULT_NAMESPACE,
    linkName: "east",
    adminAddr: "127.0.0.1:0",
    lease,
    log: quiet,
    controller: { resolver: fakeResolver({}), log: quiet, informerBackoff: { initialMs: 20, maxMs: 100 } },
    ...o,
  });
  running.push(s);
  return s;
}

/** Resolves with the controller once `s` leads and its controller has synced and drained. */
function mirroring(s: Serving): Promise<MirrorController> {
  return within(
    new Promise<MirrorController>((resolve) => {
      const attach = () => {
        const sup = s.supervisor;
        if (!sup) return false;
        const ready = (c: MirrorController) => void c.synced.then(() => c.drain()).then(() => resolve(c));
        if (sup.controller) ready(sup.controller);
        else sup.onController((c) => c && ready(c));
        return true;
      };
      if (!attach()) s.onLeading((leading) => leading && attach());
    }),
    "a replica to mirror",
    5000,
  );
}

const get = async (s: Serving, path: string) => {
  const res = await fetch(`${s.admin.url}${path}`);
  return `${res.status} ${await res.text()}`;
};

async function seed() {
  await pair.eastClient.create(resources.service, remoteService());
  await pair.eastClient.create(resources.endpoints, remoteEndpoints());
  await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
  await pair.westClient.create(linkResource, linkObject());
}

describe("mc serve", () => {
  test("the admin server answers /ping, /live, /metrics and /ready (not ready until synced), and 404 otherwise", async () => {
    await seed();
    const s = await start({ leaderElect: false });
    expect(await get(s, "/ping")).toBe("200 pong\n");
    expect(await get(s, "/live")).toBe("200 ok\n");
    expect(await get(s, "/nope")).toBe("404 not found\n");
    await mirroring(s);
    expect(await get(s, "/ready")).toBe("200 ok\n");
    const metrics = await get(s, "/metrics");
    expect(metrics).toContain('mc_mirrors{target_cluster_name="east",state="mirrored"} 1');
    expect(metrics).toContain("# TYPE gateway_alive gauge");
    expect(list(pair.west, "services", "ns1").map((x) => x.metadata.name)).toEqual(["service-one-east"]);
  });

  test("with the target unreachable the process is ready (its own caches synced: readiness is the process's) and the Link says TargetReachable False; once the target answers, mirrors converge", async () => {
    const later = await startSandbox({ name: "east" }); // reserve a port, then free it
    const port = later.port;
    const kubeconfig = later.kubeconfig;
    await later.stop();
    await pair.westClient.create(resources.secret, credentialsSecret("east", kubeconfig));
    await pair.westClient.create(linkResource, linkObject());
    const s = await start({ leaderElect: false });
    const done = mirroring(s);
    await untilStatus(s.supervisor!, "running");
    const ctl = s.supervisor!.controller!;
    await Promise.all([ctl.informers.services.synced, ctl.informers.endpoints.synced, ctl.informers.namespaces.synced]);
    const reachable = (o: KubeObject | undefined) =>
      ((o?.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? []).find(
        (c) => c.type === "TargetReachable",
      );
    await waitForObject(pair.westClient, linkResource, DEFAULT_NAMESPACE, "east", (o) => reachable(o)?.status === "False", {
      what: "TargetReachable False",
      timeoutMs: 5000,
    });
    expect(ctl.isSynced).toBe(false);
    expect(await get(s, "/ready")).toBe("200 ok\n");
    expect(await get(s, "/live")).toBe("200 ok\n");
    const east = await startSandbox({ name: "east", port, store: later.store });
    try {
      const eastClient = await clientFor(east);
      await ensureNamespaces(eastClient, ["ns1"]);
      await eastClient.create(resources.service, remoteService());
      await done;
      expect(await get(s, "/ready")).toBe("200 ok\n");
      expect(list(pair.west, "services", "ns1").map((x) => x.metadata.name)).toEqual(["service-one-east"]);
    } finally {
      await s.stop();
      running.splice(running.indexOf(s), 1);
      await east.stop();
    }
  });

  test("of two replicas only the leader mirrors, the standby is ready, and it takes over within the lease duration when the leader dies", async () => {
    await seed();
    const a = await start({ identity: "replica-a" });
    await mirroring(a);
    const b = await start({ identity: "replica-b" });
    await within(
      new Promise<void>((resolve) => {
        const off = b.onElection(() => b.ready && (off(), resolve()));
      }),
      "the standby to see the leader",
    );
    expect([a.leading, b.leading]).toEqual([true, false]);
    expect(b.supervisor).toBeUndefined();
    expect(await get(b, "/ready")).toBe("200 ok\n");

    const takeover = mirroring(b);
    const died = Date.now();
    await a.stop({ release: false }); // a crash: the lease is left to expire
    running.splice(running.indexOf(a), 1);
    const ctl = await takeover;
    expect(Date.now() - died).toBeLessThan(lease.leaseDurationMs + 1000);
    expect(b.leading).toBe(true);
    const svc = await pair.eastClient.create(resources.service, remoteService({ name: "after-failover" }));
    await cached(ctl.informers.remoteServices, svc);
    await ctl.drain();
    expect(list(pair.west, "services", "ns1").map((x) => x.metadata.name)).toEqual(["after-failover-east", "service-one-east"]);
    expect(svc.metadata.name).toBe("after-failover");
  });
});

/** Whether this host can listen on ::1 (an IPv6 loopback), for the dual-stack test. */
const hasIPv6Loopback = (() => {
  try {
    Bun.listen({ hostname: "::1", port: 0, socket: { data() {} } }).stop(true);
    return true;
  } catch {
    return false;
  }
})();

describe("--admin-addr", () => {
  test("accepts :port, host:port and [v6]:port; anything else names the flag", () => {
    expect(parseAddr(":9999")).toEqual({ hostname: "::", port: 9999 });
    expect(parseAddr("127.0.0.1:0")).toEqual({ hostname: "127.0.0.1", port: 0 });
    expect(parseAddr("[::1]:9990")).toEqual({ hostname: "::1", port: 9990 });
    expect(() => parseAddr("9999")).toThrow('--admin-addr: must be host:port (e.g. :9999 or 127.0.0.1:0), got "9999"');
    expect(() => parseAddr("a:99999")).toThrow("--admin-addr");
  });

  // The kubelet probes a pod's IPv6 address in an IPv6-only cluster: `:PORT` listens on both
  // families, as Go's net.Listen(":9999") does (it listened on 0.0.0.0 only).
  test.skipIf(!hasIPv6Loopback)(
    `:PORT answers on 127.0.0.1 and on ::1${hasIPv6Loopback ? "" : " (skipped: this host has no ::1)"}`,
    async () => {
      const admin = startAdmin({ addr: ":0", metrics: { registry: new Registry() }, ready: () => true });
      try {
        for (const host of ["127.0.0.1", "[::1]"]) {
          const res = await fetch(`http://${host}:${admin.port}/ping`);
          expect({ host, status: res.status, body: await res.text() }).toEqual({ host, status: 200, body: "pong\n" });
        }
      } finally {
        await admin.stop();
      }
    },
  );
});
