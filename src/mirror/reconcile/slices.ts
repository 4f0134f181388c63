// EndpointSlice mirrors (`--mirror-endpoint-slices`): what a mirror's Endpoints would hold, as EndpointSlices managed by mc.
import { jsonCopy } from "../../lib/json-copy.ts";
import { LINK_UID, MC_SLICE_MANAGER, SLICE_MANAGED_BY, SLICE_SERVICE_NAME } from "../../model/labels.ts";
import type { MirrorOp } from "./plan.ts";
import type { EndpointAddress, EndpointsObject, Meta } from "../types.ts";

// EndpointSlice mirrors (`--mirror-endpoint-slices`): what a mirror's Endpoints would hold, as
// discovery.k8s.io/v1 EndpointSlices managed by mc — one per subset and address family, the first
// named as the Service (`<mirror>`, then `<mirror>.2`, … — a dot no Service name and no kube
// controller's generated slice name has), ready and serving as the Endpoints address was ready
// (gateway liveness), the ports' names and protocols kept with the gateway's port. Their plan:
// creates and updates before deletes, so a mirror is never without endpoints. Pure.

interface MirrorSliceEndpoint {
  addresses: string[];
  conditions: { ready: boolean; serving: boolean };
  hostname?: string;
}

interface MirrorSlicePort {
  name: string;
  protocol: string;
  port: number;
}

export interface MirrorSlice {
  apiVersion: "discovery.k8s.io/v1";
  kind: "EndpointSlice";
  metadata: Meta;
  addressType: "IPv4" | "IPv6";
  endpoints: MirrorSliceEndpoint[];
  ports: MirrorSlicePort[];
}

/** The API's limit on the endpoints of one slice. */
export const MAX_SLICE_ENDPOINTS = 1000;

/** The name of a Service's `i`th slice (0-based). */
function sliceName(service: string, i: number): string {
  return i === 0 ? service : `${service}.${i + 1}`;
}

/** Whether a slice is one mc manages for a mirror (the only slices the mirror updates or deletes). */
export function isMirrorSlice(meta: Meta | undefined): boolean {
  return meta?.labels?.[SLICE_MANAGED_BY] === MC_SLICE_MANAGER;
}

const family = (ip: string): "IPv4" | "IPv6" => (ip.includes(":") ? "IPv6" : "IPv4");

/**
 * The slices holding what `ep` holds, labelled as `ep` plus the slice's Service and manager,
 * annotated as `ep` (Linkerd's destination reads the gateway identity there). At least one, named
 * as the Service, even with no endpoints: its existence says the mirror is in slice form.
 */
export function desiredSlices(ep: EndpointsObject): MirrorSlice[] {
  const service = ep.metadata.name ?? "";
  const labels = { ...ep.metadata.labels, [SLICE_SERVICE_NAME]: service, [SLICE_MANAGED_BY]: MC_SLICE_MANAGER };
  const annotations = { ...ep.metadata.annotations };
  const groups: Array<Omit<MirrorSlice, "apiVersion" | "kind" | "metadata">> = [];
  for (const s of ep.subsets ?? []) {
    const ports = (s.ports ?? []).map((p) => ({ name: p.name ?? "", protocol: p.protocol ?? "TCP", port: p.port }));
    const byFamily = new Map<"IPv4" | "IPv6", MirrorSliceEndpoint[]>();
    const add = (list: readonly EndpointAddress[] | undefined, ready: boolean) => {
      for (const a of list ?? []) {
        const f = family(a.ip);
        byFamily.set(f, [
          ...(byFamily.get(f) ?? []),
          { addresses: [a.ip], conditions: { ready, serving: ready }, ...(a.hostname && { hostname: a.hostname }) },
        ]);
      }
    };
    add(s.addresses, true);
    add(s.notReadyAddresses, false);
    for (const [addressType, endpoints] of byFamily) {
      for (let i = 0; i < endpoints.length; i += MAX_SLICE_ENDPOINTS)
        groups.push({ addressType, endpoints: endpoints.slice(i, i + MAX_SLICE_ENDPOINTS), ports });
    }
  }
  if (groups.length === 0) groups.push({ addressType: "IPv4", endpoints: [], ports: [] });
  return groups.map((g, i) => ({
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name: sliceName(service, i), namespace: ep.metadata.namespace, labels, annotations },
    ...g,
  }));
}

