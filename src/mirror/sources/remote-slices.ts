// `--enable-endpoint-slices`: the same decisions made from the target's EndpointSlices instead of its Endpoints (deprecated from Kubernetes
// 1.33; Linkerd's enableEndpointSlices mode).
import type { Informer, KubeObject, ReadonlyCache } from "../../kube/index.ts";
import { compactSubsets, hasHostname, sharedShapes } from "./remote-endpoints.ts";
import type { EndpointAddress, EndpointPort, EndpointSubset, EndpointsObject, Meta } from "../types.ts";

// A Service's slices carry `kubernetes.io/service-name` (or, failing that, an owner reference to it;
// the cached copy keeps the name as the label); each becomes one subset of a compact Endpoints view
// (remote-endpoints.ts): endpoints whose `conditions.ready` is true are ready (an unset condition
// counts as not ready, as Linkerd's isEmptyEndpointSlice has it), their hostnames kept, the rest
// collapsed; the slice's ports. `RemoteSlices` answers the mirror's reads of "the target's Endpoints"
// from its slices, so reconcile and desiredMirror need not know which API the target was read through.
// Slices are cached compact, like Endpoints.

const SERVICE_NAME_LABEL = "kubernetes.io/service-name";

interface SliceEndpoint {
  addresses?: string[];
  conditions?: { ready?: boolean | null; [k: string]: unknown } | null;
  hostname?: string | null;
  [k: string]: unknown;
}

interface SlicePort {
  name?: string | null;
  protocol?: string | null;
  port?: number | null;
  [k: string]: unknown;
}

export interface EndpointSliceObject {
  apiVersion?: string;
  kind?: string;
  metadata: Meta;
  addressType?: string;
  endpoints?: SliceEndpoint[] | null;
  ports?: SlicePort[] | null;
  [k: string]: unknown;
}

export type Slice = EndpointSliceObject & KubeObject;
export type SliceEps = EndpointsObject & KubeObject;

/**
 * The Service a slice belongs to, as `ns/name`: its service-name label, else an owner reference
 * to a Service (as Linkerd's getEndpointSliceServiceID); undefined for neither.
 */
export function sliceService(slice: { metadata: Meta }): string | undefined {
  const owners = (slice.metadata.ownerReferences as Array<{ kind?: string; name?: string }> | undefined) ?? [];
  const name = slice.metadata.labels?.[SERVICE_NAME_LABEL] || owners.find((o) => o.kind === "Service" && o.name)?.name;
  return name ? `${slice.metadata.namespace ?? ""}/${name}` : undefined;
}

/** One slice as an Endpoints subset: ready endpoints under addresses, the rest under notReadyAddresses. Pure. */
function sliceSubset(slice: EndpointSliceObject): EndpointSubset {
  const ready: EndpointAddress[] = [];
  const notReady: EndpointAddress[] = [];
  for (const e of slice.endpoints ?? []) {
    const address: EndpointAddress = { ip: e.addresses?.[0] ?? "", ...(e.hostname && { hostname: e.hostname }) };
    (e.conditions?.ready === true ? ready : notReady).push(address);
  }
  const ports = (slice.ports ?? [])
    .filter((p) => typeof p.port === "number")
    .map((p): EndpointPort => ({ ...(p.name && { name: p.name }), protocol: p.protocol ?? "TCP", port: p.port! }));
  return { ...(ready.length > 0 && { addresses: ready }), ...(notReady.length > 0 && { notReadyAddresses: notReady }), ports };
}

/**
 * The Endpoints view of a Service from its slices: one subset per distinct port list (dual-stack
 * slices of the same ports merge, hostnames once), resourceVersion the newest slice's. Pure.
 */
export function endpointsFromSlices(namespace: string, name: string, slices: readonly EndpointSliceObject[]): EndpointsObject {
  const byPorts = new Map<string, EndpointSubset>();
  for (const slice of slices) {
    const s = sliceSubset(slice);
    const key = JSON.stringify(s.ports ?? []);
    const into = byPorts.get(key);
    if (!into) byPorts.set(key, s);
    else {
      for (const field of ["addresses", "notReadyAddresses"] as const) {
        const seen = new Set((into[field] ?? []).map((a) => a.hostname).filter(Boolean));
        const more = (s[field] ?? []).filter((a) => !a.hostname || !seen.has(a.hostname));
        if (more.length > 0) into[field] = [...(into[field] ?? []), ...more];
      }
    }
  }
  const newest = slices.map((s) => s.metadata.resourceVersion ?? "").reduce((a, b) => (compareVersions(a, b) >= 0 ? a : b), "");
  return {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: { name, namespace, resourceVersion: newest },
    subsets: compactSubsets([...byPorts.values()]),
  };
}

