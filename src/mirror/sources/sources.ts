// What the mirror watches, and how each change becomes a queue key.
import { Informer, resources, type InformerEvent, type KubeClient, type KubeObject, type ResourceType } from "../../kube/index.ts";
import type { BackoffOptions } from "../../runtime/index.ts";
import { logger } from "../../log.ts";
import type { Metrics } from "../../metrics.ts";
import { CLUSTER_NAME, MC_SLICE_MANAGER, MIRRORED_SERVICE, SLICE_MANAGED_BY, SLICE_SERVICE_NAME } from "../../model/labels.ts";
import type { Link } from "../../model/link.ts";
import { localNamespace } from "../../model/mirror-names.ts";
import { coveringSelector, formatLabelSelector, type LabelSelector } from "../../model/selector.ts";
import { isFederatedService } from "../../model/service.ts";
import { federatedKeyOf } from "../federated/federated.ts";
import { isServiceKey, keyOfLocal, keyOfRemote, keysOfLocal, type MirrorKey, type NameClaims, type ServiceKey } from "./keys.ts";
import type { Eps, MirrorSliceObject, Svc } from "../reconcile/read.ts";
import { endpointsCompactor } from "./remote-endpoints.ts";
import { sliceService, slicesCompactor, type Slice } from "./remote-slices.ts";
import { GATEWAY_KEY, type Meta } from "../types.ts";

// Remote: the exported Services — one watch for both export modes (gateway and remote discovery),
// server-side selected by a selector covering both (`coveringSelector`), so a Service switching modes
// is one update event, never a deletion and an addition; a Service that loses its export label leaves
// the cache, which is what unexport means — and, for gateway mode, every Endpoints object, unfiltered
// — Endpoints need not carry their Service's labels (hand-managed ones of a selector-less Service
// carry none) — kept compact (remote-endpoints.ts); only those of exported Services queue work.
// Federated members are a watch of their own (the Link's federatedServiceSelector), keyed like the
// rest: `<svc>-federated` locally and `svc` in the target are both the key `ns/svc`. Local: all
// Services (so a foreign same-named Service is seen), our Endpoints (label cluster-name), with
// `--mirror-endpoint-slices` our EndpointSlices (labels managed-by mc and cluster-name), and
// Namespaces (a skipped Service is retried when its namespace appears).

export interface Sources {
  /** Absent when the Link exports nothing (no remote-discovery selector, and no selector or no gateway). */
  remoteServices?: Informer<Svc>;
  /** The target's Endpoints, or (with enableEndpointSlices) its EndpointSlices: one of the two. */
  remoteEndpoints?: Informer<Eps>;
  remoteEndpointSlices?: Informer<Slice>;
  /** The member Services of federated Services (the Link's federatedServiceSelector); absent without one. */
  remoteFederated?: Informer<Svc>;
  /** `--namespace-selector`: the target's Namespaces it selects (server-side filtered: one that stops matching leaves the cache). */
  remoteNamespaces?: Informer<KubeObject>;
  services: Informer<Svc>;
  endpoints: Informer<Eps>;
  /** `--mirror-endpoint-slices`: mc's EndpointSlices of this cluster's mirrors. */
  slices?: Informer<MirrorSliceObject>;
  namespaces: Informer<KubeObject>;
}

/** The labels of mc's slices of `cluster`'s mirrors (the gateway mirror's included). */
export function mirrorSlicesSelector(cluster: string): string {
  return `${SLICE_MANAGED_BY}=${MC_SLICE_MANAGER},${CLUSTER_NAME}=${cluster}`;
}

/** The key of one of mc's slices: that of the Service it belongs to. */
function keyOfSlice(meta: Meta, cluster: string, gateway: Gateway): MirrorKey | undefined {
  return keysOfSlice(meta, cluster, gateway)[0];
}

