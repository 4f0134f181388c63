// What a mirror copies from its target Service: labels minus Linkerd's own keys and the Link's
// exclusions, annotations minus topology hints and exclusions (opaque ports always kept), plus
// the mirror's own labels and annotations. Pure (docs/linkerd-compatibility.md#mirror-objects).
import {
  CLUSTER_NAME,
  LINK_UID,
  MIRRORED_SERVICE,
  OPAQUE_PORTS,
  REMOTE_GATEWAY_IDENTITY,
  REMOTE_RESOURCE_VERSION,
  REMOTE_SVC_FQ_NAME,
  SVC_MIRROR_PREFIX,
  TOPOLOGY_AWARE_HINTS,
  TOPOLOGY_MODE,
} from "../../model/labels.ts";
import type { Meta } from "../types.ts";

/** Whether `key` is listed: exactly, or under an entry `prefix/*`. */
export function isExcludedKey(key: string, excluded: readonly string[]): boolean {
  for (const entry of excluded) {
    if (entry === key) return true;
    if (entry.endsWith("/*") && key.startsWith(entry.slice(0, -1))) return true;
  }
  return false;
}

/** The labels every mirror object carries; the Link's uid when it has one (a Link read from a cluster does). */
export function ownLabels(cluster: string, linkUid?: string): Record<string, string> {
  return { [MIRRORED_SERVICE]: "true", [CLUSTER_NAME]: cluster, ...(linkUid && { [LINK_UID]: linkUid }) };
}

/** Is this object a mirror made for `cluster` (the only objects the mirror updates or deletes)? */
export function isOwnedMirror(meta: Meta | undefined, cluster: string): boolean {
  return meta?.labels?.[MIRRORED_SERVICE] === "true" && meta.labels[CLUSTER_NAME] === cluster;
}

/** The target's labels a mirror or federated Service copies: all but Linkerd's own keys and the excluded ones. */
export function copiedLabels(remote: Record<string, string> | undefined, excluded: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(remote ?? {})) {
    if (key.startsWith(SVC_MIRROR_PREFIX) || isExcludedKey(key, excluded)) continue;
    out[key] = value;
  }
  return out;
}

/** The target's annotations a mirror or federated Service copies: all but topology hints and the excluded ones (opaque ports always). */
export function copiedAnnotations(remote: Record<string, string> | undefined, excluded: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(remote ?? {})) {
    if (key === TOPOLOGY_AWARE_HINTS || key === TOPOLOGY_MODE) continue;
    if (key !== OPAQUE_PORTS && isExcludedKey(key, excluded)) continue;
    out[key] = value;
  }
  return out;
}

export function mirrorLabels(
  remote: Record<string, string> | undefined,
  excluded: readonly string[],
  cluster: string,
  linkUid?: string,
): Record<string, string> {
  return { ...copiedLabels(remote, excluded), ...ownLabels(cluster, linkUid) };
}

export function mirrorAnnotations(
  remote: Record<string, string> | undefined,
  excluded: readonly string[],
  own: { fqName: string; resourceVersion: string },
): Record<string, string> {
  const out = copiedAnnotations(remote, excluded);
  out[REMOTE_SVC_FQ_NAME] = own.fqName;
  out[REMOTE_RESOURCE_VERSION] = own.resourceVersion;
  return out;
}

/** Annotations of mirror Endpoints: the fq name and, when the Link names one, the gateway identity. */
export function endpointsAnnotations(fqName: string, identity: string): Record<string, string> {
  return { [REMOTE_SVC_FQ_NAME]: fqName, ...(identity && { [REMOTE_GATEWAY_IDENTITY]: identity }) };
}

/** `<svc>.<ns>.svc.<domain>`: where the gateway forwards (Linkerd's destination reads it). */
export function remoteFqName(svc: string, namespace: string, domain: string): string {
  return `${svc}.${namespace}.svc.${domain}`;
}
