// The sandbox's EndpointSlice mirroring controller (kube-controller-manager's
// endpointslicemirroring): pure Endpoints → slices, then through client-node and the real kubectl.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as k8s from "@kubernetes/client-node";
import {
  mirroredSlices,
  parseIp,
  reconcileMirror,
  repackSubsets,
  shouldMirror,
  sliceObject,
  MIRROR_CONTROLLER,
} from "../../../src/sandbox/controllers/endpointslice-mirror.ts";
import { startSandbox, Store, type Sandbox } from "../../../src/sandbox/index.ts";
import type { StoreEvent } from "../../../src/sandbox/storage/watch-hub.ts";
import type { KubeObject } from "../../../src/sandbox/types.ts";
import { hasKubectl, kubectlFor, needsKubectl } from "../../helpers/kubectl.ts";

const eps = (subsets: unknown[], meta: Partial<KubeObject["metadata"]> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "Endpoints",
  metadata: { name: "web", namespace: "t", uid: "ep-uid", ...meta },
  subsets,
});
const svc = (spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "web", namespace: "t" },
  spec: { ports: [{ port: 80 }], ...spec },
});
const http = { name: "http", port: 80, protocol: "TCP" };

describe("Endpoints → mirrored slices (pure)", () => {
  test("ready addresses are ready, notReadyAddresses not; hostname, nodeName and targetRef carry over", () => {
    const ref = { kind: "Pod", namespace: "t", name: "web-0", uid: "pod-uid" };
    const slices = mirroredSlices(
      eps([
        {
          addresses: [{ ip: "10.0.0.2", hostname: "web-0", nodeName: "n1", targetRef: ref }],
          notReadyAddresses: [{ ip: "10.0.0.1" }],
          ports: [http],
        },
      ]),
    );
    expect(slices).toEqual([
      {
        addressType: "IPv4",
        ports: [{ name: "http", port: 80, protocol: "TCP" }],
        endpoints: [
          { addresses: ["10.0.0.2"], conditions: { ready: true }, hostname: "web-0", nodeName: "n1", targetRef: ref },
          { addresses: ["10.0.0.1"], conditions: { ready: false } },
        ],
      },
    ]);
  });

  test("one slice per subset; subsets with identical ports merge (kube's RepackSubsets)", () => {
    const admin = { name: "admin", port: 9990, protocol: "TCP" };
    const slices = mirroredSlices(
      eps([
        { addresses: [{ ip: "10.0.0.3" }], ports: [http] },
        { addresses: [{ ip: "10.0.0.1" }], ports: [http] },
        { addresses: [{ ip: "10.0.0.9" }], ports: [admin] },
      ]),
    );
    expect(slices.map((s) => [s.ports.map((p) => p.name), s.endpoints.map((e) => e.addresses[0])])).toEqual([
      [["http"], ["10.0.0.1", "10.0.0.3"]],
      [["admin"], ["10.0.0.9"]],
    ]);
  });

  test("an address offering the ports of two subsets ends up in one slice with both ports; a ready listing wins", () => {
    const tls = { name: "tls", port: 443, protocol: "TCP" };
    const repacked = repackSubsets([
      { addresses: [{ ip: "10.0.0.1" }], ports: [http] },
      { notReadyAddresses: [{ ip: "10.0.0.1" }], addresses: [], ports: [tls] },
    ]);
    expect(repacked).toEqual([
      { addresses: [{ ip: "10.0.0.1" }], ports: [http] },
      { notReadyAddresses: [{ ip: "10.0.0.1" }], ports: [tls] },
    ]);
    const merged = repackSubsets([
      { addresses: [{ ip: "10.0.0.1" }], ports: [http] },
      { addresses: [{ ip: "10.0.0.1" }], notReadyAddresses: [{ ip: "10.0.0.1" }], ports: [tls] },
    ]);
    expect(merged).toEqual([{ addresses: [{ ip: "10.0.0.1" }], ports: [http, tls] }]);
  });

  test('ports keep name, protocol, port and appProtocol; an unnamed port is named "" and defaults to TCP', () => {
    const [s] = mirroredSlices(
      eps([
        {
          addresses: [{ ip: "10.0.0.1" }],
          ports: [
            { port: 53, protocol: "UDP", name: "dns" },
            { port: 8080, appProtocol: "http" },
          ],
        },
      ]),
    );
    expect(s!.ports).toEqual([
      { name: "dns", port: 53, protocol: "UDP" },
      { name: "", port: 8080, protocol: "TCP", appProtocol: "http" },
    ]);
  });

  test("IPv6 addresses go to an IPv6 slice, canonicalised; addresses that are no IP are skipped", () => {
    const slices = mirroredSlices(
      eps([{ addresses: [{ ip: "10.0.0.1" }, { ip: "FD00:0:0:0::1" }, { ip: "gateway.example.com" }], ports: [http] }]),
    );
    expect(slices.map((s) => [s.addressType, s.endpoints.map((e) => e.addresses[0])])).toEqual([
      ["IPv4", ["10.0.0.1"]],
      ["IPv6", ["fd00::1"]],
    ]);
    expect(parseIp("010.000.000.001")).toEqual({ ip: "10.0.0.1", type: "IPv4" });
    expect(parseIp("::ffff:10.0.0.1")).toEqual({ ip: "10.0.0.1", type: "IPv4" });
    expect(parseIp("10.0.0.256")).toBeUndefined();
  });

  test("Endpoints with no addresses give no slices", () => {
    expect(mirroredSlices(eps([]))).toEqual([]);
    expect(mirroredSlices(eps([{ ports: [http] }]))).toEqual([]);
  });

  test("the slice carries the Endpoints' labels and annotations (less last-change-trigger-time), the service-name and managed-by labels and a controller owner reference", () => {
    const ep = eps([{ addresses: [{ ip: "10.0.0.1" }], ports: [http] }], {
      labels: { app: "web", "kubernetes.io/service-name": "other" },
      annotations: { note: "x", "endpoints.kubernetes.io/last-change-trigger-time": "2026-12-02T10:00:00Z" },
    });
    const obj = sliceObject(ep, mirroredSlices(ep)[0]!);
    expect(obj.metadata).toEqual({
      generateName: "web-",
      namespace: "t",
      labels: { app: "web", "kubernetes.io/service-name": "web", "endpointslice.kubernetes.io/managed-by": MIRROR_CONTROLLER },
      annotations: { note: "x" },
      ownerReferences: [{ apiVersion: "v1", kind: "Endpoints", name: "web", uid: "ep-uid", controller: true, blockOwnerDeletion: true }],
    });
    expect(obj.addressType).toBe("IPv4");
  });

  test("only Services without a selector are mirrored, and not Endpoints labelled skip-mirror", () => {
    const ep = eps([{ addresses: [{ ip: "10.0.0.1" }], ports: [http] }]);
    expect(shouldMirror(ep, svc())).toBe(true);
    expect(shouldMirror(ep, svc({ selector: {} }))).toBe(true);
    expect(shouldMirror(ep, svc({ selector: { app: "web" } }))).toBe(false);
    expect(shouldMirror(ep, undefined)).toBe(false);
    expect(shouldMirror(eps([], { labels: { "endpointslice.kubernetes.io/skip-mirror": "true" } }), svc())).toBe(false);
  });
});

