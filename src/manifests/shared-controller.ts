// The one controller that serves every Link of the extension namespace (`mc install
import * as L from "../model/labels.ts";
import {
  ADMIN_PORT_NAME,
  LINK_GROUP,
  MAX_HTTP_REQUESTS,
  MAX_HTTP_REQUESTS_ENV,
  SHARED_CONTROLLER_ACCESS_NAME,
  SHARED_CONTROLLER_LINKS_NAME,
  SHARED_CONTROLLER_NAME,
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

// --shared-controller`; mc only — Linkerd runs a controller per Link): `mc serve --all`, a
// Lease per Link, so Links made with `mc link --controller=shared` need no Deployment of their
// own. Its Role reads every credentials Secret of the namespace (the Links it will serve are not
// known when it is installed) and holds every Link's Lease; its container raises Bun's cap on
// concurrent HTTP requests, which its watches (about six per Link) would otherwise exhaust. Pure.

const RBAC = "rbac.authorization.k8s.io/v1";

export function renderSharedController(o: { controller: ControllerOptions; namespace: string; version: string }): Manifest[] {
  const labels = { [L.COMPONENT]: L.COMPONENT_SHARED_CONTROLLER };
  const meta = (name: string, namespaced: boolean) => ({ name, ...(namespaced && { namespace: o.namespace }), labels, version: o.version });
  const subjects = [{ kind: "ServiceAccount", name: SHARED_CONTROLLER_NAME, namespace: o.namespace }];
  return [
    object(RBAC, "ClusterRole", meta(SHARED_CONTROLLER_ACCESS_NAME, false), {
      rules: localAccessRules({ namespaceCreation: createsNamespaces(o.controller), endpointSlices: writesSlices(o.controller) }),
    }),
    object(RBAC, "ClusterRoleBinding", meta(SHARED_CONTROLLER_ACCESS_NAME, false), {
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: SHARED_CONTROLLER_ACCESS_NAME },
      subjects,
    }),
    object(RBAC, "Role", meta(SHARED_CONTROLLER_LINKS_NAME, true), {
      rules: [
        { apiGroups: [""], resources: ["secrets"], verbs: ["list", "get", "watch"] },
        { apiGroups: [LINK_GROUP], resources: ["links"], verbs: ["list", "get", "watch"] },
        { apiGroups: [LINK_GROUP], resources: ["links/status"], verbs: ["update", "patch"] },
        { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create", "get", "update", "patch"] },
      ],
    }),
    object(RBAC, "RoleBinding", meta(SHARED_CONTROLLER_LINKS_NAME, true), {
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: SHARED_CONTROLLER_LINKS_NAME },
      subjects,
    }),
    ...controllerWorkload({
      meta: { name: SHARED_CONTROLLER_NAME, namespace: o.namespace, labels, version: o.version },
      pods: labels,
      args: [...controllerArgs(o.namespace, o.controller), "--all"],
      controller: o.controller,
      portName: ADMIN_PORT_NAME,
      env: [{ name: MAX_HTTP_REQUESTS_ENV, value: String(MAX_HTTP_REQUESTS) }],
    }),
  ];
}
