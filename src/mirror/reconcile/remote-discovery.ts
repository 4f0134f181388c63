// How a target Service is exported (docs/linkerd-compatibility.md#export-modes): through the gateway (the Link's `selector`, and only when
// the Link has a gateway), or for remote discovery (`remoteDiscoverySelector`, flat pod networks: Linkerd's destination resolves the
// endpoints in the target itself, so the mirror is a Service with no Endpoints).
import { MC_REMOTE_DISCOVERY, MC_REMOTE_SERVICE } from "../../model/labels.ts";
import { isSelectedBy, type Link } from "../../model/link.ts";
import type { ServiceObject } from "../types.ts";

// A Service both select is mirrored for remote discovery, as Linkerd's `isRemoteDiscovery` check wins
// there. A missing or empty selector selects nothing. Pure.

export type ExportMode = "gateway" | "remote-discovery";

/** How `svc` is exported by `link` (null: not at all). Gateway mode needs a gateway. */
export function exportMode(link: Link, svc: ServiceObject | undefined, hasGateway: boolean): ExportMode | null {
  if (!svc) return null;
  const labels = svc.metadata.labels;
  if (isSelectedBy(link.remoteDiscoverySelector, labels)) return "remote-discovery";
  if (hasGateway && isSelectedBy(link.selector, labels)) return "gateway";
  return null;
}

/** A remote-discovery mirror's labels: the mirror's, plus which cluster resolves it and under which name. */
export function remoteDiscoveryLabels(mirror: Record<string, string>, cluster: string, remoteName: string): Record<string, string> {
  return { ...mirror, [MC_REMOTE_DISCOVERY]: cluster, [MC_REMOTE_SERVICE]: remoteName };
}
