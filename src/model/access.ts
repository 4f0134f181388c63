// What mc asks of a target cluster with a Link's credentials, as RBAC rules: one table, read by the renderer of the remote-access
// ClusterRole (`mc install`, `mc allow`), by `mc check`'s access reviews, and by the kube layer, whose client for the target refuses any
// call outside it — so a controller that starts calling something new fails its tests instead of drifting from the rendered role. Pure.
import { LINKERD_CONFIG } from "./names.ts";

type AccessVerb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete";

/** An RBAC PolicyRule (rbac.authorization.k8s.io/v1), as a ClusterRole holds it. */
export interface AccessRule {
  apiGroups: readonly string[];
  resources: readonly string[];
  verbs: readonly AccessVerb[];
  resourceNames?: readonly string[];
}

const READ: readonly AccessVerb[] = ["list", "get", "watch"];

/** The parts of the table, each with who needs it. */
export const TARGET_ACCESS = {
  /** `mc serve`: the exported Services and their Endpoints (informers list, then watch), and an Event on a target Service it skips. */
  mirror: [
    { apiGroups: [""], resources: ["services", "endpoints"], verbs: ["list", "watch"] },
    { apiGroups: [""], resources: ["events"], verbs: ["create"] },
  ],
  /**
   * `mc serve`'s import of the Multi-Cluster Services API: the target's ServiceExports (the Services
   * they name are read as `mirror` reads Services). Rendered by default; without it the import is off.
   */
  mcs: [{ apiGroups: ["multicluster.x-k8s.io"], resources: ["serviceexports"], verbs: ["list", "watch"] }],
  /** `mc check`, with the Link's credentials: the target's trust anchors. */
  check: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"], resourceNames: [LINKERD_CONFIG] }],
  /** `mc serve --namespace-selector`: the target's Namespaces, to know which are selected. */
  namespaces: [{ apiGroups: [""], resources: ["namespaces"], verbs: ["list", "watch"] }],
  /** `mc serve --enable-endpoint-slices`: the target's EndpointSlices rather than its Endpoints. */
  endpointSlices: [{ apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "watch"] }],
  /**
   * Linkerd's destination controller in the source cluster reads the target with the same
   * credentials for remote discovery (pod-to-pod): what Linkerd's own ClusterRole grants.
   */
  remoteDiscovery: [
    { apiGroups: ["apps"], resources: ["replicasets"], verbs: READ },
    { apiGroups: ["batch"], resources: ["jobs"], verbs: READ },
    { apiGroups: [""], resources: ["pods", "endpoints", "services"], verbs: READ },
    { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: READ },
    { apiGroups: ["policy.linkerd.io"], resources: ["servers"], verbs: READ },
  ],
} as const satisfies Record<string, readonly AccessRule[]>;

/** Beyond mirroring and checking, what the remote-access account may also be granted. */
export interface TargetAccessModes {
  /** `--endpoint-slices-access`: for a controller run with `--enable-endpoint-slices`. */
  endpointSlices?: boolean;
  /** `--remote-discovery-access`: for Linkerd's destination controller (remote discovery). */
  remoteDiscovery?: boolean;
  /** `--namespaces-access`: for a controller run with `--namespace-selector`. */
  namespaces?: boolean;
}

/** The rules of the remote-access ClusterRole. */
export function remoteAccessRules(modes: TargetAccessModes = {}): AccessRule[] {
  return structuredClone([
    ...TARGET_ACCESS.mirror,
    ...TARGET_ACCESS.mcs,
    ...TARGET_ACCESS.check,
    ...(modes.endpointSlices && !modes.remoteDiscovery ? TARGET_ACCESS.endpointSlices : []),
    ...(modes.remoteDiscovery ? TARGET_ACCESS.remoteDiscovery : []),
    ...(modes.namespaces ? TARGET_ACCESS.namespaces : []),
  ]) as AccessRule[];
}

/** What the controller's client for the target may do. */
export function controllerAccess(modes: Pick<TargetAccessModes, "endpointSlices" | "namespaces"> = {}): AccessRule[] {
  return [
    ...TARGET_ACCESS.mirror,
    ...TARGET_ACCESS.mcs,
    ...(modes.endpointSlices ? TARGET_ACCESS.endpointSlices : []),
    ...(modes.namespaces ? TARGET_ACCESS.namespaces : []),
  ];
}

/** One (verb, resource) a rule list grants, for access reviews: `list endpoints`, `get configmaps linkerd-config`. */
export interface AccessAttributes {
  verb: AccessVerb;
  group: string;
  resource: string;
  name?: string;
}

/** Every (verb, resource, name) the rules grant, one each. */
export function accessAttributes(rules: readonly AccessRule[]): AccessAttributes[] {
  return rules.flatMap((r) =>
    r.apiGroups.flatMap((group) =>
      r.resources.flatMap((resource) =>
        r.verbs.flatMap((verb) =>
          r.resourceNames?.length ? r.resourceNames.map((name) => ({ verb, group, resource, name })) : [{ verb, group, resource }],
        ),
      ),
    ),
  );
}

/** Whether the rules allow `verb` on `resource` of `group` (named `name`, for calls on one object), as RBAC decides it. */
export function allows(rules: readonly AccessRule[], a: AccessAttributes): boolean {
  return rules.some(
    (r) =>
      r.apiGroups.includes(a.group) &&
      r.resources.includes(a.resource) &&
      r.verbs.includes(a.verb) &&
      (!r.resourceNames?.length || (a.name !== undefined && r.resourceNames.includes(a.name))),
  );
}
