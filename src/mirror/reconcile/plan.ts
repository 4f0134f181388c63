// plan: the writes that turn what the source cluster holds into what it should hold. It compares only the fields the mirror owns (labels,
// annotations, ports, subsets, headless-ness), so a mirror that is already right costs nothing, and it never touches an object that is not
// ours: a same-named foreign Service is reported, not overwritten. Pure.
import { jsonCopy } from "../../lib/json-copy.ts";
import { CLUSTER_NAME, HEADLESS_MIRROR_SVC_NAME, LINK_UID, REMOTE_RESOURCE_VERSION } from "../../model/labels.ts";
import { isHeadless } from "../../model/service.ts";
import type { EndpointMirror } from "./headless.ts";
import type { OutputKind, OwnedKind } from "./kinds.ts";
import { isOwnedMirror } from "./metadata.ts";
import type { EndpointAddress, EndpointSubset, EndpointsObject, Meta, MirrorProblem, ServiceObject, ServicePort } from "../types.ts";

type MirrorObject = ServiceObject | EndpointsObject | { apiVersion: string; kind: string; metadata: Meta };

export type MirrorOp = (
  | { verb: "create"; kind: OutputKind; object: MirrorObject }
  /** A full replacement (PUT) of the cached object, conditional on its resourceVersion. */
  | { verb: "update"; kind: OwnedKind; object: MirrorObject; changed: string[] }
  /** Conditional on the uid we saw, so a re-created object is never deleted by mistake (and, given, on its resourceVersion: nobody changed it since). */
  | { verb: "delete"; kind: OwnedKind; namespace: string; name: string; uid?: string; resourceVersion?: string }
) & {
  /** Sent together with the op before it, not after its answer (the two are independent). */
  concurrent?: true;
};

export interface Plan {
  ops: MirrorOp[];
  /** A foreign object holds the mirror's name: nothing was planned for it. */
  conflict: MirrorProblem | null;
}

type Owned = (meta: Meta | undefined) => boolean;

/** How a mirror's endpoints are written: as Endpoints (Linkerd's), or as EndpointSlices (slices.ts) by a later phase, which leaves Endpoints to it. */
export interface EndpointsForm {
  endpointSlices?: boolean;
}

/** The mirror Service and Endpoints (regular or headless) for one target Service. */
export function planMirror(
  desired: { service: ServiceObject | null; endpoints: EndpointsObject | null },
  actual: { service?: ServiceObject; endpoints?: EndpointsObject },
  cluster: string,
  form: EndpointsForm = {},
): Plan {
  const owned: Owned = (m) => isOwnedMirror(m, cluster);
  const endpointOps: typeof planEndpoints = form.endpointSlices ? () => [] : planEndpoints;
  const svc = actual.service;
  if (svc && !owned(svc.metadata)) return { ops: [], conflict: mirrorConflict(desired.service, svc, cluster) };
  if (!desired.service) {
    return { ops: [...deleteIfOwned("Endpoints", actual.endpoints, owned), ...deleteIfOwned("Service", svc, owned)], conflict: null };
  }
  const ops: MirrorOp[] = [];
  let endpoints = actual.endpoints;
  if (svc && isHeadless(svc) !== isHeadless(desired.service)) {
    // clusterIP is immutable: switching between headless and ClusterIP means a new Service.
    ops.push(...deleteIfOwned("Endpoints", endpoints, owned), ...deleteIfOwned("Service", svc, owned));
    ops.push({ verb: "create", kind: "Service", object: desired.service });
    endpoints = undefined;
  } else if (!svc) {
    ops.push({ verb: "create", kind: "Service", object: desired.service });
  } else {
    const changed = serviceChangesOf(desired.service, svc);
    const update: MirrorOp[] =
      changed.length > 0 ? [{ verb: "update", kind: "Service", object: updatedService(svc, desired.service), changed }] : [];
    const eps = endpointOps(desired.endpoints, endpoints, owned);
    // A remote-discovery mirror becoming a gateway one gets its Endpoints before it loses its
    // remote-discovery labels (and the other way round loses them after): at no moment is the
    // mirror a gateway-mode Service without Endpoints. Two updates (a relabel) go together.
    if (eps.some((op) => op.verb === "create")) return { ops: [...eps, ...update], conflict: null };
    return { ops: [...update, ...(update.length > 0 && eps.every((op) => op.verb === "update") ? alongside(eps) : eps)], conflict: null };
  }
  // The Service is new: its Endpoints need not wait for it (an Endpoints whose Service does not exist yet is fine for kube).
  ops.push(...alongside(endpointOps(desired.endpoints, endpoints, owned)));
  return { ops, conflict: null };
}

/** `ops` sent together with the op before them. */
function alongside(ops: MirrorOp[]): MirrorOp[] {
  return ops.map((op) => ({ ...op, concurrent: true }));
}

