// Linkerd's cluster_watcher_mirroring_test.go, part 1: TestRemoteServiceCreatedMirroring, TestLocalNamespaceCreatedAfterServiceExport,
// TestServiceCreatedGatewayAlive/-Down. One test per Linkerd case, named after it; each compares the mirror Service and Endpoints field by
// field with what Linkerd's case expects. Where mc deliberately differs the test asserts mc's behaviour and its name says how.
import { afterEach, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../../src/kube/index.ts";
import { MirrorController } from "../../../src/mirror/controller.ts";
import { localMirrorLink } from "../../../src/serve/local-mirror.ts";
import { parseLabelSelector } from "../../../src/model/selector.ts";
import { within } from "../../kube/helpers.ts";
import { ensureNamespaces, startPair, type Pair } from "../../helpers/clusters.ts";
import { cached, quiet, read } from "../harness.ts";
import {
  CLUSTER,
  clusterIPOf,
  endpointMirrorEndpoints,
  endpointMirrorService,
  endpointPorts,
  endpoints,
  EXPORTED,
  expectEndpoints,
  expectService,
  GATEWAY_IP,
  headlessMirrorEndpoints,
  headlessMirrorService,
  IDENTITY,
  mirrorNames,
  mirrorService,
  ports,
  remoteEndpointsOf,
  remoteHeadlessEndpoints,
  remoteService,
  runEnvironment,
  rvOf,
} from "./linkerd.ts";

let pair: Pair | undefined;
afterEach(async () => {
  await pair?.stop();
  pair = undefined;
});

const p555 = ports(["port1", 555], ["port2", 666]);
const RD = { "mirror.linkerd.io/exported": "remote-discovery" };

/** Linkerd's remoteDiscoveryMirrorService: a mirror with the remote-discovery labels. */
function remoteDiscoveryMirror(name: string, namespace: string, resourceVersion: string) {
  const m = mirrorService(`${name}-${CLUSTER}`, namespace, resourceVersion);
  return {
    ...m,
    labels: { ...m.labels, "multicluster.linkerd.io/remote-discovery": CLUSTER, "multicluster.linkerd.io/remote-service": name },
  };
}

describe("TestRemoteServiceCreatedMirroring", () => {
  test("create service and endpoints when gateway can be resolved", async () => {
    // The target's Endpoints carry Linkerd's fixture labels, not the export label: readiness is
    // read whatever their labels (docs/decisions.md#d41).
    const env = await runEnvironment({
      localNamespaces: ["ns1"],
      remote: [
        remoteService("service-one", "ns1", { ...EXPORTED, lk: "lv" }, p555),
        remoteEndpointsOf("service-one", "ns1", "192.0.2.127"),
      ],
    });
    pair = env.pair;
    expectService(pair, mirrorService("service-one-remote", "ns1", rvOf(env.remote, "Service", "ns1", "service-one"), { lk: "lv" }));
    expectEndpoints(
      pair,
      endpoints("service-one-remote", "ns1", { lk: "lv" }, GATEWAY_IP, IDENTITY, endpointPorts(["port1", 888], ["port2", 888])),
    );
  });

  test("create headless service and endpoints when gateway can be resolved", async () => {
    const env = await runEnvironment({
      localNamespaces: ["ns2"],
      remote: [
        remoteService("service-one", "ns2", { ...EXPORTED, lk: "lv" }, p555, true),
        remoteHeadlessEndpoints("service-one", "ns2", "192.0.0.1", ["pod-0"], endpointPorts(["port1", 555], ["port2", 666])),
      ],
      link: { gatewayAddress: "192.0.2.129", gatewayPort: "889" },
    });
    pair = env.pair;
    const svcRv = rvOf(env.remote, "Service", "ns2", "service-one");
    const epRv = rvOf(env.remote, "Endpoints", "ns2", "service-one");
    const mirror = expectService(pair, headlessMirrorService("service-one-remote", "ns2", svcRv, { lk: "lv" }));
    expect((mirror.spec as { clusterIP?: string }).clusterIP).toBe("None");
    expectService(pair, endpointMirrorService("pod-0", "service-one-remote", "ns2", epRv, { lk: "lv" }));
    expectEndpoints(
      pair,
      headlessMirrorEndpoints(
        "service-one-remote",
        "ns2",
        { lk: "lv" },
        ["pod-0"],
        IDENTITY,
        endpointPorts(["port1", 555], ["port2", 666]),
        clusterIPOf(pair, "ns2"),
      ),
    );
    expectEndpoints(
      pair,
      endpointMirrorEndpoints(
        "service-one-remote",
        "ns2",
        { lk: "lv" },
        "pod-0",
        "192.0.2.129",
        IDENTITY,
        endpointPorts(["port1", 889], ["port2", 889]),
      ),
    );
  });

  test("remote discovery mirroring", async () => {
    const env = await runEnvironment({
      localNamespaces: ["ns1"],
      remote: [remoteService("service-one", "ns1", RD, p555), remoteEndpointsOf("service-one", "ns1", "192.0.2.127")],
      link: { remoteDiscoverySelector: { matchLabels: RD } },
    });
    pair = env.pair;
    expectService(pair, remoteDiscoveryMirror("service-one", "ns1", rvOf(env.remote, "Service", "ns1", "service-one")));
    expect(read(pair.west, "endpoints", "ns1", "service-one-remote")).toBeUndefined();
  });

  test("link with no gateway mirrors only remote discovery", async () => {
    const env = await runEnvironment({
      localNamespaces: ["ns1"],
      remote: [
        remoteService("service-one", "ns1", { "mirror.linkerd.io/exported": "remote-discovery" }, p555),
        remoteService("service-two", "ns1", EXPORTED, p555),
        remoteEndpointsOf("service-one", "ns1", "192.0.2.127"),
        remoteEndpointsOf("service-two", "ns1", "192.0.2.128"),
      ],
      link: { gatewayAddress: "", selector: {}, probe: null, remoteDiscoverySelector: { matchLabels: RD } },
    });
    pair = env.pair;
    expect(mirrorNames(pair)).toEqual(["ns1/service-one-remote"]);
    expectService(pair, remoteDiscoveryMirror("service-one", "ns1", rvOf(env.remote, "Service", "ns1", "service-one")));
    expect(read(pair.west, "endpoints", "ns1", "service-one-remote")).toBeUndefined();
  });

  const member = { "mirror.linkerd.io/federated": "member" };
  const federated = (annotations: Record<string, string>): KubeObject => ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "service-one-federated", namespace: "ns1", labels: { "mirror.linkerd.io/mirrored-service": "true" }, annotations },
    spec: { ports: p555 },
  });
  const federatedAnnotations = () => read(pair!.west, "services", "ns1", "service-one-federated")?.metadata.annotations;

  test("federated service created", async () => {
    const env = await runEnvironment({
      localNamespaces: ["ns1"],
      remote: [remoteService("service-one", "ns1", member, p555), remoteEndpointsOf("service-one", "ns1", "192.0.2.127")],
      link: { federatedServiceSelector: { matchLabels: member } },
    });
    pair = env.pair;
    const m = read(pair.west, "services", "ns1", "service-one-federated")!.metadata;
    expect({ labels: m.labels, annotations: m.annotations }).toEqual({
      labels: { "mirror.linkerd.io/mirrored-service": "true" },
      annotations: { "multicluster.linkerd.io/remote-discovery": `service-one@${CLUSTER}` },
    });
    expect(read(pair.west, "endpoints", "ns1", "service-one-federated")).toBeUndefined();
  });

  test("federated service joined", async () => {
    const env = await runEnvironment({
      localNamespaces: ["ns1"],
      remote: [remoteService("service-one", "ns1", member, p555)],
      local: [federated({ "multicluster.linkerd.io/remote-discovery": "service-one@other" })],
      link: { federatedServiceSelector: { matchLabels: member } },
    });
    pair = env.pair;
    expect(federatedAnnotations()).toEqual({ "multicluster.linkerd.io/remote-discovery": `service-one@other,service-one@${CLUSTER}` });
  });

  test("federated service left", async () => {
    const env = await runEnvironment({
      localNamespaces: ["ns1"],
      local: [federated({ "multicluster.linkerd.io/remote-discovery": `service-one@other,service-one@${CLUSTER}` })],
      link: { federatedServiceSelector: { matchLabels: member } },
    });
    pair = env.pair;
    expect(federatedAnnotations()).toEqual({ "multicluster.linkerd.io/remote-discovery": "service-one@other" });
  });

  // Linkerd's local service mirror is the same watcher on the local cluster, its Link with an
  // empty targetClusterName; mc's is `mc serve --local` (localMirrorLink), run here to rest.
  async function runLocal(local: KubeObject[]): Promise<void> {
    pair = await startPair({ namespaces: [] });
    await ensureNamespaces(pair.westClient, ["ns1"]);
    for (const obj of local) await pair.westClient.create(resources.service, obj);
    const spec = {
      federatedServiceSelector: parseLabelSelector("mirror.linkerd.io/federated=member"),
      excludedLabels: [],
      excludedAnnotations: [],
    };
    const ctl = new MirrorController({
      link: localMirrorLink(spec, "linkerd-multicluster"),
      namespace: "linkerd-multicluster",
      local: pair.westClient,
      remote: pair.westClient,
      manual: true,
      log: quiet,
    });
    pair.controllers.push(ctl);
    ctl.start();
    await within(ctl.synced, "the local mirror to sync");
    await ctl.drain();
  }
  const localService = remoteService("service-one", "ns1", member, p555);

  test("local federated service created", async () => {
    await runLocal([localService]);
    expect(federatedAnnotations()).toEqual({ "multicluster.linkerd.io/local-discovery": "service-one" });
  });
  test("local federated service joined", async () => {
    await runLocal([localService, federated({ "multicluster.linkerd.io/remote-discovery": "service-one@other" })]);
    expect(federatedAnnotations()).toEqual({
      "multicluster.linkerd.io/remote-discovery": "service-one@other",
      "multicluster.linkerd.io/local-discovery": "service-one",
    });
  });
  test("local federated service left", async () => {
    await runLocal([
      federated({
        "multicluster.linkerd.io/remote-discovery": "service-one@other",
        "multicluster.linkerd.io/local-discovery": "service-one",
      }),
    ]);
    expect(federatedAnnotations()).toEqual({ "multicluster.linkerd.io/remote-discovery": "service-one@other" });
  });
});