const compareVersions = (a: string, b: string) => (/^\d+$/.test(a) && /^\d+$/.test(b) ? Number(a) - Number(b) : a < b ? -1 : a > b ? 1 : 0);

/** An informer `transform` keeping each slice as far as the decisions read it (as endpointsCompactor). */
export function slicesCompactor(): (slice: Slice) => Slice {
  const share = sharedShapes<{ endpoints: SliceEndpoint[]; ports: SlicePort[] }>();
  return (slice) => {
    const { name, namespace, resourceVersion } = slice.metadata;
    const service = sliceService(slice)?.slice((namespace ?? "").length + 1);
    const subsets = compactSubsets([sliceSubset(slice)]);
    const [subset] = subsets;
    const endpoint =
      (ready: boolean) =>
      (a: EndpointAddress): SliceEndpoint => ({ addresses: [a.ip], conditions: { ready }, ...(a.hostname && { hostname: a.hostname }) });
    const body = {
      endpoints: [...(subset?.addresses ?? []).map(endpoint(true)), ...(subset?.notReadyAddresses ?? []).map(endpoint(false))],
      ports: (subset?.ports ?? []) as SlicePort[],
    };
    return {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { name, namespace, resourceVersion, ...(service && { labels: { [SERVICE_NAME_LABEL]: service } }) },
      ...(hasHostname(subsets) ? body : share(body)),
    } as Slice;
  };
}

/** The target's "Endpoints" of each Service, read from its EndpointSlices (a read-only cache view). */
export class RemoteSlices implements ReadonlyCache<SliceEps> {
  /** `ns/service` → key (`ns/slice`) of its slice, or the keys when it has several (most have one). */
  private readonly byService = new Map<string, string | Set<string>>();
  private readonly unsubscribe: () => void;

  constructor(private readonly informer: Informer<Slice>) {
    this.unsubscribe = informer.on((e) => {
      const before = e.type === "updated" ? sliceService(e.old) : undefined;
      const now = sliceService(e.object);
      if (before !== undefined && before !== now) this.unindex(before, e.key);
      if (now === undefined) return;
      if (e.type === "deleted") this.unindex(now, e.key);
      else this.index(now, e.key);
    });
  }

  close(): void {
    this.unsubscribe();
    this.byService.clear();
  }

  get(namespace: string | undefined, name: string): SliceEps | undefined {
    const keys = this.byService.get(`${namespace ?? ""}/${name}`);
    if (keys === undefined) return undefined;
    const slices = (typeof keys === "string" ? [keys] : [...keys])
      .map((k) => this.informer.cache.getByKey(k))
      .filter((s): s is Slice => s !== undefined);
    return endpointsFromSlices(namespace ?? "", name, slices) as SliceEps;
  }

  getByKey(key: string): SliceEps | undefined {
    const slash = key.indexOf("/");
    return slash < 0 ? this.get(undefined, key) : this.get(key.slice(0, slash), key.slice(slash + 1));
  }

  list(): SliceEps[] {
    return this.keys().map((k) => this.getByKey(k)!);
  }

  keys(): string[] {
    return [...this.byService.keys()].sort();
  }

  get size(): number {
    return this.byService.size;
  }

  private index(service: string, key: string): void {
    const have = this.byService.get(service);
    if (have === undefined || have === key) this.byService.set(service, key);
    else if (typeof have === "string") this.byService.set(service, new Set([have, key]));
    else have.add(key);
  }

  private unindex(service: string, key: string): void {
    const have = this.byService.get(service);
    if (have === key) this.byService.delete(service);
    else if (have instanceof Set) {
      have.delete(key);
      if (have.size === 1) this.byService.set(service, [...have][0]!);
    }
  }
}
