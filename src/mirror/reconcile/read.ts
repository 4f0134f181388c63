// The read step of reconcile: everything one target Service's reconcile looks at, taken from the caches once — the target and its Endpoints
// (remote), the mirror and its Endpoints, the endpoint mirrors of a headless mirror, and whether the namespace exists (local). What follows
// (desired, plan, record) works on this snapshot and on what the writes return, never on a re-read.
import type { KubeObject, ReadonlyCache } from "../../kube/index.ts";
import { CLUSTER_NAME, HEADLESS_MIRROR_SVC_NAME, MIRRORED_SERVICE, SLICE_SERVICE_NAME } from "../../model/labels.ts";
import { DEFAULT_MIRROR_NAME_TEMPLATE, fillTemplate, localNamespace, mirrorNameOf, mirrorTarget } from "../../model/mirror-names.ts";
import type { RemoteState } from "./desired.ts";
import { serviceKey, splitServiceKey, type ServiceKey } from "../sources/keys.ts";
import { isOwnedMirror } from "./metadata.ts";
import { isHeadless } from "../../model/service.ts";
import { isMirrorSlice, type MirrorSlice } from "./slices.ts";
import type { EndpointsObject, ServiceObject } from "../types.ts";
import type { LocalView } from "./view.ts";

export type Svc = ServiceObject & KubeObject;
export type Eps = EndpointsObject & KubeObject;
export type MirrorSliceObject = MirrorSlice & KubeObject;

/** Where reads come from: the remote informers' caches and the local views (our writes included). */
export interface MirrorCaches {
  /** null when the Link exports nothing (no selector, or no gateway). */
  remoteServices: ReadonlyCache<Svc> | null;
  remoteEndpoints: ReadonlyCache<Eps> | null;
  services: LocalView<Svc>;
  endpoints: LocalView<Eps>;
  namespaces: ReadonlyCache<KubeObject>;
  /** `--namespace-selector`: the target's selected Namespaces; null: every namespace is. */
  remoteNamespaces?: ReadonlyCache<KubeObject> | null;
  /** `--mirror-endpoint-slices`: mc's slices of this cluster's mirrors (indexed by `bySliceService`); null: mirrors have Endpoints. */
  slices: LocalView<MirrorSliceObject> | null;
}

export interface Snapshot {
  key: ServiceKey;
  namespace: string;
  /** The target Service's name. */
  name: string;
  /** The namespace of the mirror: the target's, or what `--namespace-map` maps it to. */
  localNamespace: string;
  /** The mirror's name: the target's annotation or the template (model/mirror-names.ts); with no target, that of our mirror of it. */
  mirrorName: string;
  /** Why the target can have no mirror under that name (too long, a bad annotation). */
  nameProblem?: string;
  remote: RemoteState & { service: Svc | undefined };
  /** What holds the mirror's name now: our mirror, a foreign Service (see `foreign`), or nothing. */
  mirror: { service?: Svc; endpoints?: Eps };
  /** The Service holding the mirror's name is not this target's mirror: not a mirror of this cluster, or (`holder`) another target's. */
  foreign: boolean;
  /** The key of the other target whose mirror of this cluster holds the name. */
  holder?: ServiceKey;
  /** Our mirrors of this target under other names (the template or annotation changed): each with what goes with it. */
  renamed: RenamedMirror[];
  /** The kind of our mirror, when it exists: a headless mirror stays headless while its target has no endpoints. */
  currentMirror?: "headless" | "clusterIP";
  /** Services labelled as endpoint mirrors of this mirror (in its namespace), and their Endpoints by name. */
  endpointMirrors: { services: Svc[]; endpoints: Map<string, Eps> };
  namespaceExists: boolean;
  /** Whether `--namespace-selector` (if any) selects the target's namespace. */
  namespaceSelected: boolean;
  /** With `--mirror-endpoint-slices`: mc's slices of the mirror and of its endpoint mirrors, by Service name. */
  slices?: Map<string, MirrorSliceObject[]>;
}

/** A mirror of the target under a name it no longer has, and its Endpoints, slices and endpoint mirrors (with theirs). */
export interface RenamedMirror {
  service: Svc;
  endpoints?: Eps;
  slices: MirrorSliceObject[];
  endpointMirrors: Array<{ service: Svc; endpoints?: Eps; slices: MirrorSliceObject[] }>;
}

