// Queue keys: every watched object maps to the `ns/name` of the target Service it is about (a mirror → its target, an endpoint mirror → its
// headless mirror's target, read from the annotations every mirror object carries), or to the gateway mirror's key. One type from the
// informers through the queue to reconcile and the outcomes: a ServiceKey is split into namespace and name only where an object is read.
import { CLUSTER_NAME } from "../../model/labels.ts";
import { mirrorTarget } from "../../model/mirror-names.ts";
import { GATEWAY_KEY, type Meta, type SpecialKey } from "../types.ts";

// Pure.

/** A target Service: `ns/name`. */
export type ServiceKey = `${string}/${string}`;

/** What the mirror's queue holds: target Services, the gateway mirror, the Link status, the mirrors of earlier target names. */
export type MirrorKey = ServiceKey | SpecialKey;

export function serviceKey(namespace: string, name: string): ServiceKey {
  return `${namespace}/${name}`;
}

/** Whether a cache or informer key (`ns/name` for namespaced objects) is a Service key. */
export function isServiceKey(key: string): key is ServiceKey {
  return key.includes("/");
}

/** The inverse of serviceKey (a namespace has no `/`, so the first one splits). */
export function splitServiceKey(key: ServiceKey): { namespace: string; name: string } {
  const slash = key.indexOf("/");
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** Who wants which mirror name: the keys whose mirror would be named so (claims.ts), for objects that are not ours. */
export interface NameClaims {
  claimants(namespace: string, name: string): readonly MirrorKey[];
}

/**
 * The key of a local Service, Endpoints or slice: the gateway mirror's; for our mirror objects
 * (this cluster's label) the target Service's, from their `remote-svc-fq-name` annotation (an
 * endpoint mirror's: its headless mirror's target) — never from their name, which a template may
 * have chosen; for any other object, the first key whose mirror wants its name (a foreign holder:
 * the key is re-evaluated when it appears or goes).
 */
export function keyOfLocal(
  meta: Meta,
  cluster: string,
  gateway: { namespace: string; name: string },
  claims?: NameClaims,
): MirrorKey | undefined {
  return keysOfLocal(meta, cluster, gateway, claims)[0];
}

/** Every key an event on this local object concerns: its own (keyOfLocal), and those whose mirror wants its name. */
export function keysOfLocal(meta: Meta, cluster: string, gateway: { namespace: string; name: string }, claims?: NameClaims): MirrorKey[] {
  const namespace = meta.namespace ?? "";
  const name = meta.name ?? "";
  if (namespace === gateway.namespace && name === gateway.name) return [GATEWAY_KEY];
  const target = meta.labels?.[CLUSTER_NAME] === cluster ? mirrorTarget(meta) : undefined;
  const own = target ? [serviceKey(target.namespace, target.name)] : [];
  const wanting = claims?.claimants(namespace, name) ?? [];
  return [...own, ...wanting.filter((k) => !own.includes(k as ServiceKey))];
}

/** The key of a target Service or its Endpoints. */
export function keyOfRemote(meta: Meta): ServiceKey {
  return serviceKey(meta.namespace ?? "", meta.name ?? "");
}
