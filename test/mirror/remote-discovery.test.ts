// Remote discovery (flat pod networks, docs/linkerd-compatibility.md#export-modes): a Service selected by the Link's
// remoteDiscoverySelector is mirrored as `<svc>-<cluster>` with Linkerd's remote-discovery labels and no Endpoints; switching a Service
// between the two export modes converts its mirror in place.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Informer, resources, type KubeObject } from "../../src/kube/index.ts";
import { desiredMirror, type DesiredOptions } from "../../src/mirror/reconcile/desired.ts";
import { planMirror } from "../../src/mirror/reconcile/plan.ts";
import { exportMode } from "../../src/mirror/reconcile/remote-discovery.ts";
import type { ResolvedGateway } from "../../src/mirror/types.ts";
import { coveringSelector, formatLabelSelector, parseLabelSelector } from "../../src/model/selector.ts";
import { EXPORT, link, REMOTE_DISCOVERY, remoteEndpoints, remoteService, type LinkFixture } from "./fixtures.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { cached, quiet, read, startController, writes } from "./harness.ts";

// Pure decisions first (Linkerd's TestRemoteServiceCreatedMirroring and TestEmptyRemoteSelectors
// cases), then the controller against two sandboxes.

const gateway: ResolvedGateway = { addresses: ["192.0.2.127"], port: 888, identity: "gateway-identity" };
const opts: DesiredOptions = { enableHeadlessServices: true, enableNamespaceCreation: false, namespaceExists: true };
const key = { namespace: "ns1", name: "service-one" };
const RD_LINK: LinkFixture = { cluster: "remote", remoteDiscoverySelector: { matchLabels: REMOTE_DISCOVERY } };

describe("exportMode: which selector exports a Service (Linkerd: TestEmptyRemoteSelectors)", () => {
  const both = link({ remoteDiscoverySelector: { matchLabels: REMOTE_DISCOVERY } });
  test.each<[string, ReturnType<typeof link>, Record<string, string>, boolean, string | null]>([
    ["exported=true through the gateway", both, EXPORT, true, "gateway"],
    ["exported=remote-discovery for remote discovery", both, REMOTE_DISCOVERY, true, "remote-discovery"],
    ["remote discovery needs no gateway", both, REMOTE_DISCOVERY, false, "remote-discovery"],
    ["gateway mode does", both, EXPORT, false, null],
    [
      "empty remote discovery selector: only the exported=true Service",
      link({ remoteDiscoverySelector: {} }),
      REMOTE_DISCOVERY,
      true,
      null,
    ],
    [
      "empty default selector: only the remote-discovery Service",
      link({ selector: {}, remoteDiscoverySelector: { matchLabels: REMOTE_DISCOVERY } }),
      EXPORT,
      true,
      null,
    ],
    ["no selector in the Link: nothing", link({ selector: null }), EXPORT, true, null],
    [
      "both selectors match: remote discovery wins, as Linkerd's isRemoteDiscovery",
      link({ remoteDiscoverySelector: { matchLabels: { lk: "lv" } } }),
      { ...EXPORT, lk: "lv" },
      true,
      "remote-discovery",
    ],
  ])("%s", (_, l, labels, hasGateway, mode) => {
    expect(exportMode(l, remoteService({ labels }), hasGateway)).toBe(mode as never);
  });
});

describe("coveringSelector: one watch for both export modes", () => {
  const sel = (s: string) => parseLabelSelector(s);
  test.each<[string[], string | undefined]>([
    [
      ["mirror.linkerd.io/exported=true", "mirror.linkerd.io/exported=remote-discovery"],
      "mirror.linkerd.io/exported in (remote-discovery,true)",
    ],
    [["mirror.linkerd.io/exported=true"], "mirror.linkerd.io/exported=true"],
    [["a=b,tier in (web)", "a in (c,d)"], "a in (b,c,d)"],
    [["a=b", "a"], "a"],
    [["a=b", "c=d"], undefined],
    [["a!=b", "a=c"], undefined],
    [[], undefined],
  ])("%p → %p", (selectors, cover) => {
    const c = coveringSelector(selectors.map(sel));
    expect(c === undefined ? undefined : formatLabelSelector(c)).toBe(cover);
  });
});

