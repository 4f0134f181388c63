// `mc serve --all` in-process: one process serving every Link of the namespace, each under its own Lease with its own supervisor,
// controller and queue. Links appearing are served, Links going are stopped (Lease released, mirrors kept); a Link with a broken Secret, or
// whose target's API server is dead, does not stop or slow the others.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { resources, waitForObject, type KubeObject } from "../../src/kube/index.ts";
import { capacityWarning, httpRequestCap } from "../../src/serve/all-links.ts";
import type { MirrorController } from "../../src/mirror/controller.ts";
import { serve, type Serving } from "../../src/serve/serve.ts";
import { linkResource } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { within } from "../kube/helpers.ts";
import { credentialsSecret, fakeResolver, linkObject, remoteService } from "../mirror/fixtures.ts";
import { clientFor, ensureNamespaces, startPair, type Pair } from "../helpers/clusters.ts";
import { quiet, untilStatus } from "../mirror/harness.ts";

// The local Service and Namespace informers are shared by every controller.

const NS = DEFAULT_NAMESPACE;
let pair: Pair;
let serving: Serving | undefined;
const extra: Sandbox[] = [];
beforeEach(async () => {
  pair = await startPair();
});
afterEach(async () => {
  await serving?.stop();
  serving = undefined;
  await Promise.all(extra.splice(0).map((s) => s.stop()));
  await pair.stop();
});

const lease = { leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 100 };

async function startAll(): Promise<Serving> {
  serving = await serve({
    local: pair.westClient,
    namespace: NS,
    all: true,
    adminAddr: "127.0.0.1:0",
    lease,
    identity: "shared",
    log: quiet,
    settings: { probeDirect: true },
    controller: {
      resolver: fakeResolver({}),
      log: quiet,
      informerBackoff: { initialMs: 20, maxMs: 100 },
      queueBackoff: { initialMs: 5, maxMs: 20 },
    },
  });
  return serving;
}

/** A Link to east under another cluster name (its mirrors are `<svc>-<cluster>`). */
async function link(cluster: string, kubeconfig = pair.east.kubeconfig): Promise<void> {
  await pair.westClient.create(resources.secret, credentialsSecret(cluster, kubeconfig));
  await pair.westClient.create(linkResource, linkObject({ cluster, probe: null }));
}

function controllerOf(s: Serving, name: string): Promise<MirrorController> {
  return within(
    (async () => {
      for (;;) {
        const sup = s.all?.units.get(name)?.runner;
        const ctl = sup?.controller;
        if (ctl) {
          await ctl.synced;
          return ctl;
        }
        await new Promise<void>((resolve) => {
          const offs: Array<() => void> = [];
          const done = () => (offs.forEach((o) => o()), resolve());
          if (sup) offs.push(sup.onController(done));
          else offs.push(s.links.onChange(done));
          setTimeout(done, 50); // a unit not created yet: look again shortly
        });
      }
    })(),
    `the controller of ${name}`,
  );
}

const mirrored = (name: string) =>
  waitForObject(pair.westClient, resources.service, "ns1", name, (o) => o !== undefined, { what: `mirror ${name}`, timeoutMs: 5000 });

