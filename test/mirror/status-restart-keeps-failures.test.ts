// A controller restart (Secret rotation, Link spec change, leader failover) must not rewrite an
// unchanged Link status: a failure the previous controller reported stays listed, with its
// lastTransitionTime, while the new controller is still retrying that Service.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { createWriter, resources, type KubeObject } from "../../src/kube/index.ts";
import { MirrorController } from "../../src/mirror/controller.ts";
import { linkResource, parseLink } from "../../src/model/link.ts";
import { within } from "../kube/helpers.ts";
import { fakeResolver, remoteEndpoints, remoteService } from "../mirror/fixtures.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { manualController, quiet, readLink, startController } from "../mirror/harness.ts";

let pair: Pair;
beforeEach(async () => {
  pair = await startPair();
});
afterEach(() => pair.stop());

const statusPatches = () => pair.west.store.writes.patch;

test("a restarted controller keeps a failure that is still failing in the Link status: no clear-and-rewrite, same lastTransitionTime", async () => {
  await pair.eastClient.create(resources.service, remoteService());
  await pair.eastClient.create(resources.endpoints, remoteEndpoints());
  // A stranger's Endpoints on the mirror name (no mirror labels): creating ours fails with AlreadyExists, retried, then given up.
  await pair.westClient.create(resources.endpoints, {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: { name: "service-one-east", namespace: "ns1" },
    subsets: [],
  } as KubeObject);
  const first = await startController(pair, { probe: null });
  await first.drain();
  const failed = readLink(pair.west)!.status as {
    mirrorServices?: Array<{ remoteRef: { name: string }; conditions: Array<{ lastTransitionTime: string }> }>;
  };
  expect(failed.mirrorServices?.map((e) => e.remoteRef.name)).toEqual(["service-one"]);
  const since = failed.mirrorServices![0]!.conditions[0]!.lastTransitionTime;
  await first.stop();
  await Bun.sleep(5); // a later clock second would show a reset lastTransitionTime

  const link = parseLink(await pair.westClient.get<KubeObject>(linkResource, "linkerd-multicluster", "east"));
  const before = statusPatches();
  const second = manualController(pair, link);
  second.start();
  await within(second.synced, "the controller to sync");
  await second.drain();
  const after = readLink(pair.west)!.status as typeof failed;
  expect(after.mirrorServices?.map((e) => e.remoteRef.name)).toEqual(["service-one"]);
  expect(after.mirrorServices![0]!.conditions[0]!.lastTransitionTime).toBe(since);
  expect(statusPatches() - before).toBe(0);
});

test("a failure listed in the Link status for a Service that is gone is cleared by the restarted controller", async () => {
  const first = await startController(pair, { probe: null });
  await first.stop();
  const stale = [
    {
      controllerName: "linkerd.io/service-mirror",
      remoteRef: { group: "", kind: "Service", name: "gone", namespace: "ns1" },
      conditions: [
        { type: "Mirrored", status: "False", reason: "MissingNamespace", message: "x", lastTransitionTime: "2026-12-02T10:00:00.000Z" },
      ],
    },
  ];
  await createWriter(pair.westClient).patchStatus(linkResource, "linkerd-multicluster", "east", { mirrorServices: stale });
  expect((readLink(pair.west)!.status as { mirrorServices?: unknown[] }).mirrorServices).toHaveLength(1);
  const link = parseLink(await pair.westClient.get<KubeObject>(linkResource, "linkerd-multicluster", "east"));
  const second = new MirrorController({
    link,
    namespace: link.namespace,
    local: pair.westClient,
    remote: pair.eastClient,
    manual: true,
    resolver: fakeResolver({}),
    log: quiet,
  });
  pair.controllers.push(second);
  second.start();
  await within(second.synced, "the controller to sync");
  await second.drain();
  const status = readLink(pair.west)?.status as { mirrorServices?: unknown[] } | undefined;
  expect(status?.mirrorServices ?? []).toEqual([]);
});