describe("reconcileMirror on a store", () => {
  const store = new Store();
  const t = (group: string, plural: string, kind: string) => ({
    group,
    version: "v1",
    plural,
    kind,
    listKind: `${kind}List`,
    singular: kind.toLowerCase(),
    namespaced: true,
    verbs: [],
    subresources: { status: false },
  });
  const types = {
    services: t("", "services", "Service"),
    endpoints: t("", "endpoints", "Endpoints"),
    slices: t("discovery.k8s.io", "endpointslices", "EndpointSlice"),
  };
  const events: StoreEvent[] = [];
  store.watch({ key: "discovery.k8s.io/endpointslices", send: (e) => events.push(e) });

  test("creates, updates in place, replaces on a port change, leaves alone when nothing changed, deletes; never counts as a client write", () => {
    store.insert(types.services, svc());
    store.insert(types.endpoints, eps([{ addresses: [{ ip: "10.0.0.1" }], ports: [http] }]));
    reconcileMirror(store, types, "t", "web");
    expect(events.map((e) => e.type)).toEqual(["ADDED"]);
    const name = events[0]!.object.metadata.name!;
    expect(name).toMatch(/^web-[a-z0-9]{5}$/);

    reconcileMirror(store, types, "t", "web");
    expect(events).toHaveLength(1);

    store.replace(types.endpoints, eps([{ addresses: [{ ip: "10.0.0.1" }, { ip: "10.0.0.2" }], ports: [http] }]));
    reconcileMirror(store, types, "t", "web");
    expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED"]);
    expect(events[1]!.object.metadata.name).toBe(name);
    expect((events[1]!.object.endpoints as { addresses: string[] }[]).map((e) => e.addresses[0])).toEqual(["10.0.0.1", "10.0.0.2"]);

    store.replace(types.endpoints, eps([{ addresses: [{ ip: "10.0.0.1" }], ports: [{ ...http, port: 8080 }] }]));
    reconcileMirror(store, types, "t", "web");
    expect(events.slice(2).map((e) => e.type)).toEqual(["ADDED", "DELETED"]);
    expect(events[3]!.object.metadata.name).toBe(name);

    store.remove(types.endpoints, "t", "web");
    reconcileMirror(store, types, "t", "web");
    expect(events.slice(4).map((e) => e.type)).toEqual(["DELETED"]);
    expect(store.count(types.slices)).toBe(0);
    expect(store.writes).toEqual({ create: 0, update: 0, patch: 0, delete: 0 });
  });
});