describe("mc serve --all", () => {
  test("three Links, one with a broken Secret: the other two mirror, before and after; each holds its own Lease", async () => {
    await pair.eastClient.create(resources.service, remoteService({ name: "web" }));
    await link("east");
    await link("north");
    await pair.westClient.create(resources.secret, {
      ...credentialsSecret("south", "not a kubeconfig"),
      data: { kubeconfig: Buffer.from("::: nope").toString("base64") },
    });
    await pair.westClient.create(linkResource, linkObject({ cluster: "south", probe: null }));
    const s = await startAll();
    await Promise.all([mirrored("web-east"), mirrored("web-north")]);
    await untilStatus(s.all!.units.get("south")!.runner!, "bad-secret");
    expect([...s.all!.units.keys()].sort()).toEqual(["east", "north", "south"]);
    await within(
      (async () => {
        while (!s.ready) await Bun.sleep(10);
      })(),
      "/ready (a broken Link waits on the user; it does not hold readiness back)",
    );
    // Still mirroring after the broken Link was reported.
    await pair.eastClient.create(resources.service, remoteService({ name: "later" }));
    await Promise.all([mirrored("later-east"), mirrored("later-north")]);
    for (const c of ["east", "north", "south"]) {
      const l = await pair.westClient.get<KubeObject>(resources.lease, NS, `service-mirror-write-${c}`);
      expect((l.spec as { holderIdentity?: string }).holderIdentity).toBe("shared");
    }
    // Every controller reads west's Services and Namespaces through the same two informers.
    const [e, n] = await Promise.all([controllerOf(s, "east"), controllerOf(s, "north")]);
    expect(e.informers.services).toBe(n.informers.services);
    expect(e.informers.namespaces).toBe(n.informers.namespaces);
    expect(e.informers.endpoints).not.toBe(n.informers.endpoints);
  });

  test("a Link whose target's API server is dead does not stop the others", async () => {
    const dead = await startSandbox({ name: "dead" });
    const deadConfig = dead.kubeconfig;
    await dead.stop();
    await link("east");
    await link("dead", deadConfig);
    const s = await startAll();
    await controllerOf(s, "east");
    await pair.eastClient.create(resources.service, remoteService({ name: "web" }));
    await mirrored("web-east");
    expect(s.all!.units.get("dead")!.runner?.ready).toBe(false);
  });

  test("a Link whose target's API server is dead does not hold /ready back: readiness is the process's, the Link's status says TargetReachable False", async () => {
    const dead = await startSandbox({ name: "dead" });
    const deadConfig = dead.kubeconfig;
    await dead.stop();
    await link("east");
    await link("dead", deadConfig);
    const s = await startAll();
    await controllerOf(s, "east");
    const reachable = (o: KubeObject | undefined) =>
      ((o?.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? []).find(
        (c) => c.type === "TargetReachable",
      );
    await waitForObject(pair.westClient, linkResource, NS, "dead", (o) => reachable(o)?.status === "False", {
      what: "TargetReachable False on Link dead",
      timeoutMs: 5000,
    });
    const deadCtl = s.all!.units.get("dead")!.runner!.controller!;
    await Promise.all([deadCtl.informers.endpoints.synced, s.all!.units.get("dead")!.runner!.informers.secrets!.synced]);
    expect(deadCtl.isSynced).toBe(false);
    expect(s.ready).toBe(true);
    const res = await fetch(`${s.admin.url}/ready`);
    expect(`${res.status} ${await res.text()}`).toBe("200 ok\n");
  });

  test("readiness is about this process's own cluster: while west serves no Links (the CRD gone) /ready says not ready, once it does, ready", async () => {
    const crds = resources.customResourceDefinition;
    const crd = await pair.westClient.get<KubeObject>(crds, undefined, "links.multicluster.linkerd.io");
    await pair.westClient.delete(crds, undefined, "links.multicluster.linkerd.io");
    const s = await startAll();
    await within(
      new Promise<void>((resolve) => {
        const off = s.links.informer.onStatus((st) => st.state === "backoff" && (off(), resolve()));
      }),
      "the Links informer failing to list",
    );
    expect(s.ready).toBe(false);
    expect((await fetch(`${s.admin.url}/ready`)).status).toBe(500);
    const { resourceVersion: _rv, uid: _uid, ...metadata } = crd.metadata;
    await pair.westClient.create(crds, { ...crd, metadata });
    await within(s.links.synced, "the Links listed");
    await within(
      (async () => {
        while (!s.ready) await Bun.sleep(10);
      })(),
      "/ready once west's informers synced",
    );
    expect((await fetch(`${s.admin.url}/ready`)).status).toBe(200);
  });

  test("a Link created later is served; a deleted Link is stopped, its Lease released and its mirrors kept", async () => {
    await pair.eastClient.create(resources.service, remoteService({ name: "web" }));
    await link("east");
    const s = await startAll();
    await mirrored("web-east");
    await link("north");
    await mirrored("web-north");
    await pair.westClient.delete(linkResource, NS, "north");
    await waitForObject(
      pair.westClient,
      resources.lease,
      NS,
      "service-mirror-write-north",
      (l) => !(l?.spec as { holderIdentity?: string } | undefined)?.holderIdentity,
      {
        what: "north's Lease released",
        timeoutMs: 5000,
      },
    );
    expect(s.all!.units.has("north")).toBe(false);
    expect(await pair.westClient.get(resources.service, "ns1", "web-north")).toBeDefined();
    // east goes on.
    await pair.eastClient.create(resources.service, remoteService({ name: "later" }));
    await mirrored("later-east");
    // north again: a new unit, once the old one has stopped.
    await pair.westClient.create(linkResource, linkObject({ cluster: "north", probe: null }));
    await mirrored("later-north");
    await waitForObject(
      pair.westClient,
      resources.lease,
      NS,
      "service-mirror-write-north",
      (l) => (l?.spec as { holderIdentity?: string } | undefined)?.holderIdentity === "shared",
      {
        what: "north's Lease held again",
        timeoutMs: 5000,
      },
    );
  });
});

describe("isolation between Links sharing informers", () => {
  test("stopping one controller leaves the shared informers running for the rest", async () => {
    const other = await startSandbox({ name: "north" });
    extra.push(other);
    const northClient = await clientFor(other);
    await ensureNamespaces(northClient, ["ns1"]);
    await northClient.create(resources.service, remoteService({ name: "api" }));
    await link("east");
    await link("north", other.kubeconfig);
    const s = await startAll();
    await mirrored("api-north");
    await pair.westClient.delete(linkResource, NS, "east");
    await within(
      (async () => {
        while (s.all!.units.has("east")) await Bun.sleep(10);
      })(),
      "east's unit to stop",
    );
    await northClient.create(resources.service, remoteService({ name: "api2" }));
    await mirrored("api2-north");
  });
});

describe("Bun's cap on concurrent HTTP requests", () => {
  test("is read from BUN_CONFIG_MAX_HTTP_REQUESTS (256 when unset or out of Bun's range), and serving more Links than it holds is a warning with the fix", () => {
    expect(httpRequestCap({})).toBe(256);
    expect(httpRequestCap({ BUN_CONFIG_MAX_HTTP_REQUESTS: "65535" })).toBe(65535);
    expect(httpRequestCap({ BUN_CONFIG_MAX_HTTP_REQUESTS: "100000" })).toBe(256);
    expect(capacityWarning(41, 256)).toBeNull();
    expect(capacityWarning(42, 256)).toBe(
      "42 Links hold up to 260 concurrent requests (watches), more than this process's 256: requests will wait, Lease renewals too; start mc with BUN_CONFIG_MAX_HTTP_REQUESTS=65535 (mc install --shared-controller sets it)",
    );
    expect(capacityWarning(50, 65535)).toBeNull();
  });
});