/** The keys an event on one of mc's slices concerns: those of the Service it belongs to (keysOfLocal). */
export function keysOfSlice(meta: Meta, cluster: string, gateway: Gateway, claims?: NameClaims): MirrorKey[] {
  const service = meta.labels?.[SLICE_SERVICE_NAME];
  return service ? keysOfLocal({ ...meta, name: service }, cluster, gateway, claims) : [];
}

/** Local informers every controller of a process can share (`mc serve --all`): all Services, Namespaces. Their owner starts and stops them. */
export interface SharedLocalInformers {
  services: Informer<Svc>;
  namespaces: Informer<KubeObject>;
}

export function sharedLocalInformers(local: KubeClient, backoff?: Partial<BackoffOptions>): SharedLocalInformers {
  const log = logger(`informer:${local.cluster}`);
  return {
    services: new Informer<Svc>({ client: local, resource: resources.service, log, backoff }),
    namespaces: new Informer<KubeObject>({ client: local, resource: resources.namespace, log, backoff }),
  };
}

export function createSources(o: {
  link: Link;
  local: KubeClient;
  remote: KubeClient;
  enableEndpointSlices?: boolean;
  /** A label selector on the target's Namespaces ("" or absent: every namespace, no informer). */
  namespaceSelector?: string;
  mirrorEndpointSlices?: boolean;
  backoff?: Partial<BackoffOptions>;
  shared?: SharedLocalInformers;
}): Sources {
  const c = o.link.targetClusterName;
  const log = logger(`informer:${c}`);
  const inf = <T extends KubeObject>(client: KubeClient, resource: ResourceType, labelSelector?: string, transform?: (obj: T) => T) =>
    new Informer<T>({ client, resource, labelSelector, log, backoff: o.backoff, ...(transform && { transform }) });
  const gatewaySelector = o.link.gateway && o.link.selector ? o.link.selector : null;
  const exportSelectors = [gatewaySelector, o.link.remoteDiscoverySelector].filter((x): x is LabelSelector => x !== null);
  const cover = coveringSelector(exportSelectors);
  return {
    ...(exportSelectors.length > 0 && { remoteServices: inf<Svc>(o.remote, resources.service, cover && formatLabelSelector(cover)) }),
    ...(gatewaySelector &&
      (o.enableEndpointSlices
        ? { remoteEndpointSlices: inf<Slice>(o.remote, resources.endpointSlice, undefined, slicesCompactor()) }
        : { remoteEndpoints: inf<Eps>(o.remote, resources.endpoints, undefined, endpointsCompactor<Eps>()) })),
    ...(o.namespaceSelector && { remoteNamespaces: inf<KubeObject>(o.remote, resources.namespace, o.namespaceSelector) }),
    ...(o.link.federatedServiceSelector && {
      remoteFederated: inf<Svc>(o.remote, resources.service, formatLabelSelector(o.link.federatedServiceSelector)),
    }),
    services: o.shared?.services ?? inf<Svc>(o.local, resources.service),
    endpoints: inf<Eps>(o.local, resources.endpoints, `${CLUSTER_NAME}=${c}`),
    ...(o.mirrorEndpointSlices && { slices: inf<MirrorSliceObject>(o.local, resources.endpointSlice, mirrorSlicesSelector(c)) }),
    namespaces: o.shared?.namespaces ?? inf<KubeObject>(o.local, resources.namespace),
  };
}

export function allInformers(s: Sources): Array<Informer<KubeObject>> {
  return Object.values(s) as Array<Informer<KubeObject>>;
}

/** The informers on the target: what tells whether it answers and accepts the credentials. */
export function remoteInformers(s: Sources): Array<Informer<KubeObject>> {
  return [s.remoteServices, s.remoteEndpoints, s.remoteEndpointSlices, s.remoteFederated, s.remoteNamespaces].filter(
    (i) => i !== undefined,
  ) as Array<Informer<KubeObject>>;
}

