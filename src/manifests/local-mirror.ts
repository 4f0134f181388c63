// The local service mirror (docs/linkerd-compatibility.md#local-mirror, as Linkerd's chart renders it): the source cluster's own Services
// joining their federated Services.
import * as L from "../model/labels.ts";
import {
  DEFAULT_FEDERATED_SERVICE_SELECTOR,
  LINK_GROUP,
  LOCAL_MIRROR_ACCESS_NAME,
  LOCAL_MIRROR_ADMIN_PORT_NAME,
  LOCAL_MIRROR_NAME,
} from "../model/names.ts";
import { object, type Manifest } from "./meta.ts";
import { controllerArgs, controllerWorkload, LOCAL_MCS_RULES, type ControllerOptions } from "./service-mirror.ts";

// As Linkerd's chart renders it — the ClusterRole/Binding
// `linkerd-local-service-mirror-access-local-resources` (Services and Endpoints, Namespaces, Leases,
// Links and their status), the ServiceAccount and the Deployment `linkerd-local-service-mirror`
// (component `local-service-mirror`, admin port `locsm-admin`) — running `mc serve --local` instead of
// Linkerd's `service-mirror -local-mirror`. Pure.

export interface LocalMirrorOptions {
  controller: ControllerOptions;
  /** `--federated-service-selector` of the local mirror; Linkerd's chart passes `mirror.linkerd.io/federated=member`. */
  federatedServiceSelector?: string;
  excludedLabels?: string[];
  excludedAnnotations?: string[];
  /** `mc install --cluster-name`: the cluster's name in the ClusterSet, so the local mirror imports its own ServiceExports and writes their conditions. */
  clusterName?: string;
}

const RBAC = "rbac.authorization.k8s.io/v1";

export function renderLocalMirror(o: LocalMirrorOptions & { namespace: string; version: string }): Manifest[] {
  const labels = { [L.COMPONENT]: L.COMPONENT_LOCAL_SERVICE_MIRROR };
  const cluster = (name: string) => ({ name, labels, version: o.version });
  const args = [
    ...controllerArgs(o.namespace, o.controller),
    "--local",
    `--federated-service-selector=${o.federatedServiceSelector ?? DEFAULT_FEDERATED_SERVICE_SELECTOR}`,
    `--excluded-labels=${(o.excludedLabels ?? []).join(",")}`,
    `--excluded-annotations=${(o.excludedAnnotations ?? []).join(",")}`,
    ...(o.clusterName ? [`--cluster-name=${o.clusterName}`] : []),
  ];
  return [
    object(RBAC, "ClusterRole", cluster(LOCAL_MIRROR_ACCESS_NAME), {
      rules: [
        { apiGroups: [""], resources: ["endpoints", "services"], verbs: ["list", "get", "watch", "create", "delete", "update"] },
        { apiGroups: [""], resources: ["namespaces"], verbs: ["list", "get", "watch"] },
        { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create", "get", "update", "patch"] },
        { apiGroups: [LINK_GROUP], resources: ["links"], verbs: ["list", "get", "watch"] },
        { apiGroups: [LINK_GROUP], resources: ["links/status"], verbs: ["update"] },
        ...LOCAL_MCS_RULES.map((r) => ({ apiGroups: [...r.apiGroups], resources: [...r.resources], verbs: [...r.verbs] })),
        { apiGroups: ["multicluster.x-k8s.io"], resources: ["serviceexports"], verbs: ["list", "get", "watch"] },
        { apiGroups: ["multicluster.x-k8s.io"], resources: ["serviceexports/status"], verbs: ["update", "patch"] },
      ],
    }),
    object(RBAC, "ClusterRoleBinding", cluster(LOCAL_MIRROR_ACCESS_NAME), {
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: LOCAL_MIRROR_ACCESS_NAME },
      subjects: [{ kind: "ServiceAccount", name: LOCAL_MIRROR_NAME, namespace: o.namespace }],
    }),
    ...controllerWorkload({
      meta: { name: LOCAL_MIRROR_NAME, namespace: o.namespace, labels, version: o.version },
      pods: labels,
      args,
      controller: o.controller,
      portName: LOCAL_MIRROR_ADMIN_PORT_NAME,
    }),
  ];
}
