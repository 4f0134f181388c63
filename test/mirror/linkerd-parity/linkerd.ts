// Linkerd's service-mirror test scenarios, ported: its constants, the objects its tests expect, its comparison and an environment runner.
import { expect } from "bun:test";
import { resources, type KubeObject } from "../../../src/kube/index.ts";
import type { MirrorController, MirrorControllerOptions } from "../../../src/mirror/controller.ts";
import type { EndpointPort, EndpointsObject, ServicePort } from "../../../src/mirror/types.ts";
import { DEFAULT_NAMESPACE } from "../../../src/model/names.ts";
import type { LinkFixture } from "../fixtures.ts";
import { ensureNamespaces, startPair, type Pair } from "../../helpers/clusters.ts";
import { read, readLink, startController } from "../harness.ts";

// Linkerd's service-mirror test scenarios, ported (multicluster/service-mirror/cluster_watcher_*
// _test.go and cluster_watcher_test_util.go in linkerd/linkerd2): its constants, the objects its
// tests expect (mirrorService, endpoints, headlessMirrorService, endpointMirrorService, ...,
// rebuilt here from their description, not copied), its comparison (diffServices: name,
// namespace, annotations, labels; diffEndpoints: the same and subsets), and an environment
// runner: Linkerd seeds a remote and a local fake API and processes events; mc seeds two
// sandboxes and runs its (level-triggered) controller to rest. Values the sandbox assigns are
// mapped: a remote resourceVersion is the target object's, an endpoint mirror's cluster IP (""
// in Linkerd's fake API, which allocates none) is the sandbox's.

export const CLUSTER = "remote";
export const GATEWAY_IP = "192.0.2.127";
export const GATEWAY_PORT = 888;
export const IDENTITY = "gateway-identity";
export const EXPORTED = { "mirror.linkerd.io/exported": "true" };

const MIRRORED = "mirror.linkerd.io/mirrored-service";
const CLUSTER_NAME = "mirror.linkerd.io/cluster-name";
const HEADLESS_OF = "mirror.linkerd.io/headless-mirror-svc-name";
const RV = "mirror.linkerd.io/remote-resource-version";
const FQ = "mirror.linkerd.io/remote-svc-fq-name";
const GATEWAY_IDENTITY = "mirror.linkerd.io/remote-gateway-identity";
const LINK_UID = "mirror.linkerd.io/link-uid";

/** The Link of most of Linkerd's environments: cluster `remote`, gateway 192.0.2.127:888, identity gateway-identity, default selectors. */
export const LINK: LinkFixture = {
  cluster: CLUSTER,
  gatewayAddress: GATEWAY_IP,
  gatewayPort: String(GATEWAY_PORT),
  gatewayIdentity: IDENTITY,
  probe: { path: "/probe", port: "12345", period: "60s" },
};

export const ports = (...list: Array<[string, number]>): ServicePort[] => list.map(([name, port]) => ({ name, protocol: "TCP", port }));
export const endpointPorts = (...list: Array<[string, number]>): EndpointPort[] =>
  list.map(([name, port]) => ({ name, port, protocol: "TCP" }));
const unmirrored = (name: string) => name.replace(`-${CLUSTER}`, "");