/** How many mirror Services of this cluster the source holds (endpoint mirrors included). */
export function ownMirrorCount(s: Sources, cluster: string): number {
  return s.services.cache.list([
    { key: MIRRORED_SERVICE, op: "=", value: "true" },
    { key: CLUSTER_NAME, op: "=", value: cluster },
  ]).length;
}

type Gateway = { namespace: string; name: string };

/**
 * Subscribes `enqueue` to every change, and counts watch restarts per resource; returns the
 * unsubscribe functions (shared informers outlive the controller). A local event that `isEcho`
 * says is our own write coming back enqueues nothing (reconciling it again would find what was
 * just written: one reconcile per change, not two).
 */
export function wireSources(
  s: Sources,
  cluster: string,
  gateway: Gateway,
  enqueue: (key: MirrorKey) => void,
  metrics: Metrics,
  isEcho: (e: InformerEvent<KubeObject>) => boolean = () => false,
  /** Told of each change of the target that queues its key (propagation.ts times it). */
  changed: (key: ServiceKey) => void = () => {},
  claims?: NameClaims,
  /** `--namespace-map`: the local namespace of a target namespace's mirrors, where it is not its own. */
  namespaceMap: Readonly<Record<string, string>> = {},
): Array<() => void> {
  const subs: Array<() => void> = [];
  const remoteKey = (key: string) => {
    if (!isServiceKey(key)) return;
    changed(key);
    enqueue(key);
  };
  for (const remote of [s.remoteServices, s.remoteFederated]) if (remote) subs.push(remote.onKey(remoteKey));
  // A change of an unexported Service's Endpoints decides nothing: its Service's own events do.
  const offEndpoints = s.remoteEndpoints?.onKey((key) => {
    if (s.remoteServices?.cache.getByKey(key)) remoteKey(key);
  });
  const offSlices = s.remoteEndpointSlices?.on((e) => {
    for (const slice of e.type === "updated" ? [e.old, e.object] : [e.object]) {
      const key = sliceService(slice);
      if (key && s.remoteServices?.cache.getByKey(key)) remoteKey(key);
    }
  });
  // A target namespace selected or no longer (its labels changed, or it came or went): its exported Services' keys.
  const offRemoteNamespaces = s.remoteNamespaces?.on((e) => {
    for (const svc of s.remoteServices?.cache.list() ?? [])
      if (svc.metadata.namespace === e.object.metadata.name) remoteKey(keyOfRemote(svc.metadata));
  });
  for (const off of [offEndpoints, offSlices, offRemoteNamespaces]) if (off) subs.push(off);
  const federated = s.remoteFederated !== undefined;
  for (const local of [s.services, s.endpoints, s.slices].filter((i) => i !== undefined) as Array<Informer<KubeObject>>) {
    const keysOf = local === (s.slices as Informer<KubeObject> | undefined) ? keysOfSlice : keysOfLocal;
    const off = local.on((e) => {
      const keys = keysOf(e.object.metadata, cluster, gateway, claims);
      if (isEcho(e)) {
        // Our own write: nothing new for its key, but another key waiting for the name (a mirror deleted, say) may go ahead.
        const own = keysOf(e.object.metadata, cluster, gateway);
        for (const key of keys) if (!own.includes(key)) enqueue(key);
        return;
      }
      for (const key of keys) enqueue(key);
      const fkey = federated && local === (s.services as Informer<KubeObject>) ? federatedKeyOf(e.object.metadata) : undefined;
      if (fkey && !keys.includes(fkey)) enqueue(fkey);
    });
    subs.push(off);
  }
  const offNamespaces = s.namespaces.on((e) => {
    if (e.type === "updated") return;
    // A local namespace that came or went: the exported Services mirrored into it (--namespace-map's), federated members into their own.
    for (const svc of s.remoteServices?.cache.list() ?? [])
      if (localNamespace(namespaceMap, svc.metadata.namespace ?? "") === e.object.metadata.name) enqueue(keyOfRemote(svc.metadata));
    for (const svc of s.remoteFederated?.cache.list() ?? [])
      if (svc.metadata.namespace === e.object.metadata.name) enqueue(keyOfRemote(svc.metadata));
  });
  subs.push(offNamespaces);
  const named: Array<[Informer<KubeObject> | undefined, string]> = [
    [s.remoteServices as Informer<KubeObject> | undefined, "services"],
    [s.remoteEndpoints as Informer<KubeObject> | undefined, "endpoints"],
    [s.remoteEndpointSlices as Informer<KubeObject> | undefined, "endpointslices"],
    [s.remoteFederated as Informer<KubeObject> | undefined, "services"],
    [s.remoteNamespaces, "namespaces"],
    [s.services as Informer<KubeObject>, "services"],
    [s.endpoints as Informer<KubeObject>, "endpoints"],
    [s.slices as Informer<KubeObject> | undefined, "endpointslices"],
    [s.namespaces, "namespaces"],
  ];
  for (const [informer, resource] of named) {
    const off = informer?.onStatus((st) => {
      if (st.state === "backoff") metrics.watchRestarts.inc({ target_cluster_name: cluster, resource });
    });
    if (off) subs.push(off);
  }
  return subs;
}