/** A mirror is wanted but a Service that is not ours holds its name (null: no such conflict). */
export function mirrorConflict(desired: ServiceObject | null, actual: ServiceObject | undefined, cluster: string): MirrorProblem | null {
  if (!desired || !actual || isOwnedMirror(actual.metadata, cluster)) return null;
  const ref = { namespace: actual.metadata.namespace ?? "", name: actual.metadata.name ?? "" };
  return {
    reason: "Error",
    message: `Service ${ref.namespace}/${ref.name} exists and is not a mirror of ${cluster}; left alone`,
    localRef: ref,
  };
}

/** Endpoints on their own: create, update only what differs, delete only our own. */
function planEndpoints(desired: EndpointsObject | null, actual: EndpointsObject | undefined, owned: Owned): MirrorOp[] {
  if (!desired) return deleteIfOwned("Endpoints", actual, owned);
  if (!actual) return [{ verb: "create", kind: "Endpoints", object: desired }];
  if (!owned(actual.metadata)) return [];
  const op = planEndpointsUpdate(desired, actual);
  return op ? [op] : [];
}

/** The update that makes an existing Endpoints of ours what `desired` says; undefined when it already is. */
export function planEndpointsUpdate(desired: EndpointsObject, actual: EndpointsObject): MirrorOp | undefined {
  const changed = endpointsChanges(desired, actual);
  return changed.length > 0 ? { verb: "update", kind: "Endpoints", object: updatedEndpoints(actual, desired), changed } : undefined;
}

/** The gateway mirror: ours when it carries our cluster-name label. */
export function planGatewayMirror(desired: EndpointsObject | null, actual: EndpointsObject | undefined, cluster: string): MirrorOp[] {
  return planEndpoints(desired, actual, (m) => m?.labels?.[CLUSTER_NAME] === cluster);
}

/**
 * The endpoint mirrors of one headless mirror (`actual`: those labelled with its name in its
 * namespace). Extra ones are deleted; their remote-resource-version annotation alone never
 * causes an update (it changes with every change of the target's Endpoints).
 */
export function planEndpointMirrors(
  desired: readonly EndpointMirror[],
  actual: { services: readonly ServiceObject[]; endpoints: ReadonlyMap<string, EndpointsObject> },
  cluster: string,
  form: EndpointsForm = {},
): MirrorOp[] {
  const owned: Owned = (m) => isOwnedMirror(m, cluster) && !!m?.labels?.[HEADLESS_MIRROR_SVC_NAME];
  const ops: MirrorOp[] = [];
  const wanted = new Set(desired.map((d) => d.service.metadata.name));
  for (const svc of actual.services) {
    const name = svc.metadata.name ?? "";
    if (wanted.has(name) || !owned(svc.metadata)) continue;
    ops.push(...deleteIfOwned("Endpoints", actual.endpoints.get(name), owned), ...deleteIfOwned("Service", svc, owned));
  }
  for (const d of desired) {
    const name = d.service.metadata.name ?? "";
    const svc = actual.services.find((s) => s.metadata.name === name);
    const eps = form.endpointSlices ? [] : planEndpoints(d.endpoints, actual.endpoints.get(name), owned);
    if (!svc) {
      ops.push({ verb: "create", kind: "Service", object: d.service }, ...alongside(eps));
      continue;
    }
    if (!owned(svc.metadata)) continue;
    const changed = serviceChanges(d.service, svc, { ignoreResourceVersion: true });
    if (changed.length > 0) ops.push({ verb: "update", kind: "Service", object: updatedService(svc, d.service), changed });
    ops.push(...eps);
  }
  return ops;
}

function deleteIfOwned(kind: OwnedKind, obj: { metadata: Meta } | undefined, owned: Owned): MirrorOp[] {
  if (!obj || !owned(obj.metadata)) return [];
  const m = obj.metadata;
  return [{ verb: "delete", kind, namespace: m.namespace ?? "", name: m.name ?? "", ...(m.uid && { uid: m.uid }) }];
}

/**
 * Which owned parts of a mirror Service differ: labels, annotations, ports, selector. The Link-uid
 * label is written with every write but is never a reason for one (a mirror made before mc wrote
 * it, or by a Link since re-created, gets it with its next change, not all at once).
 */
export function serviceChanges(desired: ServiceObject, actual: ServiceObject, opts: { ignoreResourceVersion?: boolean } = {}): string[] {
  const out: string[] = [];
  if (!sameMap(desired.metadata.labels, actual.metadata.labels, LINK_UID)) out.push("labels");
  const skip = opts.ignoreResourceVersion ? REMOTE_RESOURCE_VERSION : undefined;
  if (!sameMap(desired.metadata.annotations, actual.metadata.annotations, skip)) out.push("annotations");
  if (!samePorts(desired.spec?.ports, actual.spec?.ports)) out.push("ports");
  if (Object.keys(actual.spec?.selector ?? {}).length > 0) out.push("selector");
  return out;
}

function endpointsChanges(desired: EndpointsObject, actual: EndpointsObject): string[] {
  const out: string[] = [];
  if (!sameMap(desired.metadata.labels, actual.metadata.labels, LINK_UID)) out.push("labels");
  if (!sameMap(desired.metadata.annotations, actual.metadata.annotations)) out.push("annotations");
  if (!sameSubsets(desired.subsets, actual.subsets)) out.push("subsets");
  return out;
}

