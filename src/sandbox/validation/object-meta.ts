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
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw errors.badRequest("the request body must be a JSON or YAML object");
  body.metadata ??= {};
  if (body.apiVersion !== undefined && body.apiVersion !== apiVersionOf(type)) {
    throw errors.badRequest(
      `the API version in the data (${body.apiVersion}) does not match the expected API version (${apiVersionOf(type)})`,
    );
  }
  if (body.kind !== undefined && body.kind !== type.kind) {
    // Go decodes the body as its own kind, then fails to convert it to the endpoint's.
    throw errors.badRequest(
      `${body.kind} in version "${String(body.apiVersion ?? apiVersionOf(type))
        .split("/")
        .pop()}" cannot be handled as a ${type.kind}: converting (${String(body.apiVersion ?? "")
        .split("/")
        .pop()}.${body.kind}) to (${type.group === "" ? "core" : type.group.split(".")[0]}.${type.kind}): unknown conversion`,
    );
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
  if (!name)
    throw errors.invalid(
      type.kind,
      "",
      [{ field: "metadata.name", reason: "FieldValueRequired", message: "Required value: name or generateName is required" }],
      type.group,
    );
  const ok = PATH_NAMED.has(type.kind)
    ? !/[/%]/.test(name) && name !== "." && name !== ".."
    : (LABEL_NAMED.has(type.kind) ? DNS1123_LABEL : DNS1123_SUBDOMAIN).test(name) && name.length <= (LABEL_NAMED.has(type.kind) ? 63 : 253);
  if (!ok && LABEL_NAMED.has(type.kind) && DNS1123_LABEL.test(name)) {
    throw errors.invalid(
      type.kind,
      name,
      [
        {
          field: "metadata.name",
          reason: "FieldValueInvalid",
          message: `Invalid value: ${JSON.stringify(name)}: must be no more than 63 characters`,
        },
      ],
      type.group,
    );
  }
  if (!ok) {
    const what = LABEL_NAMED.has(type.kind)
      ? "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
      : "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    throw errors.invalid(
      type.kind,
      name,
      [{ field: "metadata.name", reason: "FieldValueInvalid", message: `Invalid value: "${name}": ${what}` }],
      type.group,
    );
  }
}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const NAME_PART_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/** kube's IsQualifiedName: an optional DNS-subdomain prefix and '/', then a name part of at most 63. */
function qualifiedNameProblem(key: string): string | undefined {
  const parts = key.split("/");
  if (parts.length > 2)
    return `a qualified name ${NAME_PART_RULE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`;
  const [prefix, name] = parts.length === 2 ? [parts[0]!, parts[1]!] : [undefined, parts[0]!];
  if (prefix !== undefined) {
    if (prefix === "") return "prefix part must be non-empty";
    if (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))
      return "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
  }
  if (name === "") return "name part must be non-empty";
  if (name.length > 63) return "name part must be no more than 63 characters";
  if (!NAME_PART.test(name)) return `name part ${NAME_PART_RULE}`;
  return undefined;
}

/** kube's TotalAnnotationSizeLimitB: keys and values together. */
const ANNOTATIONS_LIMIT = 256 * 1024;

/**
 * metadata.labels and metadata.annotations as kube-apiserver validates them (ValidateLabels,
 * ValidateAnnotations): qualified-name keys, label values of at most 63 label characters, and
 * annotations of at most 256 KiB in all.
 */
export function checkLabels(type: ResourceType, obj: KubeObject): void {
  const causes: { field: string; reason: string; message: string }[] = [];
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(obj.metadata.annotations ?? {})) {
    const keyProblem = qualifiedNameProblem(key.toLowerCase());
    if (keyProblem)
      causes.push({
        field: "metadata.annotations",
        reason: "FieldValueInvalid",
        message: `Invalid value: ${JSON.stringify(key)}: ${keyProblem}`,
      });
    annotationBytes += Buffer.byteLength(key) + Buffer.byteLength(String(value));
  }
  if (annotationBytes > ANNOTATIONS_LIMIT)
    causes.push({
      field: "metadata.annotations",
      reason: "FieldValueTooLong",
      message: `Too long: must have at most ${ANNOTATIONS_LIMIT} bytes`,
    });
  for (const [key, value] of Object.entries(obj.metadata.labels ?? {})) {
    const keyProblem = qualifiedNameProblem(key);
    if (keyProblem)
      causes.push({
        field: "metadata.labels",
        reason: "FieldValueInvalid",
        message: `Invalid value: ${JSON.stringify(key)}: ${keyProblem}`,
      });
    const text = String(value);
    if (text.length > 63)
      causes.push({
        field: "metadata.labels",
        reason: "FieldValueInvalid",
        message: `Invalid value: ${JSON.stringify(text)}: must be no more than 63 characters`,
      });
    else if (!LABEL_VALUE.test(text)) {
      causes.push({
        field: "metadata.labels",
        reason: "FieldValueInvalid",
        message: `Invalid value: ${JSON.stringify(text)}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      });
    }
  }
  if (causes.length > 0) throw errors.invalid(type.kind, obj.metadata.name ?? "", causes, type.group);
}