/** The keys whose mirror Endpoints (or slices) exist (regular mirrors and endpoint mirrors): what a gateway liveness change rewrites. */
export function liveKeys(s: Sources, cluster: string, gateway: Gateway): MirrorKey[] {
  const keys = new Set<MirrorKey>();
  for (const obj of s.endpoints.cache.list()) {
    const k = keyOfLocal(obj.metadata, cluster, gateway);
    if (k && k !== GATEWAY_KEY) keys.add(k);
  }
  for (const obj of s.slices?.cache.list() ?? []) {
    const k = keyOfSlice(obj.metadata, cluster, gateway);
    if (k && k !== GATEWAY_KEY) keys.add(k);
  }
  return [...keys].sort();
}

/** Every key there is, sorted: exported Services and federated members, our mirrors (orphans included), federated Services, the gateway mirror. */
export function allKeys(s: Sources, cluster: string, gateway: Gateway): MirrorKey[] {
  const keys = new Set<MirrorKey>(
    [...(s.remoteServices?.cache.keys() ?? []), ...(s.remoteFederated?.cache.keys() ?? [])].filter(isServiceKey),
  );
  for (const k of federatedKeys(s)) keys.add(k);
  const ours: LabelSelector = [
    { key: MIRRORED_SERVICE, op: "=", value: "true" },
    { key: CLUSTER_NAME, op: "=", value: cluster },
  ];
  for (const obj of [...s.services.cache.list(ours), ...s.endpoints.cache.list()]) {
    const k = keyOfLocal(obj.metadata, cluster, gateway);
    if (k) keys.add(k);
  }
  for (const obj of s.slices?.cache.list() ?? []) {
    const k = keyOfSlice(obj.metadata, cluster, gateway);
    if (k) keys.add(k);
  }
  keys.add(GATEWAY_KEY);
  return [...keys].sort();
}

/** The keys of the local federated Services (none without a federated selector). */
export function federatedKeys(s: Sources): MirrorKey[] {
  if (!s.remoteFederated) return [];
  const out: MirrorKey[] = [];
  // A federated Service is a mirrored one without a cluster name (isFederatedService): the selector says so, so a
  // process holding 50k mirrors does not walk them for the few federated ones at each Link that comes or goes.
  for (const svc of s.services.cache.list([
    { key: MIRRORED_SERVICE, op: "=", value: "true" },
    { key: CLUSTER_NAME, op: "!" },
  ])) {
    const k = isFederatedService(svc) ? federatedKeyOf(svc.metadata) : undefined;
    if (k) out.push(k);
  }
  return out;
}
