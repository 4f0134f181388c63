// kube-controller-manager's EndpointSlice mirroring controller: a Service without a selector whose same-named Endpoints a user manages gets
// discovery.k8s.io/v1 EndpointSlices that mirror them (kubectl describe and Linkerd's destination read slices, not Endpoints).
import { randomSuffix, sameContent } from "../object-utils.ts";
import { isIPv4, isIPv6 } from "node:net";
import { isDeepStrictEqual } from "node:util";
import { recordUpdateManager } from "../patch/patch.ts";
import type { LabelSelector } from "../selector.ts";
import type { Store } from "../storage/store.ts";
import type { KubeObject, ResourceType } from "../types.ts";
import type { Controller, ControllerContext } from "./controller.ts";

// `mirroredSlices` is the pure part (Endpoints → desired slices, as
// pkg/controller/endpointslicemirroring); `reconcileMirror` applies it through the store with the
// fewest creates, updates and deletes. These are controller writes: watchers see them, `store.writes`
// (client requests) does not.

export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
export const MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
const SKIP_MIRROR_LABEL = "endpointslice.kubernetes.io/skip-mirror";
export const MIRROR_CONTROLLER = "endpointslicemirroring-controller.k8s.io";
const LEADER_ANNOTATION = "control-plane.alpha.kubernetes.io/leader";
/** Annotations the controller does not copy onto slices. */
const UNCOPIED_ANNOTATIONS = new Set([
  "endpoints.kubernetes.io/last-change-trigger-time",
  "kubectl.kubernetes.io/last-applied-configuration",
]);
/** --mirroring-max-endpoints-per-subset's default: addresses past it are not mirrored. */
const MAX_ENDPOINTS_PER_SUBSET = 1000;
const FIELD_MANAGER = "kube-controller-manager";

interface EndpointAddress {
  ip?: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: { uid?: string; [k: string]: unknown };
}

interface EndpointPort {
  name?: string;
  port?: number;
  protocol?: string;
  appProtocol?: string;
}

interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

interface SlicePort {
  name: string;
  port?: number;
  protocol: string;
  appProtocol?: string;
}

interface SliceEndpoint {
  addresses: string[];
  conditions: { ready: boolean };
  hostname?: string;
  nodeName?: string;
  targetRef?: Record<string, unknown>;
}

export type AddressType = "IPv4" | "IPv6";

/** A slice as the controller wants it, before it has a name. */
export interface DesiredSlice {
  addressType: AddressType;
  ports: SlicePort[];
  endpoints: SliceEndpoint[];
}

/** Does the mirroring controller own slices for these Endpoints, given their Service? */
export function shouldMirror(endpoints: KubeObject | undefined, service: KubeObject | undefined): boolean {
  if (!endpoints || !service) return false;
  if (endpoints.metadata.labels?.[SKIP_MIRROR_LABEL] === "true") return false;
  if (endpoints.metadata.annotations?.[LEADER_ANNOTATION] !== undefined) return false;
  // An empty selector is none: kube stores maps as protobuf, where {} and nil are alike.
  const selector = (service.spec as { selector?: Record<string, string> | null } | undefined)?.selector;
  return !selector || Object.keys(selector).length === 0;
}

/**
 * kube's RepackSubsets: addresses are grouped by the exact set of ports they serve, so subsets
 * with identical ports merge and an address offering ports from two subsets joins both ports in
 * one. Ready wins over not-ready for an address listed as both. Addresses sort by IP.
 */
export function repackSubsets(subsets: readonly EndpointSubset[]): EndpointSubset[] {
  const NO_PORT = "\u0000none";
  const addrs = new Map<string, EndpointAddress>();
  const ports = new Map<string, EndpointPort | undefined>();
  /** port key → address key → ready */
  const byPort = new Map<string, Map<string, boolean>>();
  for (const s of subsets) {
    const list = s.ports?.length ? s.ports.map((p) => [portKey(p), p] as const) : [[NO_PORT, undefined] as const];
    for (const [pk, p] of list) {
      if (!ports.has(pk)) ports.set(pk, p);
      const set = byPort.get(pk) ?? new Map<string, boolean>();
      byPort.set(pk, set);
      const add = (a: EndpointAddress, ready: boolean) => {
        const ak = `${a.ip ?? ""}\u0000${a.targetRef?.uid ?? ""}`;
        if (!addrs.has(ak)) addrs.set(ak, a);
        if (set.get(ak) !== true) set.set(ak, ready);
      };
      for (const a of s.addresses ?? []) add(a, true);
      for (const a of s.notReadyAddresses ?? []) add(a, false);
    }
  }
  const groups = new Map<string, { set: Map<string, boolean>; ports: EndpointPort[] }>();
  for (const [pk, set] of byPort) {
    if (set.size === 0) continue;
    const key = [...set]
      .map(([a, r]) => `${a}=${r}`)
      .sort()
      .join("\n");
    const g = groups.get(key) ?? { set, ports: [] };
    groups.set(key, g);
    const p = ports.get(pk);
    if (p) g.ports.push(p);
  }
  const byIp = (a: EndpointAddress, b: EndpointAddress) =>
    cmp(a.ip ?? "", b.ip ?? "") || cmp(a.targetRef?.uid ?? "", b.targetRef?.uid ?? "");
  return [...groups.values()].map(({ set, ports: ps }) => {
    const entries = [...set];
    const pick = (ready: boolean) =>
      entries
        .filter(([, r]) => r === ready)
        .map(([k]) => addrs.get(k)!)
        .sort(byIp);
    const out: EndpointSubset = { ports: ps };
    const ready = pick(true);
    const notReady = pick(false);
    if (ready.length) out.addresses = ready;
    if (notReady.length) out.notReadyAddresses = notReady;
    return out;
  });
}

