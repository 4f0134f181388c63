// A Link deleted and made again (`kubectl delete link` and a fresh `mc link | kubectl apply`, a GitOps re-sync, `kubectl replace --force`)
// has a new uid; the mirrors of its target name keep the old one (the uid label alone is never a reason for a write), so a later rename or
// unlink, which find this Link's mirrors by uid, would leave them behind.
import { isConflict, isNotFound, resources, type KubeClient, type KubeObject, type ResourceType, type Writer } from "../kube/index.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "../metrics.ts";
import { CLUSTER_NAME, LINK_UID } from "../model/labels.ts";
import { linkResource, type Link } from "../model/link.ts";

// Adoption: a mirror of this cluster name carrying another Link's uid, when no Link of this namespace
// has that uid any more, is relabelled with this Link's uid (and only then: another live Link's
// mirrors are its own). One label-selected list per kind, at start and on every refresh, before the
// renamed sweep; the namespace's Links are read only when there is something to adopt. Each write is
// conditional on the resourceVersion listed (one that changed meanwhile waits for the next refresh).

/** The label selector of mirrors of this Link's target name that carry another Link's uid. */
function adoptableSelector(link: Pick<Link, "uid" | "targetClusterName">): string | undefined {
  return link.uid && link.targetClusterName ? `${CLUSTER_NAME}=${link.targetClusterName},${LINK_UID},${LINK_UID}!=${link.uid}` : undefined;
}

/** Relabels the mirrors of a deleted Link of this target name with this Link's uid; returns how many. */
export async function adoptMirrors(o: {
  local: KubeClient;
  writer: Writer;
  link: Link;
  namespace: string;
  metrics: Metrics;
  log: Logger;
}): Promise<number> {
  const labelSelector = adoptableSelector(o.link);
  const uid = o.link.uid;
  if (!labelSelector || !uid) return 0;
  const c = o.link.targetClusterName;
  const found: Array<[ResourceType, KubeObject]> = [];
  for (const res of [resources.service, resources.endpoints]) {
    for (const obj of (await o.local.list<KubeObject>(res, { labelSelector })).items) found.push([res, obj]);
  }
  if (found.length === 0) return 0;
  const live = new Set((await o.local.list<KubeObject>(linkResource, { namespace: o.namespace })).items.map((l) => l.metadata.uid));
  let adopted = 0;
  const from = new Set<string>();
  for (const [res, obj] of found) {
    const old = obj.metadata.labels?.[LINK_UID] ?? "";
    if (live.has(old)) continue; // another Link's, alive: not ours
    try {
      await o.writer.update(res, { ...obj, metadata: { ...obj.metadata, labels: { ...obj.metadata.labels, [LINK_UID]: uid } } });
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) continue; // changed or gone since listed: the next refresh looks again
      throw err;
    }
    o.metrics.apiWrites.inc({ target_cluster_name: c, verb: "update" });
    adopted++;
    from.add(old);
  }
  if (adopted > 0)
    o.log.info(
      `adopted ${adopted} mirror object${adopted === 1 ? "" : "s"} of ${c} made by a Link that no longer exists (uid ${[...from].sort().join(", ")})`,
    );
  return adopted;
}
