// The remote-access account on a target (SPEC §3.2 item 4, §8 `mc allow`): the ServiceAccount
// whose token `mc link` puts in the source's kubeconfig, its token Secret, and a least-privilege
// ClusterRole — read what mirroring needs, `get` only the linkerd-config ConfigMap, and write
// Events (a skipped mirror is reported on the target Service).
import { SERVICE_ACCOUNT_NAME, SERVICE_ACCOUNT_TOKEN_SECRET_TYPE } from "../model/labels.ts";
import { LINKERD_CONFIG, tokenSecretName } from "../model/names.ts";
import { object, type Manifest } from "./meta.ts";

export interface RemoteAccessOptions {
  namespace: string;
  serviceAccount: string;
  version: string;
}

const READ = ["list", "get", "watch"];

export const REMOTE_ACCESS_RULES = [
  { apiGroups: ["apps"], resources: ["replicasets"], verbs: READ },
  { apiGroups: ["batch"], resources: ["jobs"], verbs: READ },
  { apiGroups: [""], resources: ["pods", "endpoints", "services"], verbs: READ },
  { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: READ },
  { apiGroups: ["policy.linkerd.io"], resources: ["servers"], verbs: READ },
  { apiGroups: [""], resources: ["configmaps"], verbs: ["get"], resourceNames: [LINKERD_CONFIG] },
  { apiGroups: [""], resources: ["events"], verbs: ["create", "patch"] },
];

export function renderRemoteAccess(o: RemoteAccessOptions): Manifest[] {
  const sa = o.serviceAccount;
  const subject = { kind: "ServiceAccount", name: sa, namespace: o.namespace };
  return [
    object("rbac.authorization.k8s.io/v1", "ClusterRole", { name: sa, version: o.version }, { rules: structuredClone(REMOTE_ACCESS_RULES) }),
    object("v1", "ServiceAccount", { name: sa, namespace: o.namespace, version: o.version }),
    // Since Kubernetes 1.24 no token Secret appears by itself; the token controller fills this one.
    object(
      "v1",
      "Secret",
      { name: tokenSecretName(sa), namespace: o.namespace, version: o.version, annotations: { [SERVICE_ACCOUNT_NAME]: sa } },
      { type: SERVICE_ACCOUNT_TOKEN_SECRET_TYPE },
    ),
    object("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", { name: sa, version: o.version }, {
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: sa },
      subjects: [subject],
    }),
  ];
}
