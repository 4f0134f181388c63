// The decisions behind the mirror checks: which local Services are mirrors, which lack endpoints, which belong to no Link, which lag behind
// their target or are missing from the server though their target is exported, which foreign Services sit on a name a mirror needs, and
// which federated Services list members of clusters that have no Link. Pure: listed objects in, findings out.
import { memberCluster, membersOf } from "../model/federated.ts";
import * as L from "../model/labels.ts";
import { isSelectedBy, type Link } from "../model/link.ts";
import { DEFAULT_MIRROR_NAME_TEMPLATE, localNamespace, mirrorNameOf, mirrorTarget } from "../model/mirror-names.ts";
import { isFederatedService, isHeadless } from "../model/service.ts";

export interface ObjectLike {
  metadata: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    resourceVersion?: string;
  };
}

export interface EndpointsLike extends ObjectLike {
  subsets?: { addresses?: unknown[]; notReadyAddresses?: unknown[] }[] | null;
}

/** How many names a finding lists before "and N more". */
const LIST_LIMIT = 5;

const key = (o: ObjectLike) => `${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`;

/** `a, b, c and 4 more`: the first few keys, sorted, so the line stays short and stable. */
export function listFew(keys: readonly string[], limit = LIST_LIMIT): string {
  const sorted = [...keys].sort();
  const shown = sorted.slice(0, limit).join(", ");
  return sorted.length > limit ? `${shown} and ${sorted.length - limit} more` : shown;
}

/** A Service one of our controllers made for a target Service (not the probe Service, not a federated one). */
function isServiceMirror(svc: ObjectLike): boolean {
  const l = svc.metadata.labels ?? {};
  return l[L.MIRRORED_SERVICE] === "true" && !!l[L.CLUSTER_NAME] && l[L.MIRRORED_GATEWAY] === undefined;
}

/** Mirrors routed through the gateway, which need Endpoints (remote-discovery mirrors have none by design). */
export function needsEndpoints(svc: ObjectLike): boolean {
  return isServiceMirror(svc) && svc.metadata.labels?.[L.MC_REMOTE_DISCOVERY] === undefined;
}

/** One of mc's EndpointSlices of a mirror (`--mirror-endpoint-slices`). */
export interface SliceLike extends ObjectLike {
  endpoints?: unknown[] | null;
}

/**
 * Mirrors with no address at all (ready or not) in either form: their Endpoints, or the
 * EndpointSlices mc wrote for them (`slices`: those labelled managed-by mc).
 */
export function mirrorsWithoutEndpoints(
  services: readonly ObjectLike[],
  endpoints: readonly EndpointsLike[],
  slices: readonly SliceLike[] = [],
): string[] {
  const byKey = new Map(endpoints.map((e) => [key(e), e]));
  const sliced = new Set(
    slices
      .filter((s) => s.metadata.labels?.[L.SLICE_MANAGED_BY] === L.MC_SLICE_MANAGER && (s.endpoints?.length ?? 0) > 0)
      .map((s) => `${s.metadata.namespace ?? ""}/${s.metadata.labels?.[L.SLICE_SERVICE_NAME] ?? ""}`),
  );
  return services
    .filter(needsEndpoints)
    .filter((svc) => {
      if (sliced.has(key(svc))) return false;
      const ep = byKey.get(key(svc));
      return !(ep?.subsets ?? []).some((s) => (s.addresses?.length ?? 0) + (s.notReadyAddresses?.length ?? 0) > 0);
    })
    .map(key);
}

/** Mirrors whose cluster-name label names no Link, grouped by that name. */
export function orphanMirrors(services: readonly ObjectLike[], clusterNames: ReadonlySet<string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const svc of services.filter(isServiceMirror)) {
    const c = svc.metadata.labels?.[L.CLUSTER_NAME] ?? "";
    if (clusterNames.has(c)) continue;
    out.set(c, [...(out.get(c) ?? []), key(svc)]);
  }
  return out;
}

/**
 * The target Service a mirror stands for, as `ns/name`, from its labels and annotations (never
 * its name, which a template or an annotation may have chosen); undefined for endpoint mirrors
 * (they follow Endpoints) and for a mirror that says neither.
 */
function targetOf(svc: ObjectLike): string | undefined {
  const l = svc.metadata.labels ?? {};
  if (l[L.HEADLESS_MIRROR_SVC_NAME] !== undefined) return undefined;
  const target = mirrorTarget(svc.metadata);
  const name = l[L.MC_REMOTE_SERVICE] ?? target?.name;
  // The target's namespace from the annotation: --namespace-map may have put the mirror in another.
  return name === undefined ? undefined : `${target?.namespace ?? svc.metadata.namespace ?? ""}/${name}`;
}

export interface SyncFinding {
  mirror: string;
  problem: "target-gone" | "stale";
}

/** Mirrors of `cluster` whose target is gone or whose remote-resource-version differs from the target's resourceVersion. */
export function outOfSync(mirrors: readonly ObjectLike[], cluster: string, targets: readonly ObjectLike[]): SyncFinding[] {
  const rv = new Map(targets.map((t) => [key(t), t.metadata.resourceVersion ?? ""]));
  const out: SyncFinding[] = [];
  for (const m of mirrors) {
    if (!isServiceMirror(m) || m.metadata.labels?.[L.CLUSTER_NAME] !== cluster) continue;
    const target = targetOf(m);
    if (target === undefined) continue;
    const remote = rv.get(target);
    if (remote === undefined) out.push({ mirror: key(m), problem: "target-gone" });
    else if (m.metadata.annotations?.[L.REMOTE_RESOURCE_VERSION] !== remote) out.push({ mirror: key(m), problem: "stale" });
  }
  return out;
}