export function readSnapshot(
  caches: MirrorCaches,
  cluster: string,
  key: ServiceKey,
  template = DEFAULT_MIRROR_NAME_TEMPLATE,
  namespaceMap: Readonly<Record<string, string>> = {},
): Snapshot {
  const { namespace, name } = splitServiceKey(key);
  // Where its mirrors live: the target's namespace, or what --namespace-map maps it to.
  const local = localNamespace(namespaceMap, namespace);
  const target = caches.remoteServices?.get(namespace, name);
  const ours = caches.services.indexed(targetIndex(namespace, name)).filter((s) => isOwnedMirror(s.metadata, cluster));
  const named = target ? mirrorNameOf(template, { name, namespace, annotations: target.metadata.annotations }, cluster) : undefined;
  const mirror = named?.name ?? ours[0]?.metadata.name ?? fillTemplate(template, { service: name, cluster, namespace });
  const service = caches.services.get(local, mirror);
  const heldFor = service && isOwnedMirror(service.metadata, cluster) ? (mirrorTarget(service.metadata) ?? { namespace, name }) : undefined;
  const owned = heldFor?.name === name && heldFor.namespace === namespace ? service : undefined;
  const slicesOf = (ns: string, n: string) => caches.slices?.indexed(sliceIndex(ns, n)) ?? [];
  // Mirrors of this target under another name, or in another local namespace (the map changed).
  const renamed = ours
    .filter((s) => s.metadata.name !== mirror || s.metadata.namespace !== local)
    .map((s): RenamedMirror => {
      const n = s.metadata.name ?? "";
      const ns = s.metadata.namespace ?? "";
      const endpointMirrors = caches.services.indexed(endpointMirrorIndex(ns, n)).map((e) => ({
        service: e,
        endpoints: caches.endpoints.get(ns, e.metadata.name ?? ""),
        slices: slicesOf(ns, e.metadata.name ?? ""),
      }));
      return { service: s, endpoints: caches.endpoints.get(ns, n), slices: slicesOf(ns, n), endpointMirrors };
    });
  // Another target's mirror holds the name: what goes with it is that target's, never this one's to plan.
  const held = heldFor !== undefined && owned === undefined;
  const epMirrors = held ? [] : caches.services.indexed(endpointMirrorIndex(local, mirror));
  const epMirrorEndpoints = new Map<string, Eps>();
  for (const s of epMirrors) {
    const ep = caches.endpoints.get(local, s.metadata.name ?? "");
    if (ep) epMirrorEndpoints.set(s.metadata.name ?? "", ep);
  }
  const sliced = held ? epMirrors.map((m) => m.metadata.name ?? "") : [mirror, ...epMirrors.map((m) => m.metadata.name ?? "")];
  const slices = caches.slices && new Map(sliced.map((n) => [n, slicesOf(local, n)]));
  return {
    key,
    namespace,
    name,
    localNamespace: local,
    mirrorName: mirror,
    ...(named?.problem && { nameProblem: named.problem }),
    remote: { service: target, endpoints: caches.remoteEndpoints?.get(namespace, name) },
    mirror: { service, ...(!held && { endpoints: caches.endpoints.get(local, mirror) }) },
    foreign: service !== undefined && owned === undefined,
    ...(held && { holder: serviceKey(heldFor.namespace, heldFor.name) }),
    renamed,
    ...(owned && { currentMirror: isHeadless(owned) ? "headless" : "clusterIP" }),
    endpointMirrors: { services: epMirrors, endpoints: epMirrorEndpoints },
    namespaceExists: caches.namespaces.get(undefined, local) !== undefined,
    namespaceSelected: !caches.remoteNamespaces || caches.remoteNamespaces.get(undefined, namespace) !== undefined,
    ...(slices && { slices }),
  };
}

/** The index key of a headless mirror's endpoint mirrors: `ns/<headless mirror name>`. */
function endpointMirrorIndex(namespace: string, headlessMirror: string): string {
  return `${namespace}/${headlessMirror}`;
}

/** The index key of our mirrors of one target Service, whatever their names: `@ns/<target>` (no namespace starts with '@'). */
function targetIndex(namespace: string, target: string): string {
  return `@${namespace}/${target}`;
}

/** Index function for local Services of `cluster`: endpoint mirrors by their headless mirror, mirrors by their target (their annotation, not their name). */
export function byMirrorOf(cluster: string): (svc: Svc) => string | undefined {
  return (svc) => {
    const labels = svc.metadata.labels;
    if (labels?.[CLUSTER_NAME] !== cluster) return undefined;
    const owner = labels[HEADLESS_MIRROR_SVC_NAME];
    if (owner) return endpointMirrorIndex(svc.metadata.namespace ?? "", owner);
    const target = labels[MIRRORED_SERVICE] === "true" ? mirrorTarget(svc.metadata) : undefined;
    // By the target's namespace (its annotation), which --namespace-map may give a mirror in another.
    return target ? targetIndex(target.namespace, target.name) : undefined;
  };
}

/** The index key of mc's slices of one Service: `ns/<service>`. */
export function sliceIndex(namespace: string, service: string): string {
  return `${namespace}/${service}`;
}

/** Index function for mc's slices: by the Service they belong to. */
export function bySliceService(slice: MirrorSliceObject): string | undefined {
  const service = slice.metadata.labels?.[SLICE_SERVICE_NAME];
  return service && isMirrorSlice(slice.metadata) ? sliceIndex(slice.metadata.namespace ?? "", service) : undefined;
}
