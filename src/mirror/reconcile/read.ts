// The read step of reconcile: everything one target Service's reconcile looks at, taken from
// the caches once — the target and its Endpoints (remote), the mirror and its Endpoints, the
// endpoint mirrors of a headless mirror, and whether the namespace exists (local). What follows
// (desired, plan, record) works on this snapshot and on what the writes return, never on a re-read.
import type { KubeObject, ReadonlyCache } from "../../kube/index.ts";
import { CLUSTER_NAME, HEADLESS_MIRROR_SVC_NAME, SLICE_SERVICE_NAME } from "../../model/labels.ts";
import { mirrorName } from "../../model/names.ts";
import type { RemoteState } from "./desired.ts";
import { splitServiceKey, type ServiceKey } from "../sources/keys.ts";
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
  /** `--mirror-endpoint-slices`: mc's slices of this cluster's mirrors (indexed by `bySliceService`); null: mirrors have Endpoints. */
  slices: LocalView<MirrorSliceObject> | null;
}

export interface Snapshot {
  key: ServiceKey;
  namespace: string;
  /** The target Service's name. */
  name: string;
  mirrorName: string;
  remote: RemoteState & { service: Svc | undefined };
  /** What holds the mirror's name now: our mirror, a foreign Service (see `foreign`), or nothing. */
  mirror: { service?: Svc; endpoints?: Eps };
  /** The Service holding the mirror's name is not a mirror of this cluster. */
  foreign: boolean;
  /** The kind of our mirror, when it exists: a headless mirror stays headless while its target has no endpoints. */
  currentMirror?: "headless" | "clusterIP";
  /** Services labelled as endpoint mirrors of this mirror (in its namespace), and their Endpoints by name. */
  endpointMirrors: { services: Svc[]; endpoints: Map<string, Eps> };
  namespaceExists: boolean;
  /** With `--mirror-endpoint-slices`: mc's slices of the mirror and of its endpoint mirrors, by Service name. */
  slices?: Map<string, MirrorSliceObject[]>;
}

export function readSnapshot(caches: MirrorCaches, cluster: string, key: ServiceKey): Snapshot {
  const { namespace, name } = splitServiceKey(key);
  const mirror = mirrorName(name, cluster);
  const service = caches.services.get(namespace, mirror);
  const owned = service && isOwnedMirror(service.metadata, cluster) ? service : undefined;
  const epMirrors = caches.services.indexed(endpointMirrorIndex(namespace, mirror));
  const epMirrorEndpoints = new Map<string, Eps>();
  for (const s of epMirrors) {
    const ep = caches.endpoints.get(namespace, s.metadata.name ?? "");
    if (ep) epMirrorEndpoints.set(s.metadata.name ?? "", ep);
  }
  const slices = caches.slices && new Map([mirror, ...epMirrors.map((m) => m.metadata.name ?? "")].map((n) => [n, caches.slices!.indexed(sliceIndex(namespace, n))]));
  return {
    key,
    namespace,
    name,
    mirrorName: mirror,
    remote: { service: caches.remoteServices?.get(namespace, name), endpoints: caches.remoteEndpoints?.get(namespace, name) },
    mirror: { service, endpoints: caches.endpoints.get(namespace, mirror) },
    foreign: service !== undefined && owned === undefined,
    ...(owned && { currentMirror: isHeadless(owned) ? "headless" : "clusterIP" }),
    endpointMirrors: { services: epMirrors, endpoints: epMirrorEndpoints },
    namespaceExists: caches.namespaces.get(undefined, namespace) !== undefined,
    ...(slices && { slices }),
  };
}

/** The index key of a headless mirror's endpoint mirrors: `ns/<headless mirror name>`. */
function endpointMirrorIndex(namespace: string, headlessMirror: string): string {
  return `${namespace}/${headlessMirror}`;
}

/** Index function for local Services: endpoint mirrors of `cluster` by their headless mirror. */
export function byHeadlessMirror(cluster: string): (svc: Svc) => string | undefined {
  return (svc) => {
    const labels = svc.metadata.labels;
    const owner = labels?.[CLUSTER_NAME] === cluster ? labels[HEADLESS_MIRROR_SVC_NAME] : undefined;
    return owner ? endpointMirrorIndex(svc.metadata.namespace ?? "", owner) : undefined;
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