/**
 * serviceChanges, kept per cached mirror Service (frozen, replaced when it changes) for the frozen
 * labels, annotations and ports desiredMirror keeps per target: when neither side changed, neither
 * is compared again (a liveness flip re-plans every mirror).
 */
const compared = new WeakMap<ServiceObject, { labels: unknown; annotations: unknown; ports: unknown; changed: string[] }>();

function serviceChangesOf(desired: ServiceObject, actual: ServiceObject): string[] {
  const { labels, annotations } = desired.metadata;
  const ports = desired.spec?.ports;
  if (!Object.isFrozen(actual) || !Object.isFrozen(labels) || !Object.isFrozen(annotations) || !Object.isFrozen(ports))
    return serviceChanges(desired, actual);
  const hit = compared.get(actual);
  if (hit && hit.labels === labels && hit.annotations === annotations && hit.ports === ports) return [...hit.changed];
  const changed = serviceChanges(desired, actual);
  compared.set(actual, { labels, annotations, ports, changed });
  return changed;
}

/** `actual` with the mirror's owned parts (labels, annotations, ports) taken from `desired`, and no selector. */
export function updatedService(actual: ServiceObject, desired: ServiceObject): ServiceObject {
  const out = jsonCopy(actual);
  out.metadata.labels = { ...desired.metadata.labels };
  out.metadata.annotations = { ...desired.metadata.annotations };
  const spec = (out.spec ??= {});
  spec.ports = jsonCopy(desired.spec?.ports ?? []);
  delete spec.selector;
  return out;
}

/**
 * `actual` with the mirror's labels, annotations and subsets from `desired`. Only what is kept is
 * copied (not the subsets it replaces), and without managedFields: an update that leaves them out
 * keeps the server's (a liveness flip writes every mirror's Endpoints; this is its per-mirror copy).
 */
function updatedEndpoints(actual: EndpointsObject, desired: EndpointsObject): EndpointsObject {
  const {
    managedFields: _kept,
    labels: _l,
    annotations: _a,
    ...meta
  } = actual.metadata as EndpointsObject["metadata"] & { managedFields?: unknown };
  return {
    ...actual,
    metadata: { ...jsonCopy(meta), labels: { ...desired.metadata.labels }, annotations: { ...desired.metadata.annotations } },
    subsets: jsonCopy(desired.subsets ?? []),
  };
}

/** Equal maps, `skip` aside; counts keys instead of listing them (every reconcile compares several). */
function sameMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined, skip?: string): boolean {
  const x = a ?? {};
  const y = b ?? {};
  let n = 0;
  for (const k in x) {
    if (k === skip) continue;
    if (!Object.hasOwn(y, k) || x[k] !== y[k]) return false;
    n++;
  }
  for (const k in y) if (k !== skip) n--;
  return n === 0;
}

function samePorts(a: readonly ServicePort[] | undefined, b: readonly ServicePort[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (
      (p.name ?? "") !== (q.name ?? "") ||
      (p.protocol ?? "TCP") !== (q.protocol ?? "TCP") ||
      p.port !== q.port ||
      (p.targetPort ?? p.port) !== (q.targetPort ?? q.port)
    )
      return false;
  }
  return true;
}

/**
 * Equal subsets (subsetsKey); unequal at once when the numbers of ready or not-ready addresses
 * differ, as they do for every mirror a liveness flip rewrites.
 */
function sameSubsets(a: readonly EndpointSubset[] | null | undefined, b: readonly EndpointSubset[] | null | undefined): boolean {
  const count = (subsets: readonly EndpointSubset[] | null | undefined, ready: boolean) => {
    let n = 0;
    for (const s of subsets ?? []) n += (ready ? s.addresses : s.notReadyAddresses)?.length ?? 0;
    return n;
  };
  if (count(a, true) !== count(b, true) || count(a, false) !== count(b, false)) return false;
  return subsetsKey(a) === subsetsKey(b);
}

/**
 * Subsets in a canonical form, as one string: addresses sorted, defaults filled, empty subsets
 * dropped. Two Endpoints' subsets are equal when their keys are (no objects built to compare them).
 */
function subsetsKey(subsets: readonly EndpointSubset[] | null | undefined): string {
  const addrs = (list: readonly EndpointAddress[] | undefined) =>
    (list ?? [])
      .map((a) => `${a.ip}#${a.hostname ?? ""}`)
      .sort()
      .join(",");
  let out = "";
  for (const s of subsets ?? []) {
    if (!s.addresses?.length && !s.notReadyAddresses?.length) continue;
    out += `${addrs(s.addresses)}|${addrs(s.notReadyAddresses)}|${(s.ports ?? []).map((p) => `${p.name ?? ""}/${p.protocol ?? "TCP"}/${p.port}`).join(",")};`;
  }
  return out;
}