describe("TestLocalNamespaceCreatedAfterServiceExport", () => {
  test("TestLocalNamespaceCreatedAfterServiceExport", async () => {
    const env = await runEnvironment({
      remote: [remoteService("service-one", "ns1", EXPORTED, p555), remoteEndpointsOf("service-one", "ns1", "192.0.2.127")],
    });
    pair = env.pair;
    expect(read(pair.west, "services", "ns1", "service-one-remote")).toBeUndefined();
    const events = pair.east.store.list({ group: "", plural: "events" }, { namespace: "ns1" }) as Array<
      KubeObject & { type?: string; reason?: string; message?: string; involvedObject?: { name?: string } }
    >;
    expect(events.map((e) => `${e.type} ${e.reason} ${e.message} (${e.involvedObject?.name})`)).toEqual([
      "Normal ServiceMirroringSkipped Skipped mirroring service: namespace does not exist (service-one)",
    ]);
    const ns = await pair.westClient.create<KubeObject>(resources.namespace, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "ns1" },
    });
    await cached(env.ctl.informers.namespaces, ns);
    await env.ctl.drain();
    expect(read(pair.west, "services", "ns1", "service-one-remote")).toBeDefined();
  });
});

type Subsets = Array<{ addresses?: unknown[]; notReadyAddresses?: unknown[] }>;
const readiness = (pair: Pair) => {
  const subsets = ((read(pair.west, "endpoints", "ns", "svc-remote") as { subsets?: Subsets } | undefined)?.subsets ?? []) as Subsets;
  expect(subsets.length).toBeGreaterThan(0);
  return subsets.map((s) => ({ ready: s.addresses?.length ?? 0, notReady: s.notReadyAddresses?.length ?? 0 }));
};
const gatewayEnv = {
  localNamespaces: ["ns"],
  remote: [remoteService("svc", "ns", EXPORTED, ports(["port", 111])), remoteEndpointsOf("svc", "ns", "192.0.0.1")],
  link: { gatewayAddress: "192.0.0.1" },
};