/** The slices the controller wants for `endpoints`: one per repacked subset and address type. */
export function mirroredSlices(endpoints: KubeObject): DesiredSlice[] {
  const out: DesiredSlice[] = [];
  for (const subset of repackSubsets((endpoints.subsets as EndpointSubset[] | undefined) ?? [])) {
    const ports = (subset.ports ?? []).map(slicePort);
    const byType = new Map<AddressType, Map<string, SliceEndpoint>>();
    let added = 0;
    const add = (a: EndpointAddress, ready: boolean) => {
      if (added >= MAX_ENDPOINTS_PER_SUBSET) return;
      const parsed = parseIp(a.ip ?? "");
      if (!parsed) return; // kube counts these as invalid and skips them
      added++;
      const ep: SliceEndpoint = { addresses: [parsed.ip], conditions: { ready } };
      if (a.hostname) ep.hostname = a.hostname;
      if (a.nodeName) ep.nodeName = a.nodeName;
      if (a.targetRef) ep.targetRef = { ...a.targetRef };
      const set = byType.get(parsed.type) ?? new Map<string, SliceEndpoint>();
      byType.set(parsed.type, set);
      set.set(endpointKey(ep), ep);
    };
    for (const a of subset.addresses ?? []) add(a, true);
    for (const a of subset.notReadyAddresses ?? []) add(a, false);
    for (const type of ["IPv4", "IPv6"] as const) {
      const set = byType.get(type);
      if (set?.size) out.push({ addressType: type, ports, endpoints: [...set.values()] });
    }
  }
  return out;
}

/** The full slice object for a desired slice (no name: the caller names it or keeps the old one). */
export function sliceObject(endpoints: KubeObject, desired: DesiredSlice): KubeObject {
  const meta = endpoints.metadata;
  const annotations = Object.fromEntries(Object.entries(meta.annotations ?? {}).filter(([k]) => !UNCOPIED_ANNOTATIONS.has(k)));
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      generateName: `${meta.name}-`,
      namespace: meta.namespace,
      labels: { ...meta.labels, [SERVICE_NAME_LABEL]: meta.name!, [MANAGED_BY_LABEL]: MIRROR_CONTROLLER },
      ...(Object.keys(annotations).length > 0 && { annotations }),
      ownerReferences: [
        { apiVersion: "v1", kind: "Endpoints", name: meta.name!, uid: meta.uid ?? "", controller: true, blockOwnerDeletion: true },
      ],
    },
    addressType: desired.addressType,
    endpoints: desired.endpoints,
    ports: desired.ports,
  };
}

export interface MirrorTypes {
  services: ResourceType;
  endpoints: ResourceType;
  slices: ResourceType;
}

/** The labels of the slices the mirroring controller manages for Service `service` (as isMirroredSlice). */
const mirroredSliceSelector = (service: string): LabelSelector => [
  { key: MANAGED_BY_LABEL, op: "=", value: MIRROR_CONTROLLER },
  { key: SERVICE_NAME_LABEL, op: "=", value: service },
];

/** Is this slice one the mirroring controller manages (for `service`, when given)? */
function isMirroredSlice(slice: KubeObject, service?: string): boolean {
  const labels = slice.metadata.labels ?? {};
  return (
    labels[MANAGED_BY_LABEL] === MIRROR_CONTROLLER &&
    labels[SERVICE_NAME_LABEL] !== undefined &&
    (service === undefined || labels[SERVICE_NAME_LABEL] === service)
  );
}

/**
 * Brings the mirrored slices of Service `namespace/name` in line with its Endpoints: a slice
 * whose address type and ports still exist is updated in place (only if something changed),
 * the rest are created or deleted. Writes go straight to the store (watchers see them; they
 * are not client requests, so `store.writes` does not count them).
 */
