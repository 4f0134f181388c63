// SelfSubjectAccessReviews: answered by RBAC (rbac.ts) for the requesting user from the stored
// Roles, ClusterRoles and their bindings (the bindings index, bindings.ts). Ordinary requests
// are authorized the same way only when the sandbox enforces RBAC (authorize.ts).
import type { KubeObject } from "../types.ts";
import { evaluate, type AccessAttributes, type PolicySource, type UserInfo } from "./rbac.ts";

/** The review `body` with its status filled in for `user`. */
export function answerAccessReview(policy: PolicySource, body: KubeObject, user: UserInfo): KubeObject {
  const status = evaluate(user, (body.spec ?? {}) as AccessAttributes, policy);
  return { ...body, metadata: { ...body.metadata, creationTimestamp: null as unknown as string }, status };
}
