// OpenAPI v3 as kubectl 1.32 needs it.
import { createHash } from "node:crypto";
import { apiVersionOf, deepCopy, type JSONSchemaProps, type ResourceType } from "../types.ts";

// `kubectl apply`/`create` with default validation read the index (/openapi/v3) and the group-version
// document, and look for the PATCH operation of the object's group-version-kind
// (`x-kubernetes-group-version-kind`) with a `fieldValidation` query parameter; finding it, they leave
// validation to the server (fieldValidation=Strict) instead of validating client-side with /openapi/v2
// (served by v2.ts for `kind: List` files, which kubectl always validates client-side). Built-in kinds
// get permissive component schemas: the server validates with the real ones (validation/builtin.ts).
// Their PATCH operations therefore do NOT list `application/strategic-merge-patch+json`, so
// client-side apply does not compute a strategic merge patch from these schemas (which lack patch
// strategies and merge keys) but falls back to the patch metadata compiled into kubectl — exact for
// built-ins (the v2 document has no paths). Custom resources get their CRD version's schema, and merge
// patches, as on a real server.

type Schema = Record<string, unknown>;

const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** `api/v1` for core, `apis/<group>/<version>` otherwise: the index keys and URL prefixes. */
const gvPath = (t: Pick<ResourceType, "group" | "version">): string =>
  t.group === "" ? `api/${t.version}` : `apis/${t.group}/${t.version}`;

