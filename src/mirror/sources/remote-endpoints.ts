// The target's Endpoints as the mirror keeps them.
import type { EndpointAddress, EndpointPort, EndpointSubset, EndpointsObject } from "../types.ts";

// They are watched unfiltered — their labels are not their Service's (the endpoints controller copies
// labels only for Services with a selector; hand-managed Endpoints of a selector-less Service carry
// none) — so every Endpoints object of the target is cached, exported or not, and each is kept only as
// far as a mirror decision reads it (desired.ts, headless.ts): whether an address is ready, whether
// any address (ready or not) has a hostname, and per subset the ready addresses' hostnames and the
// ports.
// - Addresses keep no IP (ip ""): the mirror routes to the gateway, never to a target's pods.
//   Those without a hostname collapse to one per subset and readiness.
// - Labels, annotations, uid, targetRefs and node names are dropped; name, namespace and
//   resourceVersion stay.
// - Subsets without hostnames (every Service but a headless one) come in few shapes — their
//   ports and readiness — so each shape is stored once and shared: a cached Endpoints object of
//   such a Service is its metadata and a reference. A Service with a thousand pods costs what
//   one with a single pod does (bench/remote-endpoints-memory.ts).

/** Shared subset shapes kept per informer; past this many distinct shapes new ones are not shared. */
const SHAPE_LIMIT = 1024;

function keptAddresses(addresses: readonly EndpointAddress[] | undefined, everyHostname: boolean): EndpointAddress[] {
  const out: EndpointAddress[] = [];
  let plain = false;
  let named = false;
  for (const a of addresses ?? []) {
    if (a.hostname) {
      if (everyHostname || !named) out.push({ ip: "", hostname: a.hostname });
      named = true;
    } else if (!plain) {
      out.push({ ip: "" });
      plain = true;
    }
  }
  return out;
}

const keptPort = (p: EndpointPort): EndpointPort => ({
  ...(p.name && { name: p.name }),
  ...(p.protocol && { protocol: p.protocol }),
  port: p.port,
});

/** The subsets as a decision reads them (ready hostnames kept, the rest collapsed). Pure. */
export function compactSubsets(subsets: readonly EndpointSubset[] | null | undefined): EndpointSubset[] {
  return (subsets ?? []).map((s): EndpointSubset => {
    const addresses = keptAddresses(s.addresses, true);
    const notReadyAddresses = keptAddresses(s.notReadyAddresses, false);
    return {
      ...(addresses.length > 0 && { addresses }),
      ...(notReadyAddresses.length > 0 && { notReadyAddresses }),
      ...(s.ports && { ports: s.ports.map(keptPort) }),
    };
  });
}

export const hasHostname = (subsets: readonly EndpointSubset[]): boolean =>
  subsets.some((s) => [...(s.addresses ?? []), ...(s.notReadyAddresses ?? [])].some((a) => a.hostname));

function freeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) freeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * Values stored once and shared: `share(v)` returns an earlier equal value (frozen) when there is
 * one. Only for values with few distinct shapes; past SHAPE_LIMIT shapes new ones are not kept.
 */
export function sharedShapes<T>(): (value: T) => T {
  const shapes = new Map<string, T>();
  return (value) => {
    const key = JSON.stringify(value);
    const shared = shapes.get(key);
    if (shared !== undefined) return shared;
    if (shapes.size < SHAPE_LIMIT) shapes.set(key, freeze(value));
    return value;
  };
}

/** An informer `transform` that keeps each target Endpoints object compact, sharing subset shapes. */
export function endpointsCompactor<T extends EndpointsObject>(): (ep: T) => T {
  const share = sharedShapes<EndpointSubset[]>();
  return (ep) => {
    const compact = compactSubsets(ep.subsets);
    const subsets = hasHostname(compact) ? compact : share(compact);
    const { name, namespace, resourceVersion } = ep.metadata;
    return { apiVersion: "v1", kind: "Endpoints", metadata: { name, namespace, resourceVersion }, subsets } as unknown as T;
  };
}
