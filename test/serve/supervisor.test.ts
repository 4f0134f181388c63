// The supervisor: Link and Secret changes (re)start the controller, status-only updates do not,
// deletion stops it and keeps the mirrors; credentials rotate; the target goes away and returns.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import type { MirrorController } from "../../src/mirror/controller.ts";
import type { LinkSupervisor } from "../../src/serve/supervisor.ts";
import { linkResource } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { EXPORT, credentialsSecret, linkObject, remoteEndpoints, remoteService } from "../mirror/fixtures.ts";
import { clientFor, ensureNamespaces, startPair, type Pair } from "../helpers/clusters.ts";
import { cached, linkSupervisor, list, nextController, read, untilStatus } from "../mirror/harness.ts";

let pair: Pair;
let sup: LinkSupervisor | undefined;
const extra: Sandbox[] = [];
beforeEach(async () => {
  pair = await startPair();
});
afterEach(async () => {
  await sup?.stop();
  sup = undefined;
  await pair.stop();
  await Promise.all(extra.splice(0).map((s) => s.stop()));
});

async function exportIn(client = pair.eastClient, name = "service-one") {
  const svc = await client.create(resources.service, remoteService({ name }));
  await client.create(resources.endpoints, remoteEndpoints({ name }));
  return svc;
}

const mirrors = () => list(pair.west, "services", "ns1").map((s) => s.metadata.name);

function supervise(): LinkSupervisor {
  sup = linkSupervisor(pair);
  return sup;
}

/**
 * Merge-patches the Link's spec. Works around a sandbox bug: a main-resource write to a custom
 * resource that has no status yet stores `status: null`, which the CRD schema rejects — so the
 * Link gets an empty status first.
 */
async function patchLinkSpec(spec: Record<string, unknown>): Promise<KubeObject> {
  await pair.westClient.patch(linkResource, DEFAULT_NAMESPACE, "east", { status: {} }, { subresource: "status" });
  return pair.westClient.patch<KubeObject>(linkResource, DEFAULT_NAMESPACE, "east", { spec });
}