export interface Expected {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
export interface ExpectedEndpoints extends Expected {
  subsets: EndpointsObject["subsets"];
}

/** mirrorService(name, namespace, resourceVersion, labels): the copied labels plus mc's two, the RV and fq-name annotations. */
export function mirrorService(name: string, namespace: string, resourceVersion: string, labels: Record<string, string> = {}): Expected {
  return {
    name,
    namespace,
    labels: { ...labels, [CLUSTER_NAME]: CLUSTER, [MIRRORED]: "true" },
    annotations: { [RV]: resourceVersion, [FQ]: `${unmirrored(name)}.${namespace}.svc.cluster.local` },
  };
}

export const headlessMirrorService = mirrorService;

/** endpointMirrorService(hostname, rootName, ...): `<hostname>-remote`, labelled with its headless mirror. */
export function endpointMirrorService(
  hostname: string,
  rootName: string,
  namespace: string,
  resourceVersion: string,
  labels: Record<string, string> = {},
): Expected {
  return {
    name: `${hostname}-${CLUSTER}`,
    namespace,
    labels: { ...labels, [HEADLESS_OF]: rootName, [CLUSTER_NAME]: CLUSTER, [MIRRORED]: "true" },
    annotations: { [RV]: resourceVersion, [FQ]: `${hostname}.${unmirrored(rootName)}.${namespace}.svc.cluster.local` },
  };
}

/** endpoints(name, namespace, labels, gatewayIP, identity, ports): one ready gateway address, or no subsets without one. */
export function endpoints(
  name: string,
  namespace: string,
  labels: Record<string, string> = {},
  gatewayIP = "",
  identity = "",
  epPorts: EndpointPort[] = [],
): ExpectedEndpoints {
  return {
    name,
    namespace,
    labels: { ...labels, [CLUSTER_NAME]: CLUSTER, [MIRRORED]: "true" },
    annotations: { [FQ]: `${unmirrored(name)}.${namespace}.svc.cluster.local`, ...(identity && { [GATEWAY_IDENTITY]: identity }) },
    subsets: gatewayIP ? [{ addresses: [{ ip: gatewayIP }], ports: epPorts }] : [],
  };
}

/** endpointMirrorEndpoints(rootName, namespace, labels, hostname, gatewayIP, identity, ports). */
export function endpointMirrorEndpoints(
  rootName: string,
  namespace: string,
  labels: Record<string, string> = {},
  hostname: string,
  gatewayIP: string,
  identity: string,
  epPorts: EndpointPort[],
): ExpectedEndpoints {
  const ep = endpoints(`${hostname}-${CLUSTER}`, namespace, labels, gatewayIP, identity, epPorts);
  return {
    ...ep,
    labels: { ...ep.labels, [HEADLESS_OF]: rootName },
    annotations: { ...ep.annotations, [FQ]: `${hostname}.${unmirrored(rootName)}.${namespace}.svc.cluster.local` },
  };
}

/** headlessMirrorEndpoints / headlessMirrorEndpointsUpdated: one address per hostname, at its endpoint mirror's IP (mapped from Linkerd's ""). */
export function headlessMirrorEndpoints(
  name: string,
  namespace: string,
  labels: Record<string, string>,
  hostnames: string[],
  identity: string,
  epPorts: EndpointPort[],
  ipOf: (hostname: string) => string,
): ExpectedEndpoints {
  const ep = endpoints(name, namespace, labels, "", identity);
  return { ...ep, subsets: [{ addresses: hostnames.map((hostname) => ({ hostname, ip: ipOf(hostname) })), ports: epPorts }] };
}

/**
 * Labels as Linkerd compares them, after checking mc's one addition: a mirror mc wrote carries
 * the uid of the Link that made it (docs/decisions.md#d47; test/mirror/ownership.test.ts), here the
 * environment's one Link; a local fixture mc had no reason to write has none.
 */
function linkerdLabels(pair: Pair, labels: Record<string, string> | undefined): Record<string, string> {
  const { [LINK_UID]: uid, ...rest } = labels ?? {};
  if (uid !== undefined) expect(uid).toBe(readLink(pair.west, CLUSTER)!.metadata.uid!);
  return rest;
}

/** Linkerd's diffServices: name, namespace, annotations and labels must be equal. */
export function expectService(pair: Pair, want: Expected): KubeObject {
  const got = read(pair.west, "services", want.namespace, want.name);
  expect(got, `Could not find mirrored service with name ${want.name}`).toBeDefined();
  const m = got!.metadata;
  expect({ name: m.name, namespace: m.namespace, annotations: m.annotations ?? {}, labels: linkerdLabels(pair, m.labels) }).toEqual(want);
  return got!;
}

/** Linkerd's diffEndpoints: name, namespace, annotations, labels and subsets must be equal (an empty list and none alike). */
export function expectEndpoints(pair: Pair, want: ExpectedEndpoints): void {
  const got = read(pair.west, "endpoints", want.namespace, want.name) as (EndpointsObject & KubeObject) | undefined;
  expect(got, `Could not find endpoints with name ${want.name}`).toBeDefined();
  const m = got!.metadata;
  const sortHosts = (subsets: EndpointsObject["subsets"]) =>
    (subsets ?? []).map((s) => ({
      ...s,
      ...(s.addresses && { addresses: [...s.addresses].sort((a, b) => (a.hostname ?? a.ip).localeCompare(b.hostname ?? b.ip)) }),
    }));
  expect({
    name: m.name,
    namespace: m.namespace,
    annotations: m.annotations ?? {},
    labels: linkerdLabels(pair, m.labels),
    subsets: sortHosts(got!.subsets),
  }).toEqual({ ...want, subsets: sortHosts(want.subsets) });
}

/** The mirrors in the source (Linkerd's "Was expecting no local services" looks at these). */
export function mirrorNames(pair: Pair, namespace?: string): string[] {
  return pair.west.store
    .list({ group: "", plural: "services" }, namespace ? { namespace } : {})
    .filter((s) => s.metadata.labels?.[MIRRORED] === "true")
    .map((s) => `${s.metadata.namespace}/${s.metadata.name}`);
}

/** The cluster IP of an endpoint mirror (what Linkerd's fake API leaves ""). */
export function clusterIPOf(pair: Pair, namespace: string): (hostname: string) => string {
  return (hostname) =>
    (read(pair.west, "services", namespace, `${hostname}-${CLUSTER}`)?.spec as { clusterIP?: string } | undefined)?.clusterIP ?? "";
}

export interface Environment {
  /** Namespaces of the target (remote) and of the source (local); Linkerd's namespaceAsYaml. */
  remoteNamespaces?: string[];
  localNamespaces?: string[];
  remote?: KubeObject[];
  local?: KubeObject[];
  link?: LinkFixture;
  options?: Partial<MirrorControllerOptions>;
  beforeStart?: (ctl: MirrorController) => void;
}

/** Seeds both clusters, then runs the controller until its queue is empty (Linkerd: processes its events). */
export async function runEnvironment(env: Environment): Promise<{ pair: Pair; ctl: MirrorController; remote: Map<string, KubeObject> }> {
  const pair = await startPair({ namespaces: [] });
  await ensureNamespaces(pair.eastClient, env.remoteNamespaces ?? []);
  await ensureNamespaces(pair.westClient, env.localNamespaces ?? []);
  const remote = new Map<string, KubeObject>();
  for (const obj of env.remote ?? []) {
    await ensureNamespaces(pair.eastClient, [obj.metadata.namespace!]);
    const res = obj.kind === "Service" ? resources.service : obj.kind === "Endpoints" ? resources.endpoints : resources.endpointSlice;
    const made = await pair.eastClient.create<KubeObject>(res, obj);
    remote.set(`${obj.kind}/${obj.metadata.namespace}/${obj.metadata.name}`, made);
  }
  for (const obj of env.local ?? []) {
    await ensureNamespaces(pair.westClient, [obj.metadata.namespace!]);
    await pair.westClient.create(obj.kind === "Service" ? resources.service : resources.endpoints, obj);
  }
  const ctl = await startController(
    pair,
    { ...LINK, ...env.link },
    { ...env.options, settings: { enableHeadlessServices: true, ...env.options?.settings } },
    env.beforeStart,
  );
  return { pair, ctl, remote };
}

/** The target's resourceVersion of a seeded object. */
export function rvOf(remote: Map<string, KubeObject>, kind: "Service" | "Endpoints", namespace: string, name: string): string {
  const obj = remote.get(`${kind}/${namespace}/${name}`);
  if (!obj) throw new Error(`no seeded ${kind} ${namespace}/${name}`);
  return obj.metadata.resourceVersion!;
}

// ---- objects as Linkerd's fixtures write them into the clusters --------------------------------

export function remoteService(
  name: string,
  namespace: string,
  labels: Record<string, string> | undefined,
  svcPorts: ServicePort[],
  headless = false,
): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace, ...(labels && { labels }) },
    spec: { ports: svcPorts, ...(headless && { clusterIP: "None" }) },
  };
}