describe("TestServiceCreatedGatewayAlive", () => {
  test("TestServiceCreatedGatewayAlive", async () => {
    const env = await runEnvironment(gatewayEnv);
    pair = env.pair;
    expect(readiness(pair)).toEqual([{ ready: 1, notReady: 0 }]);
    env.ctl.setAlive(false);
    await env.ctl.drain();
    expect(readiness(pair)).toEqual([{ ready: 0, notReady: 1 }]);
    const updated = await pair.eastClient.patch<KubeObject>(resources.service, "ns", "svc", {
      metadata: { labels: { "new-label": "hi" } },
    });
    await cached(env.ctl.informers.remoteServices, updated);
    await env.ctl.drain();
    expect(read(pair.west, "services", "ns", "svc-remote")?.metadata.labels?.["new-label"]).toBe("hi");
    expect(readiness(pair)).toEqual([{ ready: 0, notReady: 1 }]);
  });
});

describe("TestServiceCreatedGatewayDown", () => {
  test("TestServiceCreatedGatewayDown", async () => {
    const env = await runEnvironment({ ...gatewayEnv, beforeStart: (ctl) => ctl.setAlive(false) });
    pair = env.pair;
    expect(readiness(pair)).toEqual([{ ready: 0, notReady: 1 }]);
    env.ctl.setAlive(true);
    await env.ctl.drain();
    expect(readiness(pair)).toEqual([{ ready: 1, notReady: 0 }]);
  });
});