describe("desiredMirror in remote-discovery mode", () => {
  test("the mirror carries the remote-discovery labels and has no Endpoints (Linkerd: remote discovery mirroring)", () => {
    const svc = remoteService({ labels: { ...REMOTE_DISCOVERY, lk: "lv" }, resourceVersion: "7" });
    const d = desiredMirror({
      link: link(RD_LINK),
      remote: { service: svc, endpoints: remoteEndpoints() },
      gateway,
      alive: true,
      ...opts,
      key,
    });
    expect(d.service?.metadata).toEqual({
      name: "service-one-remote",
      namespace: "ns1",
      labels: {
        lk: "lv",
        "mirror.linkerd.io/mirrored-service": "true",
        "mirror.linkerd.io/cluster-name": "remote",
        "multicluster.linkerd.io/remote-discovery": "remote",
        "multicluster.linkerd.io/remote-service": "service-one",
      },
      annotations: {
        "mirror.linkerd.io/remote-svc-fq-name": "service-one.ns1.svc.cluster.local",
        "mirror.linkerd.io/remote-resource-version": "7",
      },
    });
    expect(d.endpoints).toBeNull();
    expect(d.headless).toBeNull();
  });

  test("a link with no gateway mirrors only remote discovery (Linkerd: link with no gateway mirrors only remote discovery)", () => {
    const l = link({ ...RD_LINK, selector: null, gatewayAddress: "", probe: null });
    const rd = desiredMirror({
      link: l,
      remote: { service: remoteService({ labels: REMOTE_DISCOVERY }), endpoints: undefined },
      gateway: null,
      alive: true,
      ...opts,
      key,
    });
    expect(rd.service?.metadata.name).toBe("service-one-remote");
    const gw = desiredMirror({
      link: l,
      remote: { service: remoteService(), endpoints: remoteEndpoints() },
      gateway: null,
      alive: true,
      ...opts,
      key,
    });
    expect(gw.service).toBeNull();
  });

  test("a headless target in remote-discovery mode is a plain mirror without Endpoints (destination resolves the pods)", () => {
    const svc = remoteService({ labels: REMOTE_DISCOVERY, headless: true });
    const d = desiredMirror({
      link: link(RD_LINK),
      remote: { service: svc, endpoints: remoteEndpoints({ headless: true }) },
      gateway,
      alive: true,
      ...opts,
      key,
    });
    expect(d.service?.spec).toEqual({ ports: expect.any(Array) });
    expect(d.headless).toBeNull();
    expect(d.endpoints).toBeNull();
  });

  test("converting a mirror plans an update in place: Endpoints go after the labels change, come before they change back", () => {
    const l = link(RD_LINK);
    const input = (labels: Record<string, string>) => ({
      link: l,
      remote: { service: remoteService({ labels }), endpoints: remoteEndpoints() },
      gateway,
      alive: true,
      ...opts,
      key,
    });
    const gw = desiredMirror(input(EXPORT));
    const rd = desiredMirror(input(REMOTE_DISCOVERY));
    const existing = { ...gw.service!, metadata: { ...gw.service!.metadata, resourceVersion: "1", uid: "u" } };
    const toRd = planMirror(
      rd,
      { service: existing, endpoints: { ...gw.endpoints!, metadata: { ...gw.endpoints!.metadata, uid: "e" } } },
      "remote",
    );
    expect(toRd.ops.map((op) => `${op.verb} ${op.kind}`)).toEqual(["update Service", "delete Endpoints"]);
    const rdExisting = { ...rd.service!, metadata: { ...rd.service!.metadata, resourceVersion: "2", uid: "u" } };
    const toGw = planMirror(gw, { service: rdExisting }, "remote");
    expect(toGw.ops.map((op) => `${op.verb} ${op.kind}`)).toEqual(["create Endpoints", "update Service"]);
  });
});

