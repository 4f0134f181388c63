// The objects an import is made of, as mc wants them: the ServiceImport, its derived Service
// (ClusterIP, or headless for a Headless import; no selector, owned by the import) and one
// EndpointSlice per exporting cluster, labelled as KEP-1645 says and managed by mc. Pure.
import {
  MCS_API_VERSION,
  ANNOTATION_EXPORT,
  LABEL_K8S_SERVICE_NAME,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  LABEL_SOURCE_CLUSTER,
  MANAGED_BY_MC,
  type McsPort,
  type ServiceImportObject,
} from "./api.ts";
import type { ExportView, MergedImport } from "./merge.ts";

/** On the ServiceImports mc keeps (it deletes only those). */
export const LABEL_MC_IMPORT = "mc.multicluster.linkerd.io/import";

const MAX_NAME = 63;

/** A short stable hash (FNV-1a, 32 bits, hex) for names that would be too long. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/** `prefix + rest`, cut with a hash when longer than a DNS label. */
function label(text: string): string {
  if (text.length <= MAX_NAME) return text;
  return `${text.slice(0, MAX_NAME - 9).replace(/-+$/, "")}-${hash(text)}`;
}

/** The derived Service of import `name`: `derived-<name>`. */
export const derivedServiceName = (name: string): string => label(`derived-${name}`);

/** The EndpointSlice of `cluster`'s endpoints for import `name`. */
export const sliceName = (name: string, cluster: string): string => label(`${derivedServiceName(name)}-${cluster}`);

export interface EndpointSliceObject {
  apiVersion: "discovery.k8s.io/v1";
  kind: "EndpointSlice";
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
    resourceVersion?: string;
  };
  addressType: "IPv4" | "IPv6";
  endpoints: Array<{ addresses: string[]; hostname?: string; conditions: { ready: boolean; serving: boolean; terminating: boolean } }>;
  ports: Array<{ name?: string; protocol: string; port: number; appProtocol?: string }>;
}

export interface SliceEndpoints {
  /** Ready addresses and not-ready ones. */
  ready: string[];
  notReady: string[];
  /** The port each of the view's ports is reached on there (the gateway's, or the endpoints' own). */
  portOf(p: McsPort): number;
  /** A pod's hostname by its address (a headless Service's endpoints), for per-pod DNS names. */
  hostnames?: ReadonlyMap<string, string>;
}

/** `cluster`'s EndpointSlice for its view of import `namespace/name`. */
export function desiredSlice(namespace: string, name: string, view: ExportView, eps: SliceEndpoints): EndpointSliceObject {
  const all = [...eps.ready.map((a) => ({ a, ready: true })), ...eps.notReady.map((a) => ({ a, ready: false }))];
  const v6 = all.length > 0 && all.every(({ a }) => a.includes(":"));
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name: sliceName(name, view.cluster),
      namespace,
      labels: {
        [LABEL_SERVICE_NAME]: name,
        [LABEL_SOURCE_CLUSTER]: view.cluster,
        [LABEL_K8S_SERVICE_NAME]: derivedServiceName(name),
        [LABEL_MANAGED_BY]: MANAGED_BY_MC,
      },
      annotations: { [ANNOTATION_EXPORT]: JSON.stringify(view) },
    },
    addressType: v6 ? "IPv6" : "IPv4",
    endpoints: all
      .filter(({ a }) => a.includes(":") === v6)
      .map(({ a, ready }) => {
        const hostname = eps.hostnames?.get(a);
        return { addresses: [a], ...(hostname ? { hostname } : {}), conditions: { ready, serving: ready, terminating: false } };
      }),
    ports: view.ports.map((p) => ({
      ...(p.name ? { name: p.name } : {}),
      protocol: p.protocol,
      port: eps.portOf(p),
      ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}),
    })),
  };
}

/** The view a slice mc wrote carries; undefined for a slice that is not one (or is damaged). */
export function viewOfSlice(slice: { metadata: { annotations?: Record<string, string> } }): ExportView | undefined {
  const text = slice.metadata.annotations?.[ANNOTATION_EXPORT];
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as ExportView;
    return typeof v.cluster === "string" && typeof v.created === "string" && Array.isArray(v.ports) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The ServiceImport for a merged view; `ips`/`ipFamilies` from the derived Service once it has them. */
export function desiredImport(
  namespace: string,
  name: string,
  m: MergedImport,
  derived: { clusterIPs?: string[]; ipFamilies?: string[] } | undefined,
): ServiceImportObject {
  const ips = m.spec.type === "ClusterSetIP" ? (derived?.clusterIPs ?? []).filter((ip) => ip !== "None") : [];
  return {
    apiVersion: MCS_API_VERSION,
    kind: "ServiceImport",
    metadata: { name, namespace, labels: { ...m.labels, [LABEL_MC_IMPORT]: "true" }, annotations: { ...m.annotations } },
    spec: { ...m.spec, ...(ips.length > 0 ? { ips, ipFamilies: (derived?.ipFamilies ?? []).slice(0, ips.length) } : {}) },
  };
}

export interface DerivedServiceObject {
  apiVersion: "v1";
  kind: "Service";
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    ownerReferences: Array<{ apiVersion: string; kind: string; name: string; uid: string; blockOwnerDeletion?: boolean }>;
    resourceVersion?: string;
  };
  spec: {
    type: "ClusterIP";
    clusterIP?: "None";
    ports: Array<{ name?: string; protocol: string; port: number; appProtocol?: string }>;
    sessionAffinity?: string;
    sessionAffinityConfig?: unknown;
    internalTrafficPolicy?: string;
    trafficDistribution?: string;
  };
}

/** The derived Service of an import (uid: the import's, for the owner reference). */
export function desiredDerived(namespace: string, name: string, m: MergedImport, importUid: string): DerivedServiceObject {
  const headless = m.spec.type === "Headless";
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: derivedServiceName(name),
      namespace,
      labels: { [LABEL_SERVICE_NAME]: name },
      ownerReferences: [{ apiVersion: MCS_API_VERSION, kind: "ServiceImport", name, uid: importUid }],
    },
    spec: {
      type: "ClusterIP",
      ...(headless ? { clusterIP: "None" as const } : {}),
      ports: m.spec.ports.map((p) => ({
        ...(p.name ? { name: p.name } : {}),
        protocol: p.protocol,
        port: p.port,
        ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}),
      })),
      ...(!headless && m.spec.sessionAffinity ? { sessionAffinity: m.spec.sessionAffinity } : {}),
      ...(!headless && m.spec.sessionAffinityConfig ? { sessionAffinityConfig: m.spec.sessionAffinityConfig } : {}),
      ...(m.spec.internalTrafficPolicy ? { internalTrafficPolicy: m.spec.internalTrafficPolicy } : {}),
      ...(m.spec.trafficDistribution ? { trafficDistribution: m.spec.trafficDistribution } : {}),
    },
  };
}