export function reconcileMirror(store: Store, types: MirrorTypes, namespace: string, name: string): void {
  // Read, never changed: the stored objects themselves (no copy per write).
  const endpoints = store.peek(types.endpoints, namespace, name);
  const service = store.peek(types.services, namespace, name);
  const desired = shouldMirror(endpoints, service) ? mirroredSlices(endpoints!) : [];
  const existing = store.list(types.slices, { namespace, labels: mirroredSliceSelector(name) });
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const unused = new Set(existing);
  for (const d of desired) {
    const want = sliceObject(endpoints!, d);
    const match = [...unused].find((s) => s.addressType === d.addressType && samePorts(s.ports as SlicePort[] | undefined, d.ports));
    if (match) {
      unused.delete(match);
      const { generateName: _g, ...wantMeta } = want.metadata;
      const next: KubeObject = {
        ...match,
        metadata: {
          ...match.metadata,
          labels: wantMeta.labels,
          annotations: wantMeta.annotations,
          ownerReferences: wantMeta.ownerReferences,
        },
        addressType: want.addressType,
        endpoints: want.endpoints,
        ports: want.ports,
      };
      if (next.metadata.annotations === undefined) delete next.metadata.annotations;
      if (sameContent(next, match)) continue;
      store.replace(types.slices, recordUpdateManager(match, next, { manager: FIELD_MANAGER, now }));
      continue;
    }
    let sliceName: string;
    do sliceName = `${want.metadata.generateName}${randomSuffix()}`;
    while (store.get(types.slices, namespace, sliceName));
    want.metadata.name = sliceName;
    want.metadata.uid = crypto.randomUUID();
    want.metadata.creationTimestamp = now;
    store.insert(types.slices, recordUpdateManager(undefined, want, { manager: FIELD_MANAGER, now }));
  }
  for (const s of unused) store.remove(types.slices, namespace, s.metadata.name!);
}

/** The controller: follows Services, Endpoints and its own slices, and reconciles their Service. */
export function endpointSliceMirroring(ctx: ControllerContext): Controller {
  const follow = (type: ResourceType, obj: KubeObject) => {
    let service: string | undefined;
    if (type.group === "" && (type.kind === "Service" || type.kind === "Endpoints")) service = obj.metadata.name;
    else if (type.kind === "EndpointSlice" && isMirroredSlice(obj)) service = obj.metadata.labels![SERVICE_NAME_LABEL];
    if (service === undefined) return;
    const find = (group: string, version: string, plural: string) => ctx.registry.find(group, version, plural)!;
    reconcileMirror(
      ctx.store,
      {
        services: find("", "v1", "services"),
        endpoints: find("", "v1", "endpoints"),
        slices: find("discovery.k8s.io", "v1", "endpointslices"),
      },
      obj.metadata.namespace!,
      service,
    );
  };
  return { onWrite: follow, onDelete: follow };
}

function slicePort(p: EndpointPort): SlicePort {
  // Endpoints ports default to TCP in kube-apiserver; the sandbox stores them as sent.
  const out: SlicePort = { name: p.name ?? "", port: p.port, protocol: p.protocol ?? "TCP" };
  if (p.appProtocol !== undefined) out.appProtocol = p.appProtocol;
  return out;
}

function portKey(p: EndpointPort): string {
  return JSON.stringify([p.name ?? "", p.port ?? 0, p.protocol ?? "TCP", p.appProtocol ?? null]);
}

function samePorts(a: readonly SlicePort[] | undefined, b: readonly SlicePort[]): boolean {
  const keys = (ps: readonly SlicePort[]) => ps.map((p) => portKey(p)).sort();
  return isDeepStrictEqual(keys(a ?? []), keys(b));
}

/** kube's endpoint identity in a set: addresses, hostname and the target's namespace/name. */
function endpointKey(ep: SliceEndpoint): string {
  return JSON.stringify([[...ep.addresses].sort(), ep.hostname ?? "", ep.targetRef?.namespace ?? "", ep.targetRef?.name ?? ""]);
}

/** Go's ParseIPSloppy + String(): leading zeros allowed in IPv4, IPv6 canonical, v4-mapped is IPv4. */
export function parseIp(text: string): { ip: string; type: AddressType } | undefined {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const parts = v4.slice(1).map((s) => Number.parseInt(s, 10));
    return parts.every((n) => n <= 255) ? { ip: parts.join("."), type: "IPv4" } : undefined;
  }
  if (!isIPv6(text)) return undefined;
  const canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (mapped) {
    const [hi, lo] = [Number.parseInt(mapped[1]!, 16), Number.parseInt(mapped[2]!, 16)];
    const ip = [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
    if (isIPv4(ip)) return { ip, type: "IPv4" };
  }
  return { ip: canonical, type: "IPv6" };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
