// The controllers an install renders, one per Link it will serve (`mc install --controllers east,north`), as Linkerd 2.18's chart does.
import * as L from "../model/labels.ts";
import {
  credentialsSecretName,
  INSTALL_CONTROLLER_ACCESS_NAME,
  INSTALL_CONTROLLER_ADMIN_PORT_NAME,
  installControllerAccessName,
  installControllerCredsName,
  installControllerName,
  installProbeName,
  LINK_GROUP,
  leaseName,
  PROBE_PORT_NAME,
} from "../model/names.ts";
import { object, type Manifest } from "./meta.ts";
import {
  controllerArgs,
  controllerWorkload,
  createsNamespaces,
  localAccessRules,
  writesSlices,
  type ControllerOptions,
} from "./service-mirror.ts";

// The controllers an install renders, one per Link it will serve (`mc install --controllers
// east,north`), as Linkerd 2.18's chart renders `controllers[]` (templates/controller/*.yaml and
// controller-clusterrole.yaml): one ClusterRole for them all; per Link a ServiceAccount,
// Deployment and (HA) PodDisruptionBudget `controller-<c>`, a ClusterRoleBinding, a Role and
// RoleBinding `controller-read-remote-creds-<c>`, and the probe Service `probe-<c>` while the
// Link has a gateway. The Link and its Secrets come later, from `mc link-gen` (GitOps: the
// install is applied once, links come and go). Each runs `mc serve <c>` like mc link's. Pure.

export interface InstallController {
  /** The Link's name (its target cluster's): `link.ref.name` in the chart. */
  clusterName: string;
  controller: ControllerOptions;
  /** The target gateway's probe port (the chart's `gateway.probe.port`, 4191); null: the Link has no gateway (`gateway.enabled: false`). */
  probePort: number | null;
}

const RBAC = "rbac.authorization.k8s.io/v1";

/** The local rights every controller needs, once for all (the chart's controller-clusterrole.yaml): namespaces create when one of them creates namespaces, EndpointSlices when one writes them. */
function renderAccessRole(version: string, controllers: readonly InstallController[]): Manifest {
  return object(
    RBAC,
    "ClusterRole",
    { name: INSTALL_CONTROLLER_ACCESS_NAME, labels: { [L.COMPONENT]: L.COMPONENT_CONTROLLER }, version },
    {
      rules: localAccessRules({
        namespaceCreation: controllers.some((c) => createsNamespaces(c.controller)),
        endpointSlices: controllers.some((c) => writesSlices(c.controller)),
      }),
    },
  );
}

export function renderInstallControllers(o: { controllers: readonly InstallController[]; namespace: string; version: string }): Manifest[] {
  if (o.controllers.length === 0) return [];
  return [renderAccessRole(o.version, o.controllers), ...o.controllers.flatMap((c) => renderOne(c, o.namespace, o.version))];
}

function renderOne(o: InstallController, ns: string, version: string): Manifest[] {
  const c = o.clusterName;
  const name = installControllerName(c);
  const labels = { [L.COMPONENT]: L.COMPONENT_CONTROLLER, [L.CLUSTER_NAME]: c };
  const meta = (n: string, namespaced = true) => ({ name: n, ...(namespaced && { namespace: ns }), labels, version });
  const subjects = [{ kind: "ServiceAccount", name, namespace: ns }];
  const probeService = o.probePort !== null ? installProbeName(c) : undefined;
  const args = [
    ...controllerArgs(ns, { ...o.controller, settings: { ...o.controller.settings, ...(probeService && { probeService }) } }),
    c,
  ];
  const out: Manifest[] = [
    object(RBAC, "ClusterRoleBinding", meta(installControllerAccessName(c), false), {
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: INSTALL_CONTROLLER_ACCESS_NAME },
      subjects,
    }),
    object(RBAC, "Role", meta(installControllerCredsName(c)), {
      rules: [
        { apiGroups: [""], resources: ["secrets"], resourceNames: [credentialsSecretName(c)], verbs: ["list", "get", "watch"] },
        { apiGroups: [LINK_GROUP], resources: ["links"], verbs: ["list", "get", "watch"] },
        { apiGroups: [LINK_GROUP], resources: ["links/status"], verbs: ["update", "patch"] },
        // create cannot be limited by name; everything else touches only this link's Lease.
        { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
        { apiGroups: ["coordination.k8s.io"], resources: ["leases"], resourceNames: [leaseName(c)], verbs: ["get", "update", "patch"] },
      ],
    }),
    object(RBAC, "RoleBinding", meta(installControllerCredsName(c)), {
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: installControllerCredsName(c) },
      subjects,
    }),
    ...controllerWorkload({
      meta: { name, namespace: ns, labels, version },
      pods: labels,
      args,
      controller: o.controller,
      portName: INSTALL_CONTROLLER_ADMIN_PORT_NAME,
    }),
  ];
  if (o.probePort !== null) {
    out.push(
      object(
        "v1",
        "Service",
        { name: installProbeName(c), namespace: ns, labels: { [L.MIRRORED_GATEWAY]: "true", [L.CLUSTER_NAME]: c }, version },
        {
          spec: { ports: [{ name: PROBE_PORT_NAME, port: o.probePort, protocol: "TCP" }] },
        },
      ),
    );
  }
  return out;
}
