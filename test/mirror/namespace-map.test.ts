// --namespace-map: a target namespace's Services are mirrored into a differently named local namespace; the mirror is found by its target
// (annotation) and the Link's labels, never by its namespace, so unexport deletes it there, a changed map moves it, and a mirror of another
// target holding the name is never taken over.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { resources } from "../../src/kube/index.ts";
import { REMOTE_SVC_FQ_NAME } from "../../src/model/labels.ts";
import { linkResource } from "../../src/model/link.ts";
import { MIRROR_NAME_ANNOTATION } from "../../src/model/mirror-names.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { remoteEndpoints, remoteService } from "./fixtures.ts";
import { cached, list, readLink, startController } from "./harness.ts";

let pair: Pair;
beforeEach(async () => {
  pair = await startPair({ namespaces: ["ns1", "ns2", "shop-east"] });
});
afterEach(() => pair.stop());

const names = (plural: "services" | "endpoints", ns: string) => list(pair.west, plural, ns).map((o) => o.metadata.name);

type Entry = { remoteRef: { namespace: string; name: string }; conditions: Array<{ reason: string; message: string }> };
const statusEntries = (): Entry[] => (readLink(pair.west)?.status as { mirrorServices?: Entry[] } | undefined)?.mirrorServices ?? [];

async function exportIn(namespace: string) {
  await pair.eastClient.create(resources.service, remoteService({ namespace }));
  await pair.eastClient.create(resources.endpoints, remoteEndpoints({ namespace }));
}

describe("--namespace-map", () => {
  test("mirrors ns1 into shop-east (Service and Endpoints, Linkerd's target annotation unchanged); unexport deletes it there", async () => {
    await exportIn("ns1");
    const ctl = await startController(pair, {}, { settings: { namespaceMap: { ns1: "shop-east" } } });
    expect(names("services", "shop-east")).toEqual(["service-one-east"]);
    expect(names("endpoints", "shop-east")).toEqual(["service-one-east"]);
    expect(names("services", "ns1")).toEqual([]);
    const mirror = list(pair.west, "services", "shop-east")[0]!;
    expect(mirror.metadata.annotations?.[REMOTE_SVC_FQ_NAME]).toBe("service-one.ns1.svc.cluster.local");
    expect(ctl.outcome("ns1/service-one")).toBe("mirrored");

    const target = (await pair.eastClient.get(resources.service, "ns1", "service-one"))!;
    await pair.eastClient.delete(resources.service, "ns1", "service-one");
    await cached(ctl.informers.remoteServices, target, true);
    await ctl.drain();
    expect(names("services", "shop-east")).toEqual([]);
    expect(names("endpoints", "shop-east")).toEqual([]);
  });

  test("a headless target: its headless mirror, endpoint mirrors and their Endpoints all go to shop-east, pointing at the target's pods' names; a pod gone takes its endpoint mirror there", async () => {
    const pods = (...hostnames: string[]) => hostnames.map((hostname, i) => ({ ip: `10.1.0.${i + 1}`, hostname }));
    await pair.eastClient.create(resources.service, remoteService({ headless: true }));
    await pair.eastClient.create(resources.endpoints, remoteEndpoints({ ready: pods("pod-0", "pod-1"), headless: true }));
    const ctl = await startController(
      pair,
      { gatewayAddress: "192.0.2.129", gatewayPort: "889" },
      { settings: { enableHeadlessServices: true, namespaceMap: { ns1: "shop-east" } } },
    );
    expect(names("services", "shop-east")).toEqual(["pod-0-east", "pod-1-east", "service-one-east"]);
    expect(names("endpoints", "shop-east")).toEqual(["pod-0-east", "pod-1-east", "service-one-east"]);
    expect(names("services", "ns1")).toEqual([]);
    const pod = list(pair.west, "services", "shop-east").find((s) => s.metadata.name === "pod-0-east")!;
    expect(pod.metadata.annotations?.[REMOTE_SVC_FQ_NAME]).toBe("pod-0.service-one.ns1.svc.cluster.local");

    const current = (await pair.eastClient.get(resources.endpoints, "ns1", "service-one"))!;
    const updated = await pair.eastClient.update(resources.endpoints, {
      ...current,
      subsets: remoteEndpoints({ ready: pods("pod-0") }).subsets,
    });
    await cached(ctl.informers.remoteEndpoints, updated);
    await ctl.drain();
    expect(names("services", "shop-east")).toEqual(["pod-0-east", "service-one-east"]);
  });

  test("a changed map moves the mirror: the new one is made, the one in the old namespace deleted", async () => {
    await exportIn("ns1");
    const first = await startController(pair, {}, { settings: { namespaceMap: { ns1: "shop-east" } } });
    expect(names("services", "shop-east")).toEqual(["service-one-east"]);
    await first.stop();
    await pair.westClient.delete(linkResource, "linkerd-multicluster", "east");
    await startController(pair); // the Link again, its controller without the map
    expect(names("services", "ns1")).toEqual(["service-one-east"]);
    expect(names("endpoints", "ns1")).toEqual(["service-one-east"]);
    expect(names("services", "shop-east")).toEqual([]);
    expect(names("endpoints", "shop-east")).toEqual([]);
  });

  test("two targets wanting one local name: the mirror that holds it stays, the other target is refused naming it", async () => {
    await exportIn("ns2");
    await exportIn("ns1");
    // ns2 keeps its name; ns1 is mapped onto ns2: both want ns2/service-one-east.
    const ctl = await startController(pair, {}, { settings: { namespaceMap: { ns1: "ns2" } } });
    expect(names("services", "ns2")).toEqual(["service-one-east"]);
    const held = list(pair.west, "services", "ns2")[0]!.metadata.annotations?.[REMOTE_SVC_FQ_NAME];
    const [winner, loser] = held === "service-one.ns1.svc.cluster.local" ? ["ns1", "ns2"] : ["ns2", "ns1"];
    expect(ctl.outcome(`${winner}/service-one`)).toBe("mirrored");
    const entry = statusEntries().find((e) => e.remoteRef.namespace === loser);
    expect(entry?.conditions[0]).toMatchObject({
      reason: "Error",
      message: `Service ns2/service-one-east is the mirror of ${winner}/service-one from east; left alone (name one of them with the annotation ${MIRROR_NAME_ANNOTATION})`,
    });
    expect(statusEntries().find((e) => e.remoteRef.namespace === winner)).toBeUndefined();
  });
});
