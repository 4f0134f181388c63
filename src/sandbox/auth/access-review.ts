// SelfSubjectAccessReviews: answered by RBAC (rbac.ts) for the requesting user from the stored
// Roles, ClusterRoles and their bindings. Ordinary requests are not authorized (see
// docs/decisions.md): only these reviews ask.
import type { Store } from "../storage/store.ts";
import type { KubeObject } from "../types.ts";
import { evaluate, type AccessAttributes, type UserInfo } from "./rbac.ts";

/** The review `body` with its status filled in for `user`. */
export function answerAccessReview(store: Store, body: KubeObject, user: UserInfo): KubeObject {
  const rbac = (plural: string) => store.scan({ group: "rbac.authorization.k8s.io", plural });
  const policy = { roles: rbac("roles"), roleBindings: rbac("rolebindings"), clusterRoles: rbac("clusterroles"), clusterRoleBindings: rbac("clusterrolebindings") };
  const status = evaluate(user, (body.spec ?? {}) as AccessAttributes, policy);
  return { ...body, metadata: { ...body.metadata, creationTimestamp: null as unknown as string }, status };
}
