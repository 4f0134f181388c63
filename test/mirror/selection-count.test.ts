// What the Link's selectors select, counted for any selector: one sharing no key with the remote-discovery selector leaves the
// exported-Services informer unfiltered, and its cache is then every Service of the target — not what is selected. A typo (`team=nobody`)
// must read as selecting nothing in ServicesSelected (the health the supervisor writes) and in the sync log.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import { linkResource } from "../../src/model/link.ts";
import type { Selection } from "../../src/mirror/sources/target-health.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { recordingLog } from "../helpers/log.ts";
import { REMOTE_DISCOVERY, remoteEndpoints, remoteService } from "./fixtures.ts";
import { cached, list, startController } from "./harness.ts";

let pair: Pair;
beforeEach(async () => {
  pair = await startPair();
});
afterEach(() => pair.stop());

test("a selector that shares no key with the remote-discovery selector and matches nothing: selects nothing, mirrors existed, the log says 0; a Service it then matches (an update) selects", async () => {
  await pair.eastClient.create(resources.service, remoteService());
  await pair.eastClient.create(resources.endpoints, remoteEndpoints());
  await pair.eastClient.create(resources.service, remoteService({ name: "unexported", labels: { app: "x" } }));
  const first = await startController(pair, { remoteDiscoverySelector: { matchLabels: REMOTE_DISCOVERY } });
  expect(list(pair.west, "services", "ns1").map((s) => s.metadata.name)).toEqual(["service-one-east"]);
  await first.stop();
  await pair.westClient.delete(linkResource, "linkerd-multicluster", "east");

  // The typo: `team=nobody`.
  const log = recordingLog();
  const selections: Selection[] = [];
  const ctl = await startController(
    pair,
    { selector: { matchLabels: { team: "nobody" } }, remoteDiscoverySelector: { matchLabels: REMOTE_DISCOVERY } },
    { log },
    (c) => c.onHealth((h) => void (h.kind === "selection" && selections.push(h.selection))),
  );
  expect(ctl.informers.remoteServices?.cache.get("ns1", "unexported")).toBeDefined(); // unfiltered: what it caches is not what is selected
  expect(selections).toEqual([{ selected: false, mirrorsExisted: true }]);
  expect(log.at("info").find((m) => m.startsWith("synced with east:"))).toStartWith("synced with east: 0 exported services,");
  expect(list(pair.west, "services", "ns1")).toEqual([]); // Linkerd's semantics: the mirrors go

  const matched = await pair.eastClient.patch<KubeObject>(resources.service, "ns1", "unexported", {
    metadata: { labels: { team: "nobody" } },
  });
  await cached(ctl.informers.remoteServices, matched);
  expect(selections.at(-1)).toEqual({ selected: true, mirrorsExisted: false });
  await ctl.drain();
  expect(list(pair.west, "services", "ns1").map((s) => s.metadata.name)).toEqual(["unexported-east"]);
});