/** Accepts `v1`, `apps/v1`, `api/v1` or `apis/apps/v1`; returns the apiVersion form. */
function normalizeGroupVersion(gv: string): string {
  const s = gv.replace(/^\/+/, "").replace(/^openapi\/v3\//, "");
  if (s.startsWith("apis/")) return s.slice("apis/".length);
  if (s.startsWith("api/")) return s.slice("api/".length);
  return s;
}

const pascal = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** kube's operationId infix: Core, Apps, RbacAuthorization, Apiextensions, MulticlusterLinkerdIo. */
function groupWord(group: string): string {
  if (group === "") return "Core";
  const base = group.endsWith(".k8s.io") ? group.slice(0, -".k8s.io".length) : group;
  return base.split(/[.-]/).map(pascal).join("");
}

/** Java-style package of a kind's definition, as kube names components. */
function definitionPackage(t: ResourceType): string {
  if (t.crd) return `${t.group.split(".").reverse().join(".")}.${t.version}`;
  if (t.group === "") return `io.k8s.api.core.${t.version}`;
  if (t.group === "apiextensions.k8s.io") return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${t.version}`;
  if (t.group === "apiregistration.k8s.io") return `io.k8s.kube-aggregator.pkg.apis.apiregistration.${t.version}`;
  if (t.group.endsWith(".k8s.io")) return `io.k8s.api.${t.group.split(".")[0]}.${t.version}`;
  if (!t.group.includes(".")) return `io.k8s.api.${t.group}.${t.version}`; // apps, batch, policy, autoscaling
  return `${t.group.split(".").reverse().join(".")}.${t.version}`;
}

const definitionName = (t: ResourceType, kind = t.kind): string => `${definitionPackage(t)}.${kind}`;

const gvk = (t: ResourceType, kind = t.kind) => ({ group: t.group, kind, version: t.version });

// ---------------------------------------------------------------------------------------------
// Parameters.

const queryParam = (name: string, description: string, type = "string"): Schema => ({
  name,
  in: "query",
  description,
  schema: { type, uniqueItems: true },
});

const PARAMS = {
  pretty: queryParam("pretty", "If 'true', then the output is pretty printed."),
  dryRun: queryParam(
    "dryRun",
    "When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed",
  ),
  fieldManager: queryParam("fieldManager", "fieldManager is a name associated with the actor or entity that is making these changes."),
  fieldValidation: queryParam(
    "fieldValidation",
    "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn (the default) - Strict",
  ),
  force: queryParam(
    "force",
    'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people.',
    "boolean",
  ),
  labelSelector: queryParam(
    "labelSelector",
    "A selector to restrict the list of returned objects by their labels. Defaults to everything.",
  ),
  fieldSelector: queryParam(
    "fieldSelector",
    "A selector to restrict the list of returned objects by their fields. Defaults to everything.",
  ),
  limit: queryParam("limit", "limit is a maximum number of responses to return for a list call.", "integer"),
  continue: queryParam("continue", "The continue option should be set when retrieving more results from the server."),
  resourceVersion: queryParam(
    "resourceVersion",
    "resourceVersion sets a constraint on what resource versions a request may be served from.",
  ),
  resourceVersionMatch: queryParam("resourceVersionMatch", "resourceVersionMatch determines how resourceVersion is applied to list calls."),
  watch: queryParam(
    "watch",
    "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.",
    "boolean",
  ),
  allowWatchBookmarks: queryParam("allowWatchBookmarks", 'allowWatchBookmarks requests watch events with type "BOOKMARK".', "boolean"),
  timeoutSeconds: queryParam("timeoutSeconds", "Timeout for the list/watch call.", "integer"),
  gracePeriodSeconds: queryParam("gracePeriodSeconds", "The duration in seconds before the object should be deleted.", "integer"),
  propagationPolicy: queryParam(
    "propagationPolicy",
    "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'.",
  ),
};

const pathParam = (name: "name" | "namespace"): Schema => ({
  name,
  in: "path",
  description: name === "name" ? "name of the resource" : "object name and auth scope, such as for teams and projects",
  required: true,
  schema: { type: "string", uniqueItems: true },
});

const LIST_PARAMS = [
  PARAMS.allowWatchBookmarks,
  PARAMS.continue,
  PARAMS.fieldSelector,
  PARAMS.labelSelector,
  PARAMS.limit,
  PARAMS.resourceVersion,
  PARAMS.resourceVersionMatch,
  PARAMS.timeoutSeconds,
  PARAMS.watch,
];
const WRITE_PARAMS = [PARAMS.dryRun, PARAMS.fieldManager, PARAMS.fieldValidation];

const content = (schema: Schema, types = ["application/json", "application/yaml"]): Schema =>
  Object.fromEntries(types.map((t) => [t, { schema }]));

const ok = (schema: Schema, code = "200"): Schema => ({
  [code]: { description: code === "201" ? "Created" : code === "202" ? "Accepted" : "OK", content: content(schema) },
});

// ---------------------------------------------------------------------------------------------
// Paths.

/** A path item: operations by method, plus the path-level `parameters`. */
type Ops = Record<string, Schema | Schema[]>;

function operations(t: ResourceType): Record<string, Ops> {
  const verbs = new Set(t.verbs);
  const g = groupWord(t.group);
  const v = pascal(t.version);
  const scope = t.namespaced ? "Namespaced" : "";
  const object = ref(definitionName(t));
  const list = ref(definitionName(t, t.listKind));
  const status = ref(`${META}.Status`);
  const op = (operationId: string, action: string, extra: Schema, kind = t.kind): Schema => ({
    operationId,
    description: `${action} ${kind}`,
    "x-kubernetes-action": action,
    "x-kubernetes-group-version-kind": gvk(t),
    ...extra,
  });
  // Built-ins: no strategic-merge-patch, see the file comment. Custom resources never have it.
  const patchTypes = ["application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json"];
  const patchBody = { required: true, content: content(ref(`${META}.Patch`), patchTypes) };
  const putBody = { required: true, content: content(object, ["application/json", "application/yaml"]) };

  const prefix = `/${gvPath(t)}`;
  const collection = t.namespaced ? `${prefix}/namespaces/{namespace}/${t.plural}` : `${prefix}/${t.plural}`;
  const item = `${collection}/{name}`;
  const scopeParams = t.namespaced ? [pathParam("namespace")] : [];
  const paths: Record<string, Ops> = {};

  const coll: Ops = {};
  if (verbs.has("list"))
    coll.get = op(`list${g}${v}${scope}${t.kind}`, "list", { parameters: LIST_PARAMS, responses: ok(list) }, t.listKind);
  if (verbs.has("create")) {
    coll.post = op(`create${g}${v}${scope}${t.kind}`, "post", {
      parameters: WRITE_PARAMS,
      requestBody: putBody,
      responses: { ...ok(object), ...ok(object, "201"), ...ok(object, "202") },
    });
  }
  if (verbs.has("deletecollection")) {
    coll.delete = op(`delete${g}${v}Collection${scope}${t.kind}`, "deletecollection", {
      parameters: [...LIST_PARAMS, PARAMS.dryRun, PARAMS.gracePeriodSeconds, PARAMS.propagationPolicy],
      responses: ok(status),
    });
  }
  if (Object.keys(coll).length > 0) paths[collection] = { ...coll, parameters: [...scopeParams, PARAMS.pretty] };

  const one: Ops = {};
  if (verbs.has("get")) one.get = op(`read${g}${v}${scope}${t.kind}`, "get", { responses: ok(object) });
  if (verbs.has("update"))
    one.put = op(`replace${g}${v}${scope}${t.kind}`, "put", {
      parameters: WRITE_PARAMS,
      requestBody: putBody,
      responses: { ...ok(object), ...ok(object, "201") },
    });
  if (verbs.has("patch")) {
    one.patch = op(`patch${g}${v}${scope}${t.kind}`, "patch", {
      parameters: [...WRITE_PARAMS, PARAMS.force],
      requestBody: patchBody,
      responses: { ...ok(object), ...ok(object, "201") },
    });
  }
  if (verbs.has("delete")) {
    one.delete = op(`delete${g}${v}${scope}${t.kind}`, "delete", {
      parameters: [PARAMS.dryRun, PARAMS.gracePeriodSeconds, PARAMS.propagationPolicy],
      responses: { ...ok(status), ...ok(status, "202") },
    });
  }
  if (Object.keys(one).length > 0) paths[item] = { ...one, parameters: [pathParam("name"), ...scopeParams, PARAMS.pretty] };

  if (t.subresources.status && (verbs.has("get") || verbs.has("update") || verbs.has("patch"))) {
    const sub: Ops = {};
    if (verbs.has("get")) sub.get = op(`read${g}${v}${scope}${t.kind}Status`, "get", { responses: ok(object) });
    if (verbs.has("update"))
      sub.put = op(`replace${g}${v}${scope}${t.kind}Status`, "put", {
        parameters: WRITE_PARAMS,
        requestBody: putBody,
        responses: { ...ok(object), ...ok(object, "201") },
      });
    if (verbs.has("patch")) {
      sub.patch = op(`patch${g}${v}${scope}${t.kind}Status`, "patch", {
        parameters: [...WRITE_PARAMS, PARAMS.force],
        requestBody: patchBody,
        responses: { ...ok(object), ...ok(object, "201") },
      });
    }
    paths[`${item}/status`] = { ...sub, parameters: [pathParam("name"), ...scopeParams, PARAMS.pretty] };
  }

  if (t.namespaced && verbs.has("list")) {
    paths[`${prefix}/${t.plural}`] = {
      get: op(`list${g}${v}${t.kind}ForAllNamespaces`, "list", { responses: ok(list) }, t.listKind),
      parameters: [...LIST_PARAMS, PARAMS.pretty],
    };
  }
  return paths;
}

// ---------------------------------------------------------------------------------------------
// Component schemas.

const COMMON_SCHEMAS: Record<string, Schema> = {
  [`${META}.ObjectMeta`]: {
    description: "ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.",
    type: "object",
    "x-kubernetes-preserve-unknown-fields": true,
  },
  [`${META}.ListMeta`]: {
    description: "ListMeta describes metadata that synthetic resources must have, including lists and various status objects.",
    type: "object",
    properties: {
      continue: { type: "string" },
      remainingItemCount: { type: "integer", format: "int64" },
      resourceVersion: { type: "string" },
    },
  },
  [`${META}.Status`]: {
    description: "Status is a return value for calls that don't return other objects.",
    type: "object",
    "x-kubernetes-preserve-unknown-fields": true,
    "x-kubernetes-group-version-kind": [{ group: "", kind: "Status", version: "v1" }],
  },
  [`${META}.Patch`]: {
    description: "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.",
    type: "object",
  },
  [`${META}.DeleteOptions`]: {
    description: "DeleteOptions may be provided when deleting an API object.",
    type: "object",
    "x-kubernetes-preserve-unknown-fields": true,
  },
};

const typeMeta = {
  apiVersion: { description: "APIVersion defines the versioned schema of this representation of an object.", type: "string" },
  kind: { description: "Kind is a string value representing the REST resource this object represents.", type: "string" },
};

function objectSchema(t: ResourceType): Schema {
  const gvkExt = { "x-kubernetes-group-version-kind": [gvk(t)] };
  const metadata = { allOf: [ref(`${META}.ObjectMeta`)], default: {}, description: "Standard object's metadata." };
  if (!t.crd) {
    return {
      description: `${t.kind} (${apiVersionOf(t)}); validated by the server`,
      type: "object",
      properties: { ...typeMeta, metadata },
      "x-kubernetes-preserve-unknown-fields": true,
      ...gvkExt,
    };
  }
  const schema: JSONSchemaProps = t.crd.schema ? deepCopy(t.crd.schema) : { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  return {
    ...schema,
    type: schema.type ?? "object",
    properties: { ...(schema.properties ?? {}), ...typeMeta, metadata },
    ...gvkExt,
  };
}

function listSchema(t: ResourceType): Schema {
  return {
    description: `${t.listKind} is a list of ${t.kind}`,
    type: "object",
    required: ["items"],
    properties: {
      ...typeMeta,
      items: { type: "array", items: ref(definitionName(t)) },
      metadata: { allOf: [ref(`${META}.ListMeta`)], default: {} },
    },
    "x-kubernetes-group-version-kind": [gvk(t, t.listKind)],
  };
}

// ---------------------------------------------------------------------------------------------

const byPlural = (a: ResourceType, b: ResourceType): number => (a.plural < b.plural ? -1 : a.plural > b.plural ? 1 : 0);

/**
 * The OpenAPI 3.0 document of one group-version (`v1`, `apps/v1`, or the index's `api/v1`,
 * `apis/apps/v1` form): list/create/deletecollection on collections, get/put/patch/delete on
 * items, get/put/patch on `/status` when served, every operation tagged with its
 * group-version-kind and every write taking `fieldValidation`. Undefined when no type is served.
 */
export function openapiDocument(groupVersion: string, types: ResourceType[]): object | undefined {
  const gv = normalizeGroupVersion(groupVersion);
  const served = types.filter((t) => apiVersionOf(t) === gv).sort(byPlural);
  if (served.length === 0) return undefined;
  const paths: Record<string, Ops> = {};
  const schemas: Record<string, Schema> = { ...deepCopy(COMMON_SCHEMAS) };
  for (const t of served) {
    Object.assign(paths, operations(t));
    schemas[definitionName(t)] = objectSchema(t);
    schemas[definitionName(t, t.listKind)] = listSchema(t);
  }
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: "unversioned" },
    paths,
    components: { schemas },
  };
}

/** Uppercase hex SHA-512 of the document, as kube-apiserver's `?hash=`. */
function documentHash(doc: object): string {
  return createHash("sha512").update(JSON.stringify(doc)).digest("hex").toUpperCase();
}

/**
 * GET /openapi/v3: one entry per served group-version, e.g.
 * `{"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=…"}}}`. The hash is the
 * document's own, so it changes exactly when the document does (a CRD added or edited) and
 * kubectl's cache stays right.
 */
export function openapiIndex(types: ResourceType[]): { paths: Record<string, { serverRelativeURL: string }> } {
  const groupVersions = [...new Set(types.map((t) => gvPath(t)))].sort();
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const key of groupVersions) {
    const doc = openapiDocument(key, types);
    if (doc) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${documentHash(doc)}` };
  }
  return { paths };
}
