// A mirror (or its Endpoints) deleted by someone just after the controller wrote it, with the write's echo and the deletion both seen
// before the write's answer: the local view must not keep the write as truth, so the mirror is re-created. The race is made exact by
// holding the answer of the controller's update until its informer has seen the deletion.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { resources, type KubeClient, type KubeObject, type ResourceType } from "../../src/kube/index.ts";
import { remoteEndpoints, remoteService } from "./fixtures.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { cached, read, startController } from "./harness.ts";

let pair: Pair;
beforeEach(async () => {
  pair = await startPair();
});
afterEach(() => pair.stop());

/** westClient, except that the next update of `plural` ns1/service-one-east is answered only once that object was deleted and the controller's cache saw it go. */
function deletingAfterUpdate(client: KubeClient, plural: "services" | "endpoints", seen: (obj: KubeObject) => Promise<void>) {
  let armed = false;
  let fired = false;
  const proxy = new Proxy(client, {
    get(target, prop, receiver) {
      if (prop !== "update") return Reflect.get(target, prop, receiver) as unknown;
      return async (res: ResourceType, obj: KubeObject, opts?: unknown) => {
        const out = await target.update(res, obj, opts as never);
        if (armed && res.plural === plural && obj.metadata.name === "service-one-east") {
          armed = false;
          fired = true;
          await target.delete(res, "ns1", "service-one-east");
          await seen(out);
        }
        return out;
      };
    },
  });
  return { proxy, arm: () => (armed = true), fired: () => fired };
}

test.each(["services", "endpoints"] as const)(
  "a mirror's %s deleted right after the controller's update (echo and deletion before the answer) is re-created",
  async (plural) => {
    let seen: (obj: KubeObject) => Promise<void> = async () => {};
    const local = deletingAfterUpdate(pair.westClient, plural, (obj) => seen(obj));
    const ctl = await startController(pair, {}, { local: local.proxy });
    seen = (obj) => cached(plural === "services" ? ctl.informers.services : ctl.informers.endpoints, obj, true);
    const svc = await pair.eastClient.create(resources.service, remoteService());
    const ep = await pair.eastClient.create(resources.endpoints, remoteEndpoints());
    await cached(ctl.informers.remoteServices, svc);
    await cached(ctl.informers.remoteEndpoints, ep);
    await ctl.drain();
    expect(read(pair.west, plural, "ns1", "service-one-east")).toBeDefined();

    local.arm();
    // A change that updates the mirror Service only (a label), or its Endpoints only (the gateway turns not alive).
    if (plural === "services") {
      const changed = await pair.eastClient.patch<KubeObject>(resources.service, "ns1", "service-one", {
        metadata: { labels: { extra: "x" } },
      });
      await cached(ctl.informers.remoteServices, changed);
    } else {
      ctl.setAlive(false);
    }
    await ctl.drain();
    expect(local.fired()).toBe(true);
    const back = read(pair.west, plural, "ns1", "service-one-east");
    expect(back).toBeDefined();
    if (plural === "services") expect(back?.metadata.labels?.extra).toBe("x");
    else expect((back as { subsets?: Array<{ notReadyAddresses?: unknown[] }> }).subsets?.[0]?.notReadyAddresses).toHaveLength(1);
    // Another change is mirrored too (no write fails on a mirror that is gone).
    const again = await pair.eastClient.patch<KubeObject>(resources.service, "ns1", "service-one", {
      metadata: { labels: { extra: "y" } },
    });
    await cached(ctl.informers.remoteServices, again);
    await ctl.drain();
    expect(read(pair.west, "services", "ns1", "service-one-east")?.metadata.labels?.extra).toBe("y");
    expect(ctl.outcome("ns1/service-one")).toBe("mirrored");
  },
);
