// What the MCS importer writes in the source: a cluster's EndpointSlice of an import (and a departed cluster's, deleted), the
// ServiceImport, its derived Service and status.clusters, each created or brought to what is wanted, and where a cluster's slice points.
import { isAlreadyExists, isConflict, isNotFound, resources, type KubeClient, type KubeObject, type Writer } from "../kube/index.ts";
import type { Logger } from "../log.ts";
import { LABEL_SERVICE_NAME, LABEL_SOURCE_CLUSTER, mcsResources, type McsPort, type ServiceImportObject } from "./api.ts";
import { desiredDerived, desiredImport, type DerivedServiceObject, type EndpointSliceObject, type SliceEndpoints } from "./desired.ts";
import type { MergedImport } from "./merge.ts";

type Obj = KubeObject;

/**
 * Where a cluster's slice points: the Link's gateway (ready while it is alive), or the exporting
 * cluster's own endpoints — the local importer's, and a gateway-less Link's (remote discovery: pods
 * reached directly, as Linkerd's remote-discovery mirrors are).
 */
export type SliceSource =
  | { kind: "gateway"; gateway(): { addresses: string[]; port: number } | null; alive(): boolean }
  | { kind: "endpoints" };

/** Where the slice of a cluster points: its gateway's addresses (ready while alive), or the Endpoints of the exported Service. */
export function sliceEndpoints(src: SliceSource, endpoints: Obj | undefined): SliceEndpoints {
  if (src.kind === "gateway") {
    const gw = src.gateway();
    const alive = src.alive();
    const addresses = gw?.addresses ?? [];
    return { ready: alive ? addresses : [], notReady: alive ? [] : addresses, portOf: () => gw?.port ?? 0 };
  }
  // The exporting cluster's own endpoints, from its Service's Endpoints.
  const ep = endpoints as
    | {
        subsets?: Array<{
          addresses?: Array<{ ip: string; hostname?: string }>;
          notReadyAddresses?: Array<{ ip: string; hostname?: string }>;
          ports?: Array<{ name?: string; port: number; protocol?: string }>;
        }>;
      }
    | undefined;
  const subsets = ep?.subsets ?? [];
  const ports = subsets.flatMap((s) => s.ports ?? []);
  return {
    ready: [...new Set(subsets.flatMap((s) => (s.addresses ?? []).map((a) => a.ip)))],
    notReady: [...new Set(subsets.flatMap((s) => (s.notReadyAddresses ?? []).map((a) => a.ip)))],
    portOf: (p: McsPort) => ports.find((x) => (x.name ?? "") === (p.name ?? "") && (x.protocol ?? "TCP") === p.protocol)?.port ?? p.port,
    hostnames: new Map(
      subsets
        .flatMap((x) => [...(x.addresses ?? []), ...(x.notReadyAddresses ?? [])])
        .flatMap((a) => (a.hostname ? [[a.ip, a.hostname] as const] : [])),
    ),
  };
}

/** Creates or updates a cluster's slice of an import (an addressType change recreates it: immutable). */
export async function writeSlice(
  writer: Writer,
  want: EndpointSliceObject,
  current: (EndpointSliceObject & Obj) | undefined,
): Promise<void> {
  const namespace = want.metadata.namespace;
  if (!current) {
    try {
      await writer.create(resources.endpointSlice, want as unknown as Obj);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      await writer.update(resources.endpointSlice, want as unknown as Obj);
    }
    return;
  }
  const same =
    JSON.stringify(current.metadata.labels) === JSON.stringify(want.metadata.labels) &&
    current.metadata.annotations?.[Object.keys(want.metadata.annotations)[0]!] === Object.values(want.metadata.annotations)[0] &&
    current.addressType === want.addressType &&
    JSON.stringify(current.endpoints ?? []) === JSON.stringify(want.endpoints) &&
    JSON.stringify(current.ports ?? []) === JSON.stringify(want.ports);
  if (same) return;
  if (current.addressType !== want.addressType) {
    // addressType is immutable.
    await writer.delete(resources.endpointSlice, namespace, want.metadata.name);
    await writer.create(resources.endpointSlice, want as unknown as Obj);
    return;
  }
  await writer.update(resources.endpointSlice, {
    ...want,
    metadata: { ...want.metadata, resourceVersion: current.metadata.resourceVersion },
  } as unknown as Obj);
}

/** Creates or updates the import (spec, labels, annotations), re-read live on a conflict. */
async function writeImport(
  writer: Writer,
  local: KubeClient,
  namespace: string,
  name: string,
  want: ServiceImportObject,
  current: (ServiceImportObject & Obj) | ServiceImportObject | undefined,
): Promise<ServiceImportObject> {
  if (!current) {
    try {
      return (await writer.create(mcsResources.serviceImport, want as unknown as Obj)) as unknown as ServiceImportObject;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      current = await local.get<ServiceImportObject>(mcsResources.serviceImport, namespace, name);
    }
  }
  const sameAs = (c: ServiceImportObject) =>
    JSON.stringify(c.spec) === JSON.stringify(want.spec) &&
    JSON.stringify(c.metadata.labels ?? {}) === JSON.stringify(want.metadata.labels) &&
    JSON.stringify(c.metadata.annotations ?? {}) === JSON.stringify(want.metadata.annotations);
  for (let attempt = 0; ; attempt++) {
    if (sameAs(current)) return current;
    try {
      return (await writer.update(mcsResources.serviceImport, {
        ...want,
        metadata: { ...want.metadata, resourceVersion: current.metadata.resourceVersion },
        status: current.status,
      } as unknown as Obj)) as unknown as ServiceImportObject;
    } catch (err) {
      // Gone meanwhile (another writer saw no exports): written again from scratch.
      if (isNotFound(err) && attempt < 2) return writeImport(writer, local, namespace, name, want, undefined);
      if (!isConflict(err) || attempt >= 2) throw err;
      current = await local.get<ServiceImportObject>(mcsResources.serviceImport, namespace, name);
    }
  }
}

