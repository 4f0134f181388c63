// The remote-access account on a target (`mc allow`): the ServiceAccount `mc link` hands to the source, its token, a least-privilege role.
import { remoteAccessRules, type TargetAccessModes } from "../model/access.ts";
import { SERVICE_ACCOUNT_NAME, SERVICE_ACCOUNT_TOKEN_SECRET_TYPE } from "../model/labels.ts";
import { tokenSecretName } from "../model/names.ts";
import { object, type Manifest } from "./meta.ts";

// The remote-access account on a target (docs/linkerd-compatibility.md#remote-access, and `mc
// allow`): the ServiceAccount whose token `mc link` puts in the source's kubeconfig, its token
// Secret, and a least-privilege ClusterRole — exactly what `mc serve` and `mc check` ask of the
// target (src/model/access.ts, the table the controller's client is held to), plus, on request,
// EndpointSlices or what Linkerd's destination controller reads for remote discovery.

export interface RemoteAccessOptions {
  namespace: string;
  serviceAccount: string;
  version: string;
  /** Grants beyond mirroring; default none. */
  access?: TargetAccessModes;
}

export function renderRemoteAccess(o: RemoteAccessOptions): Manifest[] {
  const sa = o.serviceAccount;
  const subject = { kind: "ServiceAccount", name: sa, namespace: o.namespace };
  return [
    object("rbac.authorization.k8s.io/v1", "ClusterRole", { name: sa, version: o.version }, { rules: remoteAccessRules(o.access) }),
    object("v1", "ServiceAccount", { name: sa, namespace: o.namespace, version: o.version }),
    // Since Kubernetes 1.24 no token Secret appears by itself; the token controller fills this one.
    object(
      "v1",
      "Secret",
      { name: tokenSecretName(sa), namespace: o.namespace, version: o.version, annotations: { [SERVICE_ACCOUNT_NAME]: sa } },
      { type: SERVICE_ACCOUNT_TOKEN_SECRET_TYPE },
    ),
    object(
      "rbac.authorization.k8s.io/v1",
      "ClusterRoleBinding",
      { name: sa, version: o.version },
      {
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: sa },
        subjects: [subject],
      },
    ),
  ];
}
