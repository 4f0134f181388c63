// Headless targets with --enable-headless-services (docs/linkerd-compatibility.md#headless): a
// headless mirror, one endpoint mirror per pod hostname, and cleanup that never leaves the target's
// namespace.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import type { MirrorController } from "../../src/mirror/controller.ts";
import { linkResource } from "../../src/model/link.ts";
import { remoteEndpoints, remoteService, type AddressFixture } from "./fixtures.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { cached, list, read, readEndpoints, startController, writes } from "./harness.ts";

const UID = "mirror.linkerd.io/link-uid";

let pair: Pair;
beforeEach(async () => {
  pair = await startPair();
});
afterEach(() => pair.stop());

const gateway = { gatewayAddress: "192.0.2.129", gatewayPort: "889" };
const pods = (...names: string[]): AddressFixture[] => names.map((hostname, i) => ({ ip: `10.1.0.${i + 1}`, hostname }));

async function exportHeadless(namespace = "ns1", ready = pods("pod-0")) {
  const svc = await pair.eastClient.create(resources.service, remoteService({ namespace, headless: true }));
  const ep = await pair.eastClient.create(resources.endpoints, remoteEndpoints({ namespace, ready, headless: true }));
  return { svc, ep };
}

async function setPods(ctl: MirrorController, namespace: string, ready: AddressFixture[]) {
  const current = await pair.eastClient.get<KubeObject>(resources.endpoints, namespace, "service-one");
  const updated = await pair.eastClient.update(resources.endpoints, { ...current, subsets: remoteEndpoints({ ready }).subsets });
  await cached(ctl.informers.remoteEndpoints, updated);
  await ctl.drain();
}

const names = (ns: string) => list(pair.west, "services", ns).map((s) => s.metadata.name);
const clusterIP = (ns: string, name: string) =>
  (read(pair.west, "services", ns, name)?.spec as { clusterIP?: string } | undefined)?.clusterIP;

