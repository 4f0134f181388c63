// The members a federated Service `<svc>-federated` lists (docs/linkerd-compatibility.md#federated): remote members as `<svc>@<cluster>` in
// the annotation `multicluster.linkerd.io/remote-discovery`, the local member's name in `multicluster.linkerd.io/local-discovery`. Read by
// the mirror, `mc unlink` and `mc check`. Pure.
import { MC_LOCAL_DISCOVERY, MC_REMOTE_DISCOVERY } from "./labels.ts";

export interface Members {
  /** `<svc>@<cluster>` entries, in the annotation's order. */
  remote: string[];
  /** The local member's Service name, if any. */
  local?: string;
}

export function membersOf(meta: { annotations?: Record<string, string> } | undefined): Members {
  const a = meta?.annotations ?? {};
  const remote = (a[MC_REMOTE_DISCOVERY] ?? "")
    .split(",")
    .map((m) => m.trim())
    .filter((m) => m !== "");
  const local = a[MC_LOCAL_DISCOVERY] ?? "";
  return { remote, ...(local !== "" && { local }) };
}

/** The cluster of a remote member `<svc>@<cluster>`. */
export function memberCluster(member: string): string {
  return member.slice(member.lastIndexOf("@") + 1);
}