describe("mirroring through client-node", () => {
  let sb: Sandbox;
  let core: k8s.CoreV1Api;
  let discovery: k8s.DiscoveryV1Api;
  // The mirroring controller's slices (a Service with a selector also gets the EndpointSlice controller's).
  const slicesOf = async (service: string) =>
    (
      await discovery.listNamespacedEndpointSlice({
        namespace: "t",
        labelSelector: `kubernetes.io/service-name=${service},endpointslice.kubernetes.io/managed-by=${MIRROR_CONTROLLER}`,
      })
    ).items;

  beforeAll(async () => {
    sb = await startSandbox({ name: "mirroring" });
    const kc = new k8s.KubeConfig();
    kc.loadFromString(sb.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
    discovery = kc.makeApiClient(k8s.DiscoveryV1Api);
    await core.createNamespace({ body: { metadata: { name: "t" } } });
  });
  afterAll(() => sb?.stop());

  test("a Service without a selector and its Endpoints get a mirrored slice; only the client's two creates count as writes", async () => {
    const before = { ...sb.store.writes };
    await core.createNamespacedService({
      namespace: "t",
      body: { metadata: { name: "web" }, spec: { ports: [{ name: "http", port: 80 }] } },
    });
    await core.createNamespacedEndpoints({
      namespace: "t",
      body: {
        metadata: { name: "web", labels: { team: "a" } },
        subsets: [{ addresses: [{ ip: "10.0.0.1" }], notReadyAddresses: [{ ip: "10.0.0.2" }], ports: [{ name: "http", port: 80 }] }],
      },
    });
    expect(sb.store.writes).toEqual({ ...before, create: before.create + 2 });
    const [slice, ...rest] = await slicesOf("web");
    expect(rest).toEqual([]);
    expect(slice!.metadata?.name).toMatch(/^web-/);
    expect(slice!.metadata?.labels).toEqual({
      team: "a",
      "kubernetes.io/service-name": "web",
      "endpointslice.kubernetes.io/managed-by": MIRROR_CONTROLLER,
    });
    expect(slice!.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Endpoints", name: "web", controller: true });
    expect(slice!.addressType).toBe("IPv4");
    expect(slice!.endpoints.map((e) => [e.addresses[0], e.conditions?.ready])).toEqual([
      ["10.0.0.1", true],
      ["10.0.0.2", false],
    ]);
    expect(slice!.ports).toEqual([{ name: "http", port: 80, protocol: "TCP" }]);
  });

  test("when the Endpoints change the slice follows, under the same name", async () => {
    const [old] = await slicesOf("web");
    const ep = await core.readNamespacedEndpoints({ namespace: "t", name: "web" });
    ep.subsets = [{ addresses: [{ ip: "10.0.0.3" }], ports: [{ name: "http", port: 80 }] }];
    await core.replaceNamespacedEndpoints({ namespace: "t", name: "web", body: ep });
    const [slice, ...rest] = await slicesOf("web");
    expect(rest).toEqual([]);
    expect(slice!.metadata?.name).toBe(old!.metadata!.name!);
    expect(slice!.endpoints.map((e) => e.addresses[0])).toEqual(["10.0.0.3"]);
  });

  test("a mirrored slice a client deletes comes back", async () => {
    const [old] = await slicesOf("web");
    await discovery.deleteNamespacedEndpointSlice({ namespace: "t", name: old!.metadata!.name! });
    const [slice] = await slicesOf("web");
    expect(slice!.metadata?.name).not.toBe(old!.metadata!.name!);
    expect(slice!.endpoints.map((e) => e.addresses[0])).toEqual(["10.0.0.3"]);
  });

  test("deleting the Endpoints deletes the slices", async () => {
    await core.deleteNamespacedEndpoints({ namespace: "t", name: "web" });
    expect(await slicesOf("web")).toEqual([]);
  });

  test("deleting the Service, or giving it a selector, deletes the slices", async () => {
    const body = { metadata: { name: "web" }, subsets: [{ addresses: [{ ip: "10.0.0.1" }], ports: [{ port: 80 }] }] };
    await core.createNamespacedEndpoints({ namespace: "t", body });
    expect(await slicesOf("web")).toHaveLength(1);
    const s = await core.readNamespacedService({ namespace: "t", name: "web" });
    await core.replaceNamespacedService({ namespace: "t", name: "web", body: { ...s, spec: { ...s.spec, selector: { app: "web" } } } });
    expect(await slicesOf("web")).toEqual([]);
    // With a selector the endpoints controller owns the Endpoints: no Pod matches, so they are emptied.
    expect((await core.readNamespacedEndpoints({ namespace: "t", name: "web" })).subsets).toBeUndefined();
    await core.replaceNamespacedService({
      namespace: "t",
      name: "web",
      body: { ...(await core.readNamespacedService({ namespace: "t", name: "web" })), spec: { ...s.spec, selector: undefined } },
    });
    expect(await slicesOf("web")).toEqual([]);
    // Without it they are the user's again: what the user writes is mirrored.
    await core.replaceNamespacedEndpoints({
      namespace: "t",
      name: "web",
      body: { ...(await core.readNamespacedEndpoints({ namespace: "t", name: "web" })), subsets: body.subsets },
    });
    expect(await slicesOf("web")).toHaveLength(1);
    await core.deleteNamespacedService({ namespace: "t", name: "web" });
    expect(await slicesOf("web")).toEqual([]);
  });

  test("a Service with a selector gets no mirrored slices; Endpoints labelled skip-mirror neither", async () => {
    await core.createNamespacedService({
      namespace: "t",
      body: { metadata: { name: "sel" }, spec: { selector: { app: "sel" }, ports: [{ port: 80 }] } },
    });
    // The endpoints controller owns sel's Endpoints; a client's write to them mirrors nothing either.
    const owned = await core.readNamespacedEndpoints({ namespace: "t", name: "sel" });
    await core.replaceNamespacedEndpoints({
      namespace: "t",
      name: "sel",
      body: { ...owned, subsets: [{ addresses: [{ ip: "10.0.0.1" }], ports: [{ port: 80 }] }] },
    });
    expect(await slicesOf("sel")).toEqual([]);
    await core.createNamespacedService({ namespace: "t", body: { metadata: { name: "skip" }, spec: { ports: [{ port: 80 }] } } });
    await core.createNamespacedEndpoints({
      namespace: "t",
      body: {
        metadata: { name: "skip", labels: { "endpointslice.kubernetes.io/skip-mirror": "true" } },
        subsets: [{ addresses: [{ ip: "10.0.0.1" }], ports: [{ port: 80 }] }],
      },
    });
    expect(await slicesOf("skip")).toEqual([]);
  });

  test("default/kubernetes points at the sandbox, as a cluster's API server Service", async () => {
    const s = await core.readNamespacedService({ namespace: "default", name: "kubernetes" });
    expect(s.metadata?.labels).toEqual({ component: "apiserver", provider: "kubernetes" });
    expect(s.spec?.clusterIP).toBe("10.96.0.1");
    expect(s.spec?.ports).toEqual([{ name: "https", port: 443, protocol: "TCP", targetPort: sb.port }]);
    const ep = await core.readNamespacedEndpoints({ namespace: "default", name: "kubernetes" });
    expect(ep.subsets).toEqual([{ addresses: [{ ip: "127.0.0.1" }], ports: [{ name: "https", port: sb.port, protocol: "TCP" }] }]);
    const slices = (
      await discovery.listNamespacedEndpointSlice({ namespace: "default", labelSelector: "kubernetes.io/service-name=kubernetes" })
    ).items;
    expect(slices.map((x) => x.metadata?.name)).toEqual(["kubernetes"]);
  });
});

describe.skipIf(!hasKubectl)(needsKubectl("mirroring seen by kubectl"), () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ name: "mirroring-kubectl" });
  });
  afterAll(() => sb?.stop());

  test("kubectl describe service prints the mirrored endpoints", async () => {
    const kubectl = kubectlFor(sb.kubeconfig);
    const manifest = `
apiVersion: v1
kind: Service
metadata: { name: remote, namespace: default }
spec:
  ports: [{ name: http, port: 80 }]
---
apiVersion: v1
kind: Endpoints
metadata: { name: remote, namespace: default }
subsets:
- addresses: [{ ip: 10.0.0.1 }]
  ports: [{ name: http, port: 80 }]
`;
    const applied = await kubectl(["apply", "-f", "-"], { stdin: manifest });
    expect(applied.stderr).toBe("");
    const r = await kubectl(["describe", "service", "remote"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^Endpoints:\s+10\.0\.0\.1:80$/m);
    const k = await kubectl(["describe", "service", "kubernetes"]);
    expect(k.stdout).toMatch(new RegExp(`^Endpoints:\\s+127\\.0\\.0\\.1:${sb.port}$`, "m"));
  });
});