/** A target Service as `mc check` lists it (ports and headless-ness matter for whether it is mirrored). */
export interface TargetLike extends ObjectLike {
  spec?: { ports?: unknown[]; clusterIP?: string };
}

/** Targets the Link's status lists as skipped on purpose (no namespace, invalid) or blocked by a foreign Service: `ns/name`. */
function skippedTargets(link: Link): Set<string> {
  const out = new Set<string>();
  for (const entry of link.status.mirrorServices ?? []) {
    const e = entry as { remoteRef?: { namespace?: string; name?: string }; conditions?: Array<{ reason?: string; localRef?: unknown }> };
    const deliberate = (e.conditions ?? []).some(
      (c) => c.reason === "MissingNamespace" || c.reason === "InvalidService" || c.localRef !== undefined,
    );
    if (deliberate && e.remoteRef) out.add(`${e.remoteRef.namespace ?? ""}/${e.remoteRef.name ?? ""}`);
  }
  return out;
}

/**
 * Mirrors the server lacks (`ns/<svc>-<cluster>`) though the Link exports their target: selected
 * (through a gateway the Link has, or for remote discovery), with ports, not listed as skipped in
 * the Link's status. Headless targets mirrored through the gateway are left out: whether their
 * mirror waits for endpoints depends on the controller's flags.
 */
export function missingMirrors(
  link: Link,
  mirrors: readonly ObjectLike[],
  targets: readonly TargetLike[],
  skipped: ReadonlySet<string> = skippedTargets(link),
  naming: Naming = DEFAULT_NAMING,
): string[] {
  const c = link.targetClusterName;
  // Whatever their names: the targets our mirrors say they stand for.
  const have = new Set(mirrors.filter((m) => m.metadata.labels?.[L.CLUSTER_NAME] === c).map(targetOf));
  const out: string[] = [];
  for (const t of targets) {
    const labels = t.metadata.labels;
    const remoteDiscovery = isSelectedBy(link.remoteDiscoverySelector, labels);
    if (!remoteDiscovery && !(link.gateway && isSelectedBy(link.selector, labels))) continue;
    if ((t.spec?.ports ?? []).length === 0 || skipped.has(key(t))) continue;
    if (!remoteDiscovery && isHeadless(t)) continue;
    if (!have.has(key(t))) out.push(mirrorKeyOf(naming, t, c));
  }
  return out.sort();
}

/** Where the controller puts mirrors: its name template and `--namespace-map`. */
export interface Naming {
  template: string;
  namespaceMap: Readonly<Record<string, string>>;
}

const DEFAULT_NAMING: Naming = { template: DEFAULT_MIRROR_NAME_TEMPLATE, namespaceMap: {} };

/** The mirror of target `t` from cluster `c`, `ns/name`: the namespace map's namespace (else its own), its annotation's name, else the template's. */
function mirrorKeyOf(naming: Naming, t: ObjectLike, c: string): string {
  const namespace = t.metadata.namespace ?? "";
  const name = mirrorNameOf(naming.template, { name: t.metadata.name ?? "", namespace, annotations: t.metadata.annotations }, c).name;
  return `${localNamespace(naming.namespaceMap, namespace)}/${name}`;
}

/**
 * Exported target Services whose mirror name (the controller's template, or the target's
 * annotation) is taken by a local Service that is not our mirror of them — a plain Service,
 * another Link's mirror, or this Link's mirror of another target — as `ns/<name> (target)`.
 */
export function blockedMirrorNames(
  link: Link,
  targets: readonly ObjectLike[],
  local: readonly ObjectLike[],
  naming: Naming = DEFAULT_NAMING,
): string[] {
  const c = link.targetClusterName;
  const byKey = new Map(local.map((s) => [key(s), s]));
  const out: string[] = [];
  for (const t of targets) {
    const labels = t.metadata.labels;
    if (!isSelectedBy(link.selector, labels) && !isSelectedBy(link.remoteDiscoverySelector, labels)) continue;
    const name = mirrorKeyOf(naming, t, c);
    const found = byKey.get(name);
    if (!found) continue;
    const l = found.metadata.labels ?? {};
    const ours = l[L.MIRRORED_SERVICE] === "true" && l[L.CLUSTER_NAME] === c;
    const of = ours ? targetOf(found) : undefined;
    if (ours && (of === undefined || of === key(t))) continue;
    out.push(of ? `${name} (the mirror of ${of})` : name);
  }
  return out;
}

/** Remote members of federated Services whose cluster has no Link: `ns/<svc>-federated` → its `<svc>@<cluster>` members without one. */
export function danglingMembers(services: readonly ObjectLike[], clusterNames: ReadonlySet<string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const svc of services.filter(isFederatedService)) {
    const dangling = membersOf(svc.metadata).remote.filter((m) => !clusterNames.has(memberCluster(m)));
    if (dangling.length > 0) out.set(key(svc), dangling);
  }
  return out;
}