describe("LinkSupervisor", () => {
  test("a Link deleted and made again with the same spec, both seen by one evaluation, restarts the controller under the new uid, which adopts the mirrors", async () => {
    await exportIn();
    await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
    await pair.westClient.create(linkResource, linkObject());
    const s = supervise();
    const first = nextController(s);
    s.start();
    const ctl = await first;
    const oldUid = ctl.link.uid;
    expect(read(pair.west, "services", "ns1", "service-one-east")?.metadata.labels?.["mirror.linkerd.io/link-uid"]).toBe(oldUid);

    // A spec change starts an evaluation that restarts the controller; while it waits for the new
    // controller's sync, the Link is deleted and made again with that spec in one tick of west's
    // store (a GitOps re-sync, kubectl replace --force): the next evaluation sees only the new Link.
    const LINKS = { group: "multicluster.linkerd.io", plural: "links", kind: "Link", namespaced: true } as never;
    await cached(s.informers.links, await patchLinkSpec({ probeSpec: { timeout: "60s" } }));
    const old = structuredClone(pair.west.store.get(LINKS, DEFAULT_NAMESPACE, "east")!);
    const newUid = crypto.randomUUID();
    const newController = new Promise<MirrorController>((resolve) => {
      const off = s.onController((c) => {
        if (c?.link.uid !== newUid) return;
        off();
        void c.synced.then(() => c.drain()).then(() => resolve(c));
      });
    });
    pair.west.store.remove(LINKS, DEFAULT_NAMESPACE, "east");
    pair.west.store.insert(LINKS, { ...old, metadata: { ...old.metadata, uid: newUid, resourceVersion: undefined } });
    const second = await newController;
    expect(second).not.toBe(ctl);
    await s.settle();
    expect(s.controller).toBe(second);
    expect(read(pair.west, "services", "ns1", "service-one-east")?.metadata.labels?.["mirror.linkerd.io/link-uid"]).toBe(newUid);
  });

  test("a spec change restarts the controller, a status-only update does not, and a deleted Link stops mirroring but keeps the mirrors (Linkerd: TestLinkHandlers)", async () => {
    await exportIn();
    await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
    await pair.westClient.create(linkResource, linkObject({ probe: { path: "/ready", port: "4191", period: "3s" } }));
    const s = supervise();
    const first = nextController(s);
    s.start();
    const ctl = await first;
    expect(mirrors()).toEqual(["service-one-east"]);
    expect(s.ready).toBe(true);

    const statusOnly = await pair.westClient.patch<KubeObject>(
      linkResource,
      DEFAULT_NAMESPACE,
      "east",
      { status: { gateway: { alive: true } } },
      { subresource: "status" },
    );
    await cached(s.informers.links, statusOnly);
    await s.settle();
    expect(s.controller).toBe(ctl);

    const restarted = nextController(s);
    const specChange = await patchLinkSpec({ probeSpec: { timeout: "60s" } });
    await cached(s.informers.links, specChange);
    const second = await restarted;
    expect(second).not.toBe(ctl);
    expect(second.link.probe?.timeoutMs).toBe(60_000);

    const gone = await pair.westClient.get<KubeObject>(linkResource, DEFAULT_NAMESPACE, "east");
    await pair.westClient.delete(linkResource, DEFAULT_NAMESPACE, "east");
    await cached(s.informers.links, gone, true);
    await s.settle();
    expect(s.controller).toBeUndefined();
    expect(s.status).toBe("no-link");
    expect(s.ready).toBe(false);
    expect(mirrors()).toEqual(["service-one-east"]);
  });

  test("a new selector in the Link re-evaluates every Service: newly selected ones are mirrored, no longer selected ones removed", async () => {
    await exportIn();
    await pair.eastClient.create(resources.service, remoteService({ name: "tier-db", labels: { tier: "db" } }));
    await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
    await pair.westClient.create(linkResource, linkObject());
    const s = supervise();
    const first = nextController(s);
    s.start();
    await first;
    expect(mirrors()).toEqual(["service-one-east"]);
    const next = nextController(s);
    await patchLinkSpec({ selector: { matchLabels: { "mirror.linkerd.io/exported": null, tier: "db" } } });
    await next;
    expect(mirrors()).toEqual(["tier-db-east"]);
  });

  test("a rotated credentials Secret reconnects: mirrors follow the cluster it now points at", async () => {
    await exportIn();
    const east2 = await startSandbox({ name: "east2" });
    extra.push(east2);
    const east2Client = await clientFor(east2);
    await ensureNamespaces(east2Client, ["ns1"]);
    await exportIn(east2Client, "service-two");
    await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
    await pair.westClient.create(linkResource, linkObject());
    const s = supervise();
    const first = nextController(s);
    s.start();
    await first;
    expect(mirrors()).toEqual(["service-one-east"]);
    const next = nextController(s);
    await pair.westClient.update(resources.secret, credentialsSecret("east", east2.kubeconfig));
    await next;
    expect(mirrors()).toEqual(["service-two-east"]);
  });

  test("a target API that goes down keeps the controller retrying; once it is back, what changed meanwhile is mirrored", async () => {
    await exportIn();
    await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
    await pair.westClient.create(linkResource, linkObject());
    const s = supervise();
    const first = nextController(s);
    s.start();
    const ctl = await first;
    const { east } = pair;
    await east.stop();
    const svcType = east.api.registry.find("", "v1", "services")!;
    const epType = east.api.registry.find("", "v1", "endpoints")!;
    east.api.delete(svcType, "ns1", "service-one");
    const added = east.api.create(svcType, "ns1", remoteService({ name: "service-two" }) as never, { fieldManager: "test" }).object;
    east.api.create(epType, "ns1", remoteEndpoints({ name: "service-two" }) as never, { fieldManager: "test" });
    const back = await startSandbox({ name: "east", port: east.port, store: east.store });
    extra.push(back);
    await cached(ctl.informers.remoteServices, added as KubeObject);
    await ctl.drain();
    expect(mirrors()).toEqual(["service-two-east"]);
    expect(s.controller).toBe(ctl);
  });

  test("an invalid Link is reported and waited on; fixing it starts mirroring", async () => {
    await exportIn();
    await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
    const bad = linkObject();
    (bad.spec as Record<string, unknown>).probeSpec = { path: "ready", port: "4191", period: "3s" };
    const created = await pair.westClient.create(linkResource, bad);
    const s = supervise();
    s.start();
    await untilStatus(s, "invalid-link");
    expect(created.metadata.name).toBe("east");
    expect(read(pair.west, "services", "ns1", "service-one-east")).toBeUndefined();
    const next = nextController(s);
    await patchLinkSpec({ probeSpec: { path: "/ready" } });
    await next;
    expect(mirrors()).toEqual(["service-one-east"]);
  });

  test("a missing credentials Secret is waited for", async () => {
    await exportIn();
    await pair.westClient.create(linkResource, linkObject({ selector: { matchLabels: EXPORT } }));
    const s = supervise();
    s.start();
    await untilStatus(s, "no-secret");
    const next = nextController(s);
    await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
    await next;
    expect(mirrors()).toEqual(["service-one-east"]);
  });
});