/** Remote Endpoints as Linkerd's `endpoints(...)` fixture writes them: labels mirrored-service and cluster-name only, never the export label. */
export function remoteEndpointsOf(name: string, namespace: string, ip: string, epPorts: EndpointPort[] = []): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: { name, namespace, labels: { [CLUSTER_NAME]: CLUSTER, [MIRRORED]: "true" } },
    subsets: [{ addresses: [{ ip }], ports: epPorts }],
  };
}

/** remoteHeadlessEndpoints(Update): hostnamed ready addresses, labelled headless and exported. */
export function remoteHeadlessEndpoints(
  name: string,
  namespace: string,
  ip: string,
  hostnames: string[],
  epPorts: EndpointPort[],
): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: { name, namespace, labels: { "service.kubernetes.io/headless": "", ...EXPORTED } },
    subsets: [{ addresses: hostnames.map((hostname) => ({ hostname, ip, targetRef: { name: hostname } })), ports: epPorts }],
  };
}

/** A local mirror as Linkerd's fixtures seed the source: mirror labels, RV and fq-name annotations. */
export function localMirror(e: Expected, svcPorts: ServicePort[] = [], headless = false): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: e.name, namespace: e.namespace, labels: e.labels, annotations: e.annotations },
    spec: { ports: svcPorts, ...(headless && { clusterIP: "None" }) },
  };
}

export function localEndpoints(e: ExpectedEndpoints): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: { name: e.name, namespace: e.namespace, labels: e.labels, annotations: e.annotations },
    subsets: e.subsets ?? [],
  };
}

export { DEFAULT_NAMESPACE };
