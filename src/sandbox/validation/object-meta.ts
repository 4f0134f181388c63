// An object's identity on the write path, as kube-apiserver checks it before anything else: the
// body is an object whose apiVersion and kind (when given) match the URL's, whose namespace
// matches the request's, and whose name is valid for its kind.
import { apiVersionOf, errors, type KubeObject, type ResourceType } from "../types.ts";

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** Kinds whose names must be DNS-1123 labels rather than subdomains. */
const LABEL_NAMED = new Set(["Namespace", "Service"]);
/** RBAC names are path segments: anything without '/' or '%'. */
const PATH_NAMED = new Set(["Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"]);

/**
 * Checks the body against the URL and fills what it left out: apiVersion, kind, the request's
 * namespace (none for cluster-scoped types). Mutates `body`.
 */
export function checkIdentity(type: ResourceType, namespace: string | undefined, body: KubeObject): void {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw errors.badRequest("the request body must be a JSON or YAML object");
  body.metadata ??= {};
  if (body.apiVersion !== undefined && body.apiVersion !== apiVersionOf(type)) {
    throw errors.badRequest(`the API version in the data (${body.apiVersion}) does not match the expected API version (${apiVersionOf(type)})`);
  }
  if (body.kind !== undefined && body.kind !== type.kind) {
    throw errors.badRequest(`the kind in the data (${body.kind}) does not match the expected kind (${type.kind})`);
  }
  body.apiVersion = apiVersionOf(type);
  body.kind = type.kind;
  if (type.namespaced) {
    if (body.metadata.namespace && body.metadata.namespace !== namespace) {
      throw errors.badRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
    body.metadata.namespace = namespace;
  } else {
    delete body.metadata.namespace;
  }
}

export function checkName(type: ResourceType, name: string | undefined): void {
  if (!name) throw errors.invalid(type.kind, "", [{ field: "metadata.name", reason: "FieldValueRequired", message: "Required value: name or generateName is required" }], type.group);
  const ok = PATH_NAMED.has(type.kind)
    ? !/[/%]/.test(name) && name !== "." && name !== ".."
    : (LABEL_NAMED.has(type.kind) ? DNS1123_LABEL : DNS1123_SUBDOMAIN).test(name) && name.length <= (LABEL_NAMED.has(type.kind) ? 63 : 253);
  if (!ok) {
    const what = LABEL_NAMED.has(type.kind)
      ? "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
      : "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
    throw errors.invalid(type.kind, name, [{ field: "metadata.name", reason: "FieldValueInvalid", message: `Invalid value: "${name}": ${what}` }], type.group);
  }
}
