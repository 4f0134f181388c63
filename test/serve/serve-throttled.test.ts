// mc serve against API servers that shed load as kube-apiserver's priority and fairness does (the sandbox's maxInflight: 429 with
// Retry-After, plain-text body): every request shed is waited out and sent again, so every Service is mirrored, nothing is dropped, and
// nothing is logged above info — throttling is a slower answer, not an error.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { resources } from "../../src/kube/index.ts";
import { serve, type Serving } from "../../src/serve/serve.ts";
import type { MirrorController } from "../../src/mirror/controller.ts";
import { linkResource } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import { within } from "../kube/helpers.ts";
import { recordingLog } from "../helpers/log.ts";
import { credentialsSecret, fakeResolver, linkObject, remoteEndpoints, remoteService } from "../mirror/fixtures.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { list } from "../mirror/harness.ts";

const SERVICES = 24;
let pair: Pair;
let running: Serving | undefined;
beforeEach(async () => {
  pair = await startPair({ namespaces: ["ns1"] });
});
afterEach(async () => {
  await running?.stop();
  await pair.stop();
});

function synced(s: Serving): Promise<MirrorController> {
  return new Promise<MirrorController>((resolve) => {
    const ready = (c: MirrorController) => void c.synced.then(() => c.drain()).then(() => resolve(c));
    const sup = s.supervisor!;
    if (sup.controller) ready(sup.controller);
    else sup.onController((c) => c && ready(c));
  });
}

test("with both clusters shedding every request beyond one in flight (429, Retry-After 1 s), all Services are mirrored, none dropped, nothing logged above info", async () => {
  for (let i = 0; i < SERVICES; i++) {
    await pair.eastClient.create(resources.service, remoteService({ name: `svc-${i}` }));
    await pair.eastClient.create(resources.endpoints, remoteEndpoints({ name: `svc-${i}` }));
  }
  await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
  await pair.westClient.create(linkResource, linkObject());
  // Each answer takes 20 ms, and only one is served at a time: 4 workers, informers and the
  // prober collide all the time.
  for (const sb of [pair.east, pair.west]) Object.assign(sb.control.faults, { maxInflight: 1, delayMs: 20 });
  const log = recordingLog();
  running = await serve({
    local: pair.westClient,
    namespace: DEFAULT_NAMESPACE,
    linkName: "east",
    adminAddr: "127.0.0.1:0",
    leaderElect: false,
    log,
    controller: { resolver: fakeResolver({}), log, informerBackoff: { initialMs: 20, maxMs: 100 } },
  });
  await within(synced(running), "the controller to sync and drain", 60_000);
  const mirrors = list(pair.west, "services", "ns1")
    .map((s) => s.metadata.name)
    .filter((n) => n!.endsWith("-east"));
  const endpoints = list(pair.west, "endpoints", "ns1").filter(
    (e) => e.metadata.name!.endsWith("-east") && (e as { subsets?: unknown[] }).subsets?.length,
  );
  expect(mirrors.length).toBe(SERVICES);
  expect(endpoints.length).toBe(SERVICES);
  expect(pair.west.control.injected.throttled + pair.east.control.injected.throttled).toBeGreaterThan(0);
  expect(log.at("warn")).toEqual([]);
  expect(log.at("error")).toEqual([]);
}, 90_000);
