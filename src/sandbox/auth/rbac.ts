// Access decisions as kube-apiserver's authorizer chain makes them for a SelfSubjectAccessReview: members of system:masters are always
// allowed (the privileged-group authorizer), everyone else is checked by RBAC against the stored ClusterRoleBindings, then the RoleBindings
// of the request's namespace.
import type { KubeObject } from "../types.ts";

// Ported from plugin/pkg/auth/authorizer/rbac and pkg/registry/rbac/validation (rule.go): the first
// rule that allows wins and names its binding in the reason; a denial has no reason unless a binding
// the user is a subject of points at a role that is missing. Pure: the caller passes the RBAC objects
// in, as lists or as a `PolicySource` that looks them up (bindings.ts indexes the store's bindings by
// subject, so a decision costs the user's bindings, not every object stored). Not modelled: aggregated
// ClusterRoles (aggregationRule) count only with the rules stored on them (kube's aggregation
// controller fills those in; the sandbox has none), and no bootstrap roles (system:discovery,
// system:basic-user, …) exist unless stored.

export interface UserInfo {
  name: string;
  groups: readonly string[];
}

/** What the admin token, a verified client certificate and plain http authenticate as. */
export const SANDBOX_ADMIN: UserInfo = { name: "sandbox-admin", groups: ["system:masters", "system:authenticated"] };

export const SA_PREFIX = "system:serviceaccount:";

/** The user a service-account token authenticates as, from `system:serviceaccount:<ns>:<name>`. */
export function serviceAccountUser(username: string): UserInfo {
  const namespace = username.startsWith(SA_PREFIX) ? username.slice(SA_PREFIX.length).split(":")[0]! : "";
  return { name: username, groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, "system:authenticated"] };
}

/** spec.resourceAttributes of an access review (authorization.k8s.io/v1). */
export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

/** spec.nonResourceAttributes of an access review. */
interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

/** A SelfSubjectAccessReview's spec: resourceAttributes win when both are given, as in kube. */
export interface AccessAttributes {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
}

export interface Decision {
  allowed: boolean;
  reason?: string;
}

/** The stored RBAC objects (rbac.authorization.k8s.io/v1), in list order. */
export interface Policy {
  roles: readonly KubeObject[];
  roleBindings: readonly KubeObject[];
  clusterRoles: readonly KubeObject[];
  clusterRoleBindings: readonly KubeObject[];
}

/** Where a decision reads its RBAC objects: the bindings that may name a user, and roles by name. */
export interface PolicySource {
  /** ClusterRoleBindings that may have the user as a subject, in list order (sorted by name). */
  clusterRoleBindings(user: UserInfo): Iterable<KubeObject>;
  /** RoleBindings of `namespace` that may have the user as a subject, in list order. */
  roleBindings(user: UserInfo, namespace: string): Iterable<KubeObject>;
  role(namespace: string, name: string): KubeObject | undefined;
  clusterRole(name: string): KubeObject | undefined;
}

/** Policy lists as a PolicySource (every binding is a candidate). */
function listPolicy(p: Policy): PolicySource {
  return {
    clusterRoleBindings: () => p.clusterRoleBindings,
    roleBindings: (_user, namespace) => p.roleBindings.filter((b) => b.metadata.namespace === namespace),
    role: (namespace, name) => p.roles.find((r) => r.metadata.namespace === namespace && r.metadata.name === name),
    clusterRole: (name) => p.clusterRoles.find((r) => r.metadata.name === name),
  };
}

const isPolicyLists = (p: Policy | PolicySource): p is Policy => Array.isArray((p as Policy).roles);

interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

interface RoleRef {
  kind?: string;
  name?: string;
}

const rulesOf = (role: KubeObject) => (role.rules as PolicyRule[] | null | undefined) ?? [];
const subjectsOf = (binding: KubeObject) => (binding.subjects as Subject[] | null | undefined) ?? [];
const roleRefOf = (binding: KubeObject) => (binding.roleRef as RoleRef | undefined) ?? {};