/**
 * The writes that turn `actual` (mc's slices of one Service) into `desired`: creates and updates
 * first, then deletes (an address family that changes is a new slice: addressType is immutable).
 */
export function planSlices(desired: readonly MirrorSlice[], actual: readonly MirrorSlice[]): MirrorOp[] {
  const have = new Map(actual.filter((s) => isMirrorSlice(s.metadata)).map((s) => [s.metadata.name ?? "", s]));
  const writes: MirrorOp[] = [];
  const replacements: MirrorOp[] = [];
  for (const d of desired) {
    const name = d.metadata.name ?? "";
    const a = have.get(name);
    have.delete(name);
    if (!a) writes.push({ verb: "create", kind: "EndpointSlice", object: d });
    else if (a.addressType !== d.addressType) replacements.push(deleteOf(a), { verb: "create", kind: "EndpointSlice", object: d });
    else {
      const changed = sliceChanges(d, a);
      if (changed.length > 0) writes.push({ verb: "update", kind: "EndpointSlice", object: updatedSlice(a, d), changed });
    }
  }
  return [...writes, ...replacements, ...[...have.values()].map(deleteOf)];
}

function deleteOf(s: MirrorSlice): MirrorOp {
  const m = s.metadata;
  return { verb: "delete", kind: "EndpointSlice", namespace: m.namespace ?? "", name: m.name ?? "", ...(m.uid && { uid: m.uid }) };
}

/** Which parts mc owns differ: labels (the Link uid alone is never a reason), annotations, endpoints, ports. */
function sliceChanges(desired: MirrorSlice, actual: MirrorSlice): string[] {
  const out: string[] = [];
  const labels = (l: Record<string, string> | undefined) =>
    JSON.stringify(
      Object.entries(l ?? {})
        .filter(([k]) => k !== LINK_UID)
        .sort(),
    );
  if (labels(desired.metadata.labels) !== labels(actual.metadata.labels)) out.push("labels");
  const annotations = (a: Record<string, string> | undefined) => JSON.stringify(Object.entries(a ?? {}).sort());
  if (annotations(desired.metadata.annotations) !== annotations(actual.metadata.annotations)) out.push("annotations");
  if (JSON.stringify(normalEndpoints(desired.endpoints)) !== JSON.stringify(normalEndpoints(actual.endpoints))) out.push("endpoints");
  if (JSON.stringify(normalPorts(desired.ports)) !== JSON.stringify(normalPorts(actual.ports))) out.push("ports");
  return out;
}

function normalEndpoints(list: readonly MirrorSliceEndpoint[] | null | undefined): unknown[] {
  return (list ?? [])
    .map((e) => ({
      ip: e.addresses?.[0] ?? "",
      hostname: e.hostname ?? "",
      ready: e.conditions?.ready === true,
      serving: e.conditions?.serving === true,
    }))
    .sort((a, b) => (a.ip + a.hostname < b.ip + b.hostname ? -1 : a.ip + a.hostname > b.ip + b.hostname ? 1 : 0));
}

function normalPorts(list: readonly MirrorSlicePort[] | null | undefined): unknown[] {
  return (list ?? []).map((p) => ({ name: p.name ?? "", protocol: p.protocol ?? "TCP", port: p.port }));
}

function updatedSlice(actual: MirrorSlice, desired: MirrorSlice): MirrorSlice {
  const out = jsonCopy(actual);
  out.metadata.labels = { ...desired.metadata.labels };
  out.metadata.annotations = { ...desired.metadata.annotations };
  out.endpoints = jsonCopy(desired.endpoints);
  out.ports = jsonCopy(desired.ports);
  return out;
}
