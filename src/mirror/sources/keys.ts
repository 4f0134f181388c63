// Queue keys: every watched object maps to the `ns/name` of the target Service it is about
// (a mirror `web-east` → `ns/web`, an endpoint mirror → its headless mirror's target), or to
// the gateway mirror's key. One type from the informers through the queue to reconcile and the
// outcomes: a ServiceKey is split into namespace and name only where an object is read. Pure.
import { CLUSTER_NAME, HEADLESS_MIRROR_SVC_NAME } from "../../model/labels.ts";
import { targetName } from "../../model/names.ts";
import { GATEWAY_KEY, type Meta, type SpecialKey } from "../types.ts";

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

/**
 * The key of a local Service or Endpoints: the gateway mirror's, or the target Service's whose
 * mirror (or endpoint mirror) it is or could be. Foreign objects named `<x>-<cluster>` map too,
 * so the key is re-evaluated when one appears or goes away.
 */
export function keyOfLocal(meta: Meta, cluster: string, gateway: { namespace: string; name: string }): MirrorKey | undefined {
  const namespace = meta.namespace ?? "";
  const name = meta.name ?? "";
  if (namespace === gateway.namespace && name === gateway.name) return GATEWAY_KEY;
  const headlessOf = meta.labels?.[CLUSTER_NAME] === cluster ? meta.labels?.[HEADLESS_MIRROR_SVC_NAME] : undefined;
  const remote = targetName(headlessOf ?? name, cluster);
  return remote === undefined ? undefined : serviceKey(namespace, remote);
}

/** The key of a target Service or its Endpoints. */
export function keyOfRemote(meta: Meta): ServiceKey {
  return serviceKey(meta.namespace ?? "", meta.name ?? "");
}
