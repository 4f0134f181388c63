// Authorization of ordinary requests (with `enforceRbac`), as kube-apiserver's filter chain does it.
import { ApiError, type ResourceType } from "../types.ts";
import { evaluate, type PolicySource, type ResourceAttributes, type UserInfo } from "./rbac.ts";

// Authorization of ordinary requests (with `enforceRbac`), as kube-apiserver's filter chain
// does it: the request's attributes (requestinfo.go: verb from the method, list/watch with a
// `metadata.name=` field selector as a request for that name, a Namespace's own name as its
// namespace), decided by RBAC (rbac.ts) over the bindings index (bindings.ts), and a denial as
// kube's 403 (`services is forbidden: User "…" cannot list resource "services" in API group ""
// in the namespace "x"`). What kube's bootstrap roles give every authenticated user
// (system:discovery, system:basic-user, system:public-info-viewer) is allowed without stored
// roles: discovery and health paths, and reviews of one's own access.

/** The route of a resource request, as http/server.ts parses it. */
export interface RequestRoute {
  type: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** Paths kube's system:discovery and system:public-info-viewer let every authenticated user GET. */
const DISCOVERY = [
  /^\/api(\/.*)?$/,
  /^\/apis(\/.*)?$/,
  /^\/openapi(\/.*)?$/,
  /^\/version\/?$/,
  /^\/(healthz|livez|readyz)(\/.*)?$/,
  /^\/swagger\.json$/,
];
/** What system:basic-user lets every authenticated user create. */
const SELF_REVIEWS = new Set([
  "authorization.k8s.io/selfsubjectaccessreviews",
  "authorization.k8s.io/selfsubjectrulesreviews",
  "authentication.k8s.io/selfsubjectreviews",
]);

/** The attributes kube's RequestInfo resolver gives a resource request. */
function resourceAttributes(method: string, route: RequestRoute, query: URLSearchParams): ResourceAttributes {
  const { type, subresource } = route;
  let name = route.name;
  let verb: string;
  switch (method.toUpperCase()) {
    case "GET":
    case "HEAD":
      verb = name !== undefined ? "get" : query.get("watch") === "true" || query.get("watch") === "1" ? "watch" : "list";
      break;
    case "POST":
      verb = "create";
      break;
    case "PUT":
      verb = "update";
      break;
    case "PATCH":
      verb = "patch";
      break;
    case "DELETE":
      verb = name !== undefined ? "delete" : "deletecollection";
      break;
    default:
      verb = method.toLowerCase();
  }
  if (name === undefined && (verb === "list" || verb === "watch")) name = exactName(query.get("fieldSelector") ?? "");
  // /api/v1/namespaces/x is in the namespace x.
  const namespace = type.kind === "Namespace" && route.name !== undefined ? route.name : type.namespaced ? (route.namespace ?? "") : "";
  return {
    verb,
    group: type.group,
    version: type.version,
    resource: type.plural,
    subresource: subresource ?? "",
    name: name ?? "",
    namespace,
  };
}

/** `metadata.name=x` (or `==`) among a field selector's terms: the name a list or watch asks for. */
function exactName(selector: string): string | undefined {
  for (const term of selector.split(",")) {
    const m = /^\s*metadata\.name\s*==?\s*([^,!=\s]+)\s*$/.exec(term);
    if (m) return m[1];
  }
  return undefined;
}

/** kube's forbidden message for the attributes (responsewriters.forbiddenMessage), with RBAC's reason when it has one. */
function forbidden(user: UserInfo, a: ResourceAttributes, reason?: string): ApiError {
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : (a.resource ?? "");
  const where = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : "at the cluster scope";
  const why = `User ${JSON.stringify(user.name)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.group ?? "")} ${where}${reason ? `: ${reason}` : ""}`;
  const qualified = a.group ? `${a.resource}.${a.group}` : (a.resource ?? "");
  const message = a.name ? `${qualified} ${JSON.stringify(a.name)} is forbidden: ${why}` : `${qualified} is forbidden: ${why}`;
  return new ApiError(403, "Forbidden", message, { group: a.group || undefined, kind: a.resource, name: a.name || undefined });
}

/** A non-resource request (discovery, health, ...): allowed as the bootstrap roles allow, else by RBAC. */
export function authorizePath(policy: PolicySource, user: UserInfo, method: string, path: string): ApiError | undefined {
  const verb = method.toUpperCase() === "GET" || method.toUpperCase() === "HEAD" ? "get" : method.toLowerCase();
  if (verb === "get" && DISCOVERY.some((re) => re.test(path))) return undefined;
  const decision = evaluate(user, { nonResourceAttributes: { verb, path } }, policy);
  if (decision.allowed) return undefined;
  return new ApiError(
    403,
    "Forbidden",
    `forbidden: User ${JSON.stringify(user.name)} cannot ${verb} path ${JSON.stringify(path)}${decision.reason ? `: ${decision.reason}` : ""}`,
  );
}

/** A resource request: undefined when allowed, else kube's 403. */
export function authorizeResource(
  policy: PolicySource,
  user: UserInfo,
  method: string,
  route: RequestRoute,
  query: URLSearchParams,
): ApiError | undefined {
  const attributes = resourceAttributes(method, route, query);
  if (attributes.verb === "create" && SELF_REVIEWS.has(`${attributes.group}/${attributes.resource}`)) return undefined;
  const decision = evaluate(user, { resourceAttributes: attributes }, policy);
  return decision.allowed ? undefined : forbidden(user, attributes, decision.reason);
}
