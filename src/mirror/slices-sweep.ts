// Turning `--mirror-endpoint-slices` off: the slices mc wrote for this cluster's mirrors are deleted, each once its mirror has Endpoints
// again or its Service is gone, never leaving a mirror without endpoints.
import { KubeError, resources, type KubeObject, type Writer } from "../kube/index.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "../metrics.ts";
import { SLICE_SERVICE_NAME } from "../model/labels.ts";
import { mirrorSlicesSelector } from "./sources/sources.ts";
import type { KubeClient } from "../kube/index.ts";

// Run when an existing mirror gets Endpoints again (what turning the setting off looks like; a fresh
// export creates its Service too, so a controller that never had the setting lists slices only when
// someone deletes a mirror's Endpoints). One label-selected list; a ClusterRole that does not grant
// EndpointSlices (mc link renders the rule only with the setting, and Linkerd's never) logs at debug
// how to remove them: a controller that never had the setting says nothing
// (docs/linkerd-compatibility.md#endpointslice-mirrors).

export interface SweepSlicesDeps {
  local: KubeClient;
  writer: Writer;
  cluster: string;
  /** Whether the local cluster has a Service / our Endpoints of this name (the controller's views: its own writes included). */
  hasService(namespace: string, name: string): boolean;
  hasEndpoints(namespace: string, name: string): boolean;
  metrics: Metrics;
  log: Logger;
}

/** Deletes mc's slices of this cluster whose mirror has Endpoints or is gone; throws (to be retried) while one still waits for its Endpoints. Returns how many went. */
export async function sweepSlices(d: SweepSlicesDeps): Promise<number> {
  const labelSelector = mirrorSlicesSelector(d.cluster);
  let items: KubeObject[];
  try {
    ({ items } = await d.local.list<KubeObject>(resources.endpointSlice, { labelSelector }));
  } catch (err) {
    if (err instanceof KubeError && err.code === 403) {
      d.log.debug(
        `cannot list EndpointSlices to remove those left by --mirror-endpoint-slices; if any are left: kubectl delete endpointslices -A -l ${labelSelector}`,
      );
      return 0;
    }
    throw err;
  }
  let removed = 0;
  const waiting: string[] = [];
  for (const slice of items) {
    const { namespace = "", name = "", uid } = slice.metadata;
    const service = slice.metadata.labels?.[SLICE_SERVICE_NAME] ?? "";
    if (d.hasService(namespace, service) && !d.hasEndpoints(namespace, service)) {
      waiting.push(`${namespace}/${service}`);
      continue;
    }
    if (await d.writer.delete(resources.endpointSlice, namespace, name, uid ? { preconditions: { uid } } : {})) {
      removed++;
      d.metrics.apiWrites.inc({ target_cluster_name: d.cluster, verb: "delete" });
    }
  }
  if (removed > 0)
    d.log.info(
      `deleted ${removed} EndpointSlice${removed === 1 ? "" : "s"} of mirrors now written as Endpoints (--mirror-endpoint-slices is off)`,
    );
  if (waiting.length > 0)
    throw new Error(
      `EndpointSlices of ${waiting.slice(0, 3).join(", ")}${waiting.length > 3 ? ` and ${waiting.length - 3} more` : ""} wait for their mirror's Endpoints`,
    );
  return removed;
}
