// What kind of Service an object is, as the mirror, `mc check` and `mc unlink` all decide it. Pure.
import { CLUSTER_NAME, MIRRORED_SERVICE } from "./labels.ts";
import { FEDERATED_SUFFIX } from "./names.ts";

interface ServiceLike {
  metadata: { name?: string; labels?: Record<string, string> };
  spec?: { clusterIP?: string };
}

/** A headless Service: `clusterIP: None`. */
export function isHeadless(svc: ServiceLike | undefined): boolean {
  return svc?.spec?.clusterIP === "None";
}

/** A federated Service the mirror made: its label, no cluster (a mirror has one), its name `<svc>-federated`. */
export function isFederatedService(svc: ServiceLike | undefined): boolean {
  const l = svc?.metadata.labels;
  return l?.[MIRRORED_SERVICE] === "true" && l[CLUSTER_NAME] === undefined && (svc?.metadata.name ?? "").endsWith(FEDERATED_SUFFIX);
}