export function evaluate(user: UserInfo, attributes: AccessAttributes, from: Policy | PolicySource): Decision {
  if (user.groups.includes("system:masters")) return { allowed: true };
  const policy = isPolicyLists(from) ? listPolicy(from) : from;
  const namespace = attributes.resourceAttributes ? (attributes.resourceAttributes.namespace ?? "") : "";
  const allows = (rule: PolicyRule) => ruleAllows(attributes, rule);
  const errors: string[] = [];

  const visit = (binding: KubeObject, bindingNamespace: string, source: (s: Subject) => string): Decision | undefined => {
    const subject = subjectsOf(binding).find((s) => appliesTo(user, s, bindingNamespace));
    if (!subject) return undefined;
    const rules = roleRules(roleRefOf(binding), bindingNamespace, policy);
    if (typeof rules === "string") {
      errors.push(rules);
      return undefined;
    }
    return rules.some(allows) ? { allowed: true, reason: `RBAC: allowed by ${source(subject)}` } : undefined;
  };

  for (const b of policy.clusterRoleBindings(user)) {
    const ref = roleRefOf(b);
    const found = visit(
      b,
      "",
      (s) => `ClusterRoleBinding ${q(b.metadata.name)} of ${ref.kind} ${q(ref.name)} to ${describeSubject(s, "")}`,
    );
    if (found) return found;
  }
  if (namespace !== "") {
    for (const b of policy.roleBindings(user, namespace)) {
      const ref = roleRefOf(b);
      const found = visit(
        b,
        namespace,
        (s) => `RoleBinding ${q(`${b.metadata.name}/${namespace}`)} of ${ref.kind} ${q(ref.name)} to ${describeSubject(s, namespace)}`,
      );
      if (found) return found;
    }
  }
  const unique = [...new Set(errors)];
  if (unique.length === 0) return { allowed: false };
  return { allowed: false, reason: `RBAC: ${unique.length === 1 ? unique[0] : `[${unique.join(", ")}]`}` };
}

/** The rules a binding grants, or the error kube reports for a role it cannot find. */
function roleRules(ref: RoleRef, bindingNamespace: string, policy: PolicySource): readonly PolicyRule[] | string {
  switch (ref.kind) {
    case "Role": {
      const role = policy.role(bindingNamespace, ref.name ?? "");
      return role ? rulesOf(role) : `role.rbac.authorization.k8s.io ${q(ref.name)} not found`;
    }
    case "ClusterRole": {
      const role = policy.clusterRole(ref.name ?? "");
      return role ? rulesOf(role) : `clusterrole.rbac.authorization.k8s.io ${q(ref.name)} not found`;
    }
    default:
      return `unsupported role reference kind: ${q(ref.kind)}`;
  }
}

function appliesTo(user: UserInfo, s: Subject, bindingNamespace: string): boolean {
  switch (s.kind) {
    case "User":
      return user.name === s.name;
    case "Group":
      return s.name !== undefined && user.groups.includes(s.name);
    case "ServiceAccount": {
      // A RoleBinding's subject without a namespace means the binding's namespace.
      const ns = s.namespace || bindingNamespace;
      return ns !== "" && user.name === `${SA_PREFIX}${ns}:${s.name}`;
    }
    default:
      return false;
  }
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  return s.kind === "ServiceAccount" ? `${s.kind} ${q(`${s.name}/${s.namespace || bindingNamespace}`)}` : `${s.kind} ${q(s.name)}`;
}

/** Go's %q for the names kube allows (JSON string quoting agrees for them). */
const q = (s: string | undefined) => JSON.stringify(s ?? "");

function ruleAllows(attributes: AccessAttributes, rule: PolicyRule): boolean {
  const r = attributes.resourceAttributes;
  if (r) {
    const subresource = r.subresource ?? "";
    const combined = subresource ? `${r.resource ?? ""}/${subresource}` : (r.resource ?? "");
    return (
      verbMatches(rule, r.verb ?? "") &&
      (rule.apiGroups ?? []).some((g) => g === "*" || g === (r.group ?? "")) &&
      resourceMatches(rule.resources ?? [], combined, subresource) &&
      ((rule.resourceNames ?? []).length === 0 || rule.resourceNames!.includes(r.name ?? ""))
    );
  }
  const n = attributes.nonResourceAttributes;
  if (!n) return false;
  const path = n.path ?? "";
  return (
    verbMatches(rule, n.verb ?? "") &&
    (rule.nonResourceURLs ?? []).some((u) => u === "*" || u === path || (u.endsWith("*") && path.startsWith(u.replace(/\*+$/, ""))))
  );
}

const verbMatches = (rule: PolicyRule, verb: string) => (rule.verbs ?? []).some((v) => v === "*" || v === verb);

/** `*`, an exact `resource` or `resource/subresource`, or `*\/subresource`. */
function resourceMatches(resources: readonly string[], combined: string, subresource: string): boolean {
  return resources.some((res) => res === "*" || res === combined || (subresource !== "" && res === `*/${subresource}`));
}