describe("headless mirrors", () => {
  test("a headless target with a pod gets a headless mirror, an endpoint mirror through the gateway, and Endpoints naming the pod (Linkerd: create headless service and endpoints)", async () => {
    await exportHeadless();
    const before = writes(pair.west);
    await startController(pair, gateway, { settings: { enableHeadlessServices: true } });
    expect(names("ns1")).toEqual(["pod-0-east", "service-one-east"]);
    expect(clusterIP("ns1", "service-one-east")).toBe("None");
    const podMirror = read(pair.west, "services", "ns1", "pod-0-east")!;
    expect(podMirror.metadata.labels?.["mirror.linkerd.io/headless-mirror-svc-name"]).toBe("service-one-east");
    expect(podMirror.metadata.annotations?.["mirror.linkerd.io/remote-svc-fq-name"]).toBe("pod-0.service-one.ns1.svc.cluster.local");
    expect(readEndpoints(pair.west, "ns1", "pod-0-east")!.subsets).toEqual([
      {
        addresses: [{ ip: "192.0.2.129" }],
        ports: [
          { name: "port1", protocol: "TCP", port: 889 },
          { name: "port2", protocol: "TCP", port: 889 },
        ],
      },
    ]);
    expect(readEndpoints(pair.west, "ns1", "service-one-east")!.subsets).toEqual([
      {
        addresses: [{ hostname: "pod-0", ip: clusterIP("ns1", "pod-0-east")! }],
        ports: [
          { name: "port1", protocol: "TCP", port: 555 },
          { name: "port2", protocol: "TCP", port: 666 },
        ],
      },
    ]);
    // the Link; 2 per endpoint mirror, 2 for the headless mirror, 1 for the gateway mirror
    expect(writes(pair.west) - before).toBe(1 + 5);
  });

  test("endpoint mirrors and their Endpoints carry the exported Service's mirror labels, its own included, plus headless-mirror-svc-name, and follow a relabel (Linkerd: createEndpointMirrorService)", async () => {
    const svc = await pair.eastClient.create(
      resources.service,
      remoteService({ headless: true, labels: { "mirror.linkerd.io/exported": "true", lk: "lv" } }),
    );
    await pair.eastClient.create(resources.endpoints, remoteEndpoints({ ready: pods("pod-0"), headless: true }));
    const ctl = await startController(pair, gateway, { settings: { enableHeadlessServices: true } });
    const want = {
      lk: "lv",
      "mirror.linkerd.io/mirrored-service": "true",
      "mirror.linkerd.io/cluster-name": "east",
      "mirror.linkerd.io/link-uid": ctl.link.uid!,
      "mirror.linkerd.io/headless-mirror-svc-name": "service-one-east",
    };
    expect(read(pair.west, "services", "ns1", "pod-0-east")!.metadata.labels).toEqual(want);
    expect(readEndpoints(pair.west, "ns1", "pod-0-east")!.metadata.labels).toEqual(want);
    const relabelled = await pair.eastClient.patch<KubeObject>(resources.service, "ns1", "service-one", {
      metadata: { labels: { lk: "lv2", tier: "db" } },
    });
    expect(relabelled.metadata.uid).toBe(svc.metadata.uid);
    await cached(ctl.informers.remoteServices, relabelled);
    await ctl.drain();
    const now = { ...want, lk: "lv2", tier: "db" };
    expect(read(pair.west, "services", "ns1", "pod-0-east")!.metadata.labels).toEqual(now);
    expect(readEndpoints(pair.west, "ns1", "pod-0-east")!.metadata.labels).toEqual(now);
  });

  test("new pods in the target's Endpoints get endpoint mirrors and appear in the headless Endpoints; gone pods lose theirs (Linkerd: updates headless mirror service with new remote Endpoints hosts)", async () => {
    await exportHeadless();
    const ctl = await startController(pair, gateway, { settings: { enableHeadlessServices: true } });
    await setPods(ctl, "ns1", pods("pod-0", "pod-1"));
    expect(names("ns1")).toEqual(["pod-0-east", "pod-1-east", "service-one-east"]);
    const hosts = readEndpoints(pair.west, "ns1", "service-one-east")!.subsets?.[0]?.addresses as Array<{ hostname: string; ip: string }>;
    expect(hosts.map((a) => a.hostname).sort()).toEqual(["pod-0", "pod-1"]);
    expect(hosts.find((a) => a.hostname === "pod-1")?.ip).toBe(clusterIP("ns1", "pod-1-east")!);
    await setPods(ctl, "ns1", pods("pod-1"));
    expect(names("ns1")).toEqual(["pod-1-east", "service-one-east"]);
    expect(list(pair.west, "endpoints", "ns1").map((e) => e.metadata.name)).toEqual(["pod-1-east", "service-one-east"]);
    const before = writes(pair.west);
    await ctl.refresh();
    await ctl.drain();
    expect(writes(pair.west)).toBe(before);
  });

  test("endpoint-mirror cleanup is scoped to the target's namespace, on update and on unexport (Linkerd: TestHeadlessEndpointMirrorCleanupRespectsNamespaces)", async () => {
    await exportHeadless("ns1", pods("pod-0"));
    await exportHeadless("ns2", pods("pod-0"));
    const ctl = await startController(pair, gateway, { settings: { enableHeadlessServices: true } });
    expect(names("ns2")).toEqual(["pod-0-east", "service-one-east"]);
    await setPods(ctl, "ns1", pods("pod-1"));
    expect(names("ns1")).toEqual(["pod-1-east", "service-one-east"]);
    expect(names("ns2")).toEqual(["pod-0-east", "service-one-east"]);
    const unexported = await pair.eastClient.patch<KubeObject>(resources.service, "ns1", "service-one", {
      metadata: { labels: { "mirror.linkerd.io/exported": null } },
    });
    await cached(ctl.informers.remoteServices, unexported, true);
    await ctl.drain();
    expect(names("ns1")).toEqual([]);
    expect(list(pair.west, "endpoints", "ns1")).toEqual([]);
    expect(names("ns2")).toEqual(["pod-0-east", "service-one-east"]);
  });

  test("a restart keeps a headless mirror and its endpoint mirrors whose target still exists (Linkerd: TestGcOrphanedServicesMirroring, linkerd/linkerd2#12499)", async () => {
    await exportHeadless("ns1");
    await exportHeadless("ns2");
    const first = await startController(pair, gateway, { settings: { enableHeadlessServices: true } });
    await first.stop();
    await pair.eastClient.delete(resources.service, "ns2", "service-one");
    await pair.westClient.delete(linkResource, "linkerd-multicluster", "east");
    const uids = () => list(pair.west, "services", "ns1").map((o) => o.metadata.uid);
    const kept = uids();
    const commits: string[] = [];
    const off = pair.west.store.onCommit((e) => {
      if (e.key === "multicluster.linkerd.io/links") return commits.push(`${e.type} ${e.key}`);
      if (e.key !== "/services" && e.key !== "/endpoints") return;
      const { namespace, name } = e.object.metadata;
      // The re-made Link adopts the mirrors (docs/decisions.md#d117): an update of the Link-uid label alone.
      const owned = (o: KubeObject | undefined) =>
        JSON.stringify([
          { ...o?.metadata.labels, [UID]: "" },
          o?.metadata.annotations,
          o?.spec,
          (o as { subsets?: unknown } | undefined)?.subsets,
        ]);
      const relabelled =
        e.type === "MODIFIED" &&
        e.previous?.metadata.labels?.[UID] !== e.object.metadata.labels?.[UID] &&
        owned(e.previous) === owned(e.object);
      commits.push(relabelled ? "adopted" : `${e.type} ${e.key.slice(1)} ${namespace}/${name}`);
    });
    await startController(pair, gateway, { settings: { enableHeadlessServices: true } });
    off();
    expect(names("ns1")).toEqual(["pod-0-east", "service-one-east"]);
    expect(uids()).toEqual(kept);
    expect(names("ns2")).toEqual([]);
    // the Link, then two deletes per mirror in ns2 — nothing for ns1 but adoption's relabelling (ns1's four and the gateway mirror, at least)
    expect(commits.filter((c) => c === "adopted").length).toBeGreaterThanOrEqual(5);
    expect(commits.filter((c) => c !== "adopted").sort()).toEqual([
      "ADDED multicluster.linkerd.io/links",
      "DELETED endpoints ns2/pod-0-east",
      "DELETED endpoints ns2/service-one-east",
      "DELETED services ns2/pod-0-east",
      "DELETED services ns2/service-one-east",
    ]);
  });

  test("a headless target whose pods have no hostnames is mirrored as a ClusterIP Service through the gateway", async () => {
    await pair.eastClient.create(resources.service, remoteService({ headless: true }));
    await pair.eastClient.create(resources.endpoints, remoteEndpoints({ ready: ["10.1.0.1"], headless: true }));
    await startController(pair, gateway, { settings: { enableHeadlessServices: true } });
    expect(names("ns1")).toEqual(["service-one-east"]);
    expect(clusterIP("ns1", "service-one-east")).not.toBe("None");
    expect(readEndpoints(pair.west, "ns1", "service-one-east")!.subsets?.[0]?.addresses).toEqual([{ ip: "192.0.2.129" }]);
  });
});