describe("the controller in remote-discovery mode", () => {
  let pair: Pair;
  beforeEach(async () => {
    pair = await startPair();
  });
  afterEach(() => pair.stop());

  const mirror = () => read(pair.west, "services", "ns1", "service-one-east");
  const mirrorEps = () => read(pair.west, "endpoints", "ns1", "service-one-east");

  async function relabel(labels: Record<string, string>): Promise<KubeObject> {
    const current = await pair.eastClient.get<KubeObject>(resources.service, "ns1", "service-one");
    return pair.eastClient.update(resources.service, { ...current, metadata: { ...current.metadata, labels } });
  }

  test("a remote-discovery Service is mirrored with one write and no Endpoints; unexporting deletes the mirror", async () => {
    const ctl = await startController(pair, { remoteDiscoverySelector: { matchLabels: REMOTE_DISCOVERY }, probe: null });
    const before = writes(pair.west);
    const svc = await pair.eastClient.create(resources.service, remoteService({ labels: REMOTE_DISCOVERY }));
    await cached(ctl.informers.remoteServices, svc);
    await ctl.drain();
    expect(writes(pair.west) - before).toBe(1);
    expect(mirror()?.metadata.labels).toMatchObject({
      "multicluster.linkerd.io/remote-discovery": "east",
      "multicluster.linkerd.io/remote-service": "service-one",
    });
    expect(mirrorEps()).toBeUndefined();
    expect(ctl.outcome("ns1/service-one")).toBe("mirrored");
    const gone = await relabel({});
    await cached(ctl.informers.remoteServices, gone, true);
    await ctl.drain();
    expect(mirror()).toBeUndefined();
  });

  test("a gateway-less Link (mc link --gateway=false) mirrors remote-discovery Services and ignores exported=true ones", async () => {
    const ctl = await startController(pair, {
      remoteDiscoverySelector: { matchLabels: REMOTE_DISCOVERY },
      selector: null,
      gatewayAddress: "",
      probe: null,
    });
    const rd = await pair.eastClient.create(resources.service, remoteService({ labels: REMOTE_DISCOVERY }));
    await pair.eastClient.create(resources.service, remoteService({ name: "service-two" }));
    await cached(ctl.informers.remoteServices, rd);
    await ctl.drain();
    expect(mirror()).toBeDefined();
    expect(read(pair.west, "services", "ns1", "service-two-east")).toBeUndefined();
    expect(ctl.informers.remoteEndpoints).toBeUndefined();
    expect(read(pair.west, "endpoints", "linkerd-multicluster", "probe-gateway-east")).toBeUndefined();
  });

  test("switching between gateway and remote-discovery export converts the mirror in place: same uid, never deleted, never a gateway mirror without Endpoints", async () => {
    await pair.eastClient.create(resources.service, remoteService());
    await pair.eastClient.create(resources.endpoints, remoteEndpoints());
    const ctl = await startController(pair, { remoteDiscoverySelector: { matchLabels: REMOTE_DISCOVERY }, probe: null });
    const uid = mirror()!.metadata.uid;
    expect(mirrorEps()).toBeDefined();
    // Watch west as a client would: every state of the mirror in order.
    const watch = new Informer<KubeObject>({ client: pair.westClient, resource: resources.service, namespace: "ns1", log: quiet });
    const epWatch = new Informer<KubeObject>({ client: pair.westClient, resource: resources.endpoints, namespace: "ns1", log: quiet });
    const seen: string[] = [];
    const state = () => {
      const svc = watch.cache.get("ns1", "service-one-east");
      const ep = epWatch.cache.get("ns1", "service-one-east");
      return !svc
        ? "none"
        : `${svc.metadata.labels?.["multicluster.linkerd.io/remote-discovery"] ? "rd" : "gateway"}${ep ? "+endpoints" : ""}`;
    };
    for (const w of [watch, epWatch])
      w.on((e) => {
        if (e.key === "ns1/service-one-east") seen.push(state());
      });
    watch.start();
    epWatch.start();
    await Promise.all([watch.synced, epWatch.synced]);
    seen.length = 0; // the initial lists
    try {
      const toRd = await relabel(REMOTE_DISCOVERY);
      await cached(ctl.informers.remoteServices, toRd);
      await ctl.drain();
      expect(mirrorEps()).toBeUndefined();
      expect(mirror()!.metadata.labels?.["multicluster.linkerd.io/remote-discovery"]).toBe("east");
      // The endpoints controller copies the Service's labels to its Endpoints: back to exported=true.
      const toGw = await relabel(EXPORT);
      const eps = await pair.eastClient.get<KubeObject>(resources.endpoints, "ns1", "service-one");
      await pair.eastClient.update(resources.endpoints, { ...eps, metadata: { ...eps.metadata, labels: EXPORT } });
      await cached(ctl.informers.remoteServices, toGw);
      await ctl.drain();
      const back = mirror()!;
      expect(back.metadata.uid).toBe(uid);
      expect(back.metadata.labels?.["multicluster.linkerd.io/remote-discovery"]).toBeUndefined();
      expect(mirrorEps()).toBeDefined();
      await cached(watch, back);
      await cached(epWatch, mirrorEps()!);
      expect(seen).not.toContain("none");
      expect(seen).not.toContain("gateway");
      expect(seen.at(-1)).toBe("gateway+endpoints");
      expect(seen).toContain("rd");
    } finally {
      await Promise.all([watch.stop(), epWatch.stop()]);
    }
  });
});
