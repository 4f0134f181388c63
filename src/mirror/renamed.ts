// A Link whose target was renamed (`spec.targetClusterName` east → north) leaves the mirrors it made as `*-east`, which no controller of
// north looks at.
import { resources, type KubeClient, type KubeObject, type Writer } from "../kube/index.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "../metrics.ts";
import { CLUSTER_NAME, LINK_UID } from "../model/labels.ts";
import type { Link } from "../model/link.ts";

// Every mirror carries the uid of the Link that made it (LINK_UID), so the controller of the new name
// finds those of the old ones — Services, Endpoints (the gateway mirror's included), endpoint mirrors
// — and deletes them, Endpoints first, each conditional on the uid it listed. One label-selected list
// per kind, at start and on every refresh; mirrors of another Link (another uid) are never touched.

/** The label selector of this Link's mirrors under any other target name. */
export function renamedSelector(link: Pick<Link, "uid" | "targetClusterName">): string | undefined {
  // `!=` alone also matches objects without the label: require it (a copy that dropped it is not a mirror).
  return link.uid ? `${LINK_UID}=${link.uid},${CLUSTER_NAME},${CLUSTER_NAME}!=${link.targetClusterName}` : undefined;
}

/** Deletes this Link's mirrors of earlier target names; returns how many objects went. */
export async function sweepRenamed(o: { local: KubeClient; writer: Writer; link: Link; metrics: Metrics; log: Logger }): Promise<number> {
  const labelSelector = renamedSelector(o.link);
  if (!labelSelector) return 0;
  const c = o.link.targetClusterName;
  let removed = 0;
  const names = new Set<string>();
  for (const res of [resources.endpoints, resources.service]) {
    const { items } = await o.local.list<KubeObject>(res, { labelSelector });
    for (const obj of items) {
      const { namespace = "", name = "", uid } = obj.metadata;
      if (await o.writer.delete(res, namespace, name, uid ? { preconditions: { uid } } : {})) {
        removed++;
        o.metrics.apiWrites.inc({ target_cluster_name: c, verb: "delete" });
        names.add(obj.metadata.labels?.[CLUSTER_NAME] ?? "");
      }
    }
  }
  if (removed > 0) {
    const old = [...names].filter(Boolean).sort().join(", ");
    o.log.info(
      `deleted ${removed} mirror object${removed === 1 ? "" : "s"} this Link made for ${old} before its target was renamed to ${c}`,
    );
  }
  return removed;
}
