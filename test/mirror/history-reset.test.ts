// East restored from an older copy (an etcd restore): the controller relists, the mirrors follow, and the Link gets a Warning Event.
import { afterEach, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import type { LinkSupervisor } from "../../src/serve/supervisor.ts";
import { linkResource } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { credentialsSecret, linkObject, remoteEndpoints, remoteService } from "./fixtures.ts";
import { clientFor, ensureNamespaces, startPair, type Pair } from "../helpers/clusters.ts";
import { linkSupervisor, list, nextController } from "./harness.ts";
import { within } from "../helpers/clusters.ts";

// East restored from an older copy (an etcd restore: its resourceVersions fall, what was deleted
// since comes back, what was created since is gone). kube-apiserver accepts a watch from the old
// resume point and stays silent, so only the informers notice: their relist after the lost
// connection (D178), or their confirmation of the resume point. The controller relists, the mirrors follow the restored east, and the Link gets a Warning Event
// TargetHistoryReset saying what happened.

let pair: Pair | undefined;
let sup: LinkSupervisor | undefined;
let restored: Sandbox | undefined;
afterEach(async () => {
  await sup?.stop();
  await pair?.stop();
  await restored?.stop();
});

const mirrors = () =>
  list(pair!.west, "services", "ns1")
    .map((s) => s.metadata.name)
    .sort();

test("east restored from an older copy: the silent resume is noticed, the mirrors follow the restored east (no restart), and the Link gets a Warning Event TargetHistoryReset", async () => {
  pair = await startPair();
  const { eastClient, westClient, east } = pair;
  // The copy east will be restored from: only `kept` and `deleted-since` exist in it.
  for (const name of ["kept", "deleted-since"]) {
    await eastClient.create(resources.service, remoteService({ name }));
    await eastClient.create(resources.endpoints, remoteEndpoints({ name }));
  }
  const copy = east.store;
  const backup = [...east.api.registry.all()].flatMap((type) =>
    copy.list(type).map((object) => ({ type, object: structuredClone(object) })),
  );
  const backupRv = Number(copy.resourceVersion);
  // After the copy: one deleted, one created, and enough other writes to take east well past it.
  await eastClient.delete(resources.service, "ns1", "deleted-since");
  await eastClient.create(resources.service, remoteService({ name: "created-since" }));
  await eastClient.create(resources.endpoints, remoteEndpoints({ name: "created-since" }));
  for (let i = 0; i < 30; i++)
    await eastClient.create(resources.configMap, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `noise-${i}`, namespace: "ns1" },
    });

  await westClient.create(resources.secret, credentialsSecret("east", east.kubeconfig));
  await westClient.create(linkResource, linkObject());
  sup = linkSupervisor(pair);
  const first = nextController(sup);
  sup.start();
  await first;
  expect(mirrors()).toEqual(["created-since-east", "kept-east"]);

  // The restore: east stops and comes back on its address from the copy, its resourceVersion below what the controller saw.
  await east.stop();
  restored = await startSandbox({ name: "east", port: east.port, tooLargeWaitMs: 100 });
  const rc = await clientFor(restored);
  await ensureNamespaces(rc, ["ns1"]);
  for (const { type, object } of backup) {
    if (type.plural !== "services" && type.plural !== "endpoints") continue;
    if (object.metadata.namespace !== "ns1") continue;
    const { resourceVersion: _rv, uid: _uid, creationTimestamp: _t, ...metadata } = object.metadata;
    await rc.create(type.plural === "services" ? resources.service : resources.endpoints, { ...object, metadata } as KubeObject);
  }
  expect(Number(restored.store.resourceVersion)).toBeLessThan(backupRv + 30);

  const resets = () =>
    list(pair!.west, "events", DEFAULT_NAMESPACE).filter((e) => (e as { reason?: string }).reason === "TargetHistoryReset");
  const done = () => resets().length > 0 && mirrors().join() === "deleted-since-east,kept-east";
  await within(
    new Promise<void>((resolve) => {
      if (done()) return resolve();
      const off = pair!.west.store.onCommit(() => {
        if (!done()) return;
        off();
        resolve();
      });
    }),
    "the mirrors of the restored east and a TargetHistoryReset Event",
    10_000,
  );
  const reset = list(pair.west, "events", DEFAULT_NAMESPACE).find(
    (e) => (e as { reason?: string }).reason === "TargetHistoryReset",
  ) as KubeObject & { type: string; message: string; involvedObject: { kind: string; name: string } };
  expect(reset.type).toBe("Warning");
  expect(reset.involvedObject).toMatchObject({ kind: "Link", name: "east" });
  expect(reset.message).toMatch(
    /^east's history went backwards: (services|endpoints) on east listed at resourceVersion \d+, below \d+ already seen \(as after an etcd restore\); relisted, and the mirrors follow the new list$/,
  );
}, 20_000);