/** Creates or updates the derived Service; a change of headlessness recreates it (clusterIP is immutable). */
async function writeDerived(
  writer: Writer,
  local: KubeClient,
  want: DerivedServiceObject,
  current: (DerivedServiceObject & Obj) | undefined,
): Promise<DerivedServiceObject> {
  const { namespace, name } = want.metadata;
  if (current && (current.spec.clusterIP === "None") !== (want.spec.clusterIP === "None")) {
    await writer.delete(resources.service, namespace, name);
    current = undefined;
  }
  if (!current) {
    try {
      return (await writer.create(resources.service, want as unknown as Obj)) as unknown as DerivedServiceObject;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      current = await local.get<DerivedServiceObject & Obj>(resources.service, namespace, name);
    }
  }
  const c = current;
  const cur = c.spec as DerivedServiceObject["spec"] & Record<string, unknown>;
  const ports = (cur.ports ?? []).map((p) => ({
    ...(p.name ? { name: p.name } : {}),
    protocol: p.protocol,
    port: p.port,
    ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}),
  }));
  const same =
    JSON.stringify(ports) === JSON.stringify(want.spec.ports) &&
    (want.spec.sessionAffinity ?? "None") === (cur.sessionAffinity ?? "None") &&
    (!want.spec.sessionAffinityConfig || JSON.stringify(cur.sessionAffinityConfig) === JSON.stringify(want.spec.sessionAffinityConfig)) &&
    (!want.spec.internalTrafficPolicy || cur.internalTrafficPolicy === want.spec.internalTrafficPolicy) &&
    cur.trafficDistribution === want.spec.trafficDistribution &&
    JSON.stringify(c.metadata.ownerReferences?.map((r) => r.uid)) === JSON.stringify(want.metadata.ownerReferences.map((r) => r.uid));
  if (same) return c;
  const spec = {
    ...cur,
    ports: want.spec.ports,
    sessionAffinity: want.spec.sessionAffinity ?? "None",
    sessionAffinityConfig: want.spec.sessionAffinityConfig,
    trafficDistribution: want.spec.trafficDistribution,
  };
  if (want.spec.internalTrafficPolicy) spec.internalTrafficPolicy = want.spec.internalTrafficPolicy;
  if (!want.spec.sessionAffinityConfig) delete spec.sessionAffinityConfig;
  if (!want.spec.trafficDistribution) delete spec.trafficDistribution;
  return (await writer.update(resources.service, {
    ...c,
    metadata: { ...c.metadata, labels: want.metadata.labels, ownerReferences: want.metadata.ownerReferences },
    spec,
  } as unknown as Obj)) as unknown as DerivedServiceObject;
}

/**
 * The import of a merge, then its derived Service (whose ClusterIP becomes the import's ips, in a second write of the import
 * when it changed), then `status.clusters`: every exporting cluster.
 */
export async function writeMerged(
  writer: Writer,
  local: KubeClient,
  namespace: string,
  name: string,
  merged: MergedImport,
  current: ServiceImportObject | undefined,
  derivedNow: (DerivedServiceObject & Obj) | undefined,
): Promise<void> {
  type Ips = { clusterIPs?: string[]; ipFamilies?: string[] } | undefined;
  const imp = await writeImport(writer, local, namespace, name, desiredImport(namespace, name, merged, derivedNow?.spec as Ips), current);
  const derived = await writeDerived(writer, local, desiredDerived(namespace, name, merged, imp.metadata.uid ?? ""), derivedNow);
  const withIps = desiredImport(namespace, name, merged, derived.spec as Ips);
  const done =
    JSON.stringify(withIps.spec) === JSON.stringify(imp.spec) ? imp : await writeImport(writer, local, namespace, name, withIps, imp);
  const clusters = merged.clusters.map((c) => ({ cluster: c }));
  if (JSON.stringify(done.status?.clusters ?? []) !== JSON.stringify(clusters))
    await writer.patchStatus(mcsResources.serviceImport, namespace, name, { clusters });
}

/** A departed cluster's slice, deleted as seen (one written since, by a Link made again, stays). */
export async function deleteDeparted(writer: Writer, log: Logger, s: Obj): Promise<void> {
  try {
    await writer.delete(resources.endpointSlice, s.metadata.namespace, s.metadata.name ?? "", { preconditions: { uid: s.metadata.uid } });
    log.info(
      `MCS import ${s.metadata.namespace}/${s.metadata.labels?.[LABEL_SERVICE_NAME]}: cluster ${s.metadata.labels?.[LABEL_SOURCE_CLUSTER]} left with its Link; its EndpointSlice is deleted`,
    );
  } catch (err) {
    if (!isConflict(err)) throw err;
  }
}
