// GET /openapi/v2: the Swagger 2.0 document kubectl 1.32 validates `kind: List` files with.
import type { Field, Root, Type } from "protobufjs";
import gnosticSource from "../../../k8s/proto/gnostic/openapiv2.json" with { type: "text" };
import { SERVER_VERSION } from "../http/discovery.ts";
import { kubeProtos, PROTO_PACKAGES } from "../protobuf/schema.ts";
import { apiVersionOf, type JSONSchemaProps, type ResourceType } from "../types.ts";

// What kubectl does (k8s.io/kubectl pkg/validation, cli-runtime pkg/resource, client-go discovery,
// kube-openapi pkg/util/proto):
// - `apply|create|replace -f` validate each document with NewParamVerifyingSchema: when the server
//   supports `fieldValidation` for the document's group-version-kind (a PATCH operation carrying it
//   in /openapi/v3, see v3.ts) kubectl skips client-side validation and sends
//   fieldValidation=Strict. Both query-param verifiers (v3 and the v2 fallback) answer
//   "unsupported" for `v1 List` without looking, so a List is always validated client-side.
// - Client-side validation (schemaValidation.ValidateBytes) fetches this document (client-go
//   OpenAPISchema: `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`, decoded as
//   gnostic's openapi_v2.Document; any error fails the whole file: "error validating data: the
//   server could not find the requested resource"), parses every definition
//   (proto.NewOpenAPIData: every $ref must resolve, every array must have items), indexes them by
//   `x-kubernetes-group-version-kind`, then validates each List item against its kind's definition;
//   an item whose kind has no definition is not validated at all. A definition with `properties`
//   rejects unknown fields and missing `required` ones; `type: object` without properties accepts
//   anything; `type: string` accepts any scalar; `integer` accepts any number.
// - Items are then sent one by one, each with fieldValidation=Strict, so the server validates them too.
// - The same document would also give client-side apply its patch types (PATCH operations'
//   `consumes`) and strategic-merge metadata. It has no paths, so that lookup finds nothing and
//   kubectl keeps using its compiled-in patch metadata for built-ins and merge patches for custom
//   resources, as with the 404 this endpoint used to answer.
//
// The definitions, named as kube-apiserver names them:
// - Built-in kinds: from Kubernetes' own generated.proto (k8s/proto/, extracted from kubectl) and
//   the Go JSON tags (json-tags.json): every field under its JSON name, `,inline` structs merged,
//   Time/MicroTime/Quantity/IntOrString as strings, FieldsV1/RawExtension as free objects, plus
//   apiVersion and kind. So an unknown field in a List item is rejected client-side, before anything
//   is written, as by a real cluster — a 1.32 one: fields added to the API after 1.32 are unknown
//   here too (the server, validating with kubernetes-models' newer schemas, accepts some of them).
//   Left out: `required` (the .proto files cannot say which fields are; the server still rejects
//   missing ones), descriptions, enums, patch strategies.
//   CustomResourceDefinition itself has no .proto here: apiVersion, kind, metadata, and free-form
//   spec and status.
// - Custom resources: the CRD version's schema as apiextensions-apiserver publishes it in v2
//   (builder.buildKubeNative + ToStructuralOpenAPIV2): junctors dropped, nullable and
//   x-kubernetes-preserve-unknown-fields nodes lose their properties/items (nullable also its
//   type), arrays without items lose their type, metadata is a $ref to ObjectMeta; a root that
//   preserves unknown fields, or no schema, is a bare `type: object`.
// - `<Kind>List` for every kind that can be listed.
//
// Lazy: protobufjs, the .proto files and the document are loaded and built at the first request;
// the document is cached per registry until the set of served types changes (a CRD created,
// changed or deleted replaces its ResourceType objects).

/** What client-go asks for; kube-openapi also accepts the `.v1.0` spelling and answers with it. */
export const OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
export const PROTOBUF_RETURNED = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

export type Schema = { [key: string]: unknown };

const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
const ref = (name: string): Schema => ({ $ref: `#/definitions/${name}` });
const STRING: Schema = { type: "string" };
const TYPE_META: Readonly<Record<string, Schema>> = { apiVersion: STRING, kind: STRING };

/** Messages whose JSON is custom Go code (MarshalJSON): their kube-apiserver v2 schema. */
const SPECIAL: Readonly<Record<string, Schema>> = {
  "io.k8s.apimachinery.pkg.apis.meta.v1.Time": { type: "string", format: "date-time" },
  "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": { type: "string", format: "date-time" },
  "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": { type: "object" },
  "io.k8s.apimachinery.pkg.api.resource.Quantity": { type: "string" },
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": { type: "string", format: "int-or-string" },
  "io.k8s.apimachinery.pkg.runtime.RawExtension": { type: "object" },
};
/** `[]string` in Go, a message in proto; kube-apiserver inlines it. */
const EXTRA_VALUE = /^k8s\.io\.api\.(authentication|authorization)\.v1\.ExtraValue$/;

// ---- definition names (kube's: reversed group for CRDs, Go package for built-ins) ------------

function definitionPackage(t: ResourceType): string {
  if (t.crd) return `${t.group.split(".").reverse().join(".")}.${t.version}`;
  const pkg = PROTO_PACKAGES[apiVersionOf(t)];
  if (pkg) return `io.k8s.${pkg.slice("k8s.io.".length)}`;
  if (t.group === "apiextensions.k8s.io") return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${t.version}`;
  if (t.group.endsWith(".k8s.io")) return `io.k8s.api.${t.group.split(".")[0]}.${t.version}`;
  if (!t.group.includes(".")) return `io.k8s.api.${t.group || "core"}.${t.version}`;
  return `${t.group.split(".").reverse().join(".")}.${t.version}`;
}

/** `k8s.io.api.core.v1.ServiceSpec` → `io.k8s.api.core.v1.ServiceSpec`. */
const protoDefinitionName = (fullName: string): string => `io.k8s.${fullName.replace(/^\.?k8s\.io\./, "")}`;

const gvk = (t: ResourceType, kind = t.kind) => ({ "x-kubernetes-group-version-kind": [{ group: t.group, kind, version: t.version }] });

// ---- built-in kinds from the .proto files -------------------------------------------------------

interface Protos {
  protobuf: typeof import("protobufjs");
  root: Root;
  tags: Record<string, Record<string, string>>;
  gnostic: Type;
}

let protos: Protos | undefined;

function loadProtos(): Protos {
  if (protos) return protos;
  const { protobuf, root, tags } = kubeProtos();
  const text = (source: unknown) => (typeof source === "string" ? JSON.parse(source) : source) as unknown;
  const { nested } = text(gnosticSource) as { nested: protobuf.INamespace["nested"] };
  const gnostic = protobuf.Root.fromJSON({ nested }).lookupType("openapi.v2.Document");
  protos = { protobuf, root, tags, gnostic };
  return protos;
}

const SCALARS: Readonly<Record<string, Schema>> = {
  string: STRING,
  bool: { type: "boolean" },
  bytes: { type: "string", format: "byte" },
  double: { type: "number", format: "double" },
  float: { type: "number", format: "float" },
  int32: { type: "integer", format: "int32" },
  sint32: { type: "integer", format: "int32" },
  sfixed32: { type: "integer", format: "int32" },
  uint32: { type: "integer", format: "int32" },
  fixed32: { type: "integer", format: "int32" },
  int64: { type: "integer", format: "int64" },
  sint64: { type: "integer", format: "int64" },
  sfixed64: { type: "integer", format: "int64" },
  uint64: { type: "integer", format: "int64" },
  fixed64: { type: "integer", format: "int64" },
};

/** Adds the definitions of a message and of every message it reaches; returns the message's name. */
function addMessage(p: Protos, type: Type, defs: Record<string, Schema>): string {
  const name = protoDefinitionName(type.fullName);
  if (defs[name]) return name;
  const special = SPECIAL[name];
  if (special) {
    defs[name] = { ...special };
    return name;
  }
  const properties: Record<string, Schema> = {};
  defs[name] = { type: "object", properties }; // before the fields: messages may refer to themselves
  addFields(p, type, properties, defs);
  defs[name] = { type: "object", properties: sortKeys(properties) };
  return name;
}

function addFields(p: Protos, type: Type, properties: Record<string, Schema>, defs: Record<string, Schema>): void {
  const full = type.fullName.slice(1);
  const tags = p.tags[full];
  if (!tags) throw new Error(`openapi v2: no JSON tags for ${full}`);
  for (const field of type.fieldsArray) {
    const tag = tags[field.name];
    if (tag === undefined) throw new Error(`openapi v2: no JSON tag for ${full}.${field.name}`);
    const key = tag.replace(/^\*/, "").split(",")[0]!;
    if (key === "-") continue;
    field.resolve();
    if (key === "") {
      // `json:",inline"`: the embedded struct's fields are this one's.
      if (!(field.resolvedType instanceof p.protobuf.Type)) throw new Error(`openapi v2: inline ${full}.${field.name} is not a message`);
      addFields(p, field.resolvedType, properties, defs);
      continue;
    }
    properties[key] = fieldSchema(p, field, defs);
  }
}

function fieldSchema(p: Protos, field: Field, defs: Record<string, Schema>): Schema {
  const value = valueSchema(p, field, defs);
  if (field.map) return { type: "object", additionalProperties: value };
  return field.repeated ? { type: "array", items: value } : value;
}

function valueSchema(p: Protos, field: Field, defs: Record<string, Schema>): Schema {
  const resolved = field.resolvedType;
  if (resolved instanceof p.protobuf.Type) {
    if (EXTRA_VALUE.test(resolved.fullName.slice(1))) return { type: "array", items: STRING };
    return ref(addMessage(p, resolved, defs));
  }
  if (resolved) throw new Error(`openapi v2: enum field ${field.fullName}`); // none in Kubernetes' .proto files
  const scalar = SCALARS[field.type];
  if (!scalar) throw new Error(`openapi v2: field ${field.fullName} of type ${field.type}`);
  return { ...scalar };
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function builtinDefinition(p: Protos, t: ResourceType, defs: Record<string, Schema>): Schema {
  const pkg = PROTO_PACKAGES[apiVersionOf(t)];
  const type = pkg ? p.root.lookup(`${pkg}.${t.kind}`) : null;
  if (type instanceof p.protobuf.Type && p.tags[type.fullName.slice(1)]) {
    const properties: Record<string, Schema> = { ...TYPE_META };
    addFields(p, type, properties, defs);
    return { type: "object", properties: sortKeys(properties), ...gvk(t) };
  }
  addMessage(p, p.root.lookupType("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta"), defs);
  if (t.kind === "CustomResourceDefinition") {
    return {
      type: "object",
      properties: { ...TYPE_META, metadata: ref(`${META}.ObjectMeta`), spec: { type: "object" }, status: { type: "object" } },
      ...gvk(t),
    };
  }
  return { type: "object", ...gvk(t) }; // no schema at hand: anything goes
}

// ---- custom resources: apiextensions-apiserver's v2 publishing ------------------------------

/** A CRD version's schema node as ToStructuralOpenAPIV2 + ToKubeOpenAPI leave it (the parts kubectl reads). */
export function crdSchemaV2(s: JSONSchemaProps): Schema {
  const preserve = s["x-kubernetes-preserve-unknown-fields"] === true;
  let type = s.type;
  let properties = s.properties;
  let items = s.items && typeof s.items === "object" && !Array.isArray(s.items) ? s.items : undefined;
  if (s.nullable) [type, properties, items] = [undefined, undefined, undefined];
  if (preserve) [properties, items] = [undefined, undefined];
  if (type === "array" && !items) type = undefined;
  let required = s.required;
  if (properties) required = required?.filter((f) => !properties[f]?.nullable);
  const additional = s.additionalProperties;
  if (additional !== undefined && typeof additional === "object" && additional.nullable) required = undefined;

  const out: Schema = {};
  if (s.description) out.description = s.description;
  if (type) out.type = type;
  if (s.format) out.format = s.format;
  if (required?.length) out.required = [...required];
  if (items) out.items = crdSchemaV2(items);
  if (properties) out.properties = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, crdSchemaV2(v)]));
  if (typeof additional === "boolean") out.additionalProperties = additional;
  else if (additional) out.additionalProperties = crdSchemaV2(additional);
  for (const ext of ["x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource", "x-kubernetes-int-or-string"] as const) {
    if (s[ext] === true) out[ext] = true;
  }
  for (const ext of ["x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type"]) {
    if (s[ext] !== undefined) out[ext] = s[ext];
  }
  // addEmbeddedProperties: an embedded resource gets TypeMeta and ObjectMeta, unless it preserves unknown fields.
  if (s["x-kubernetes-embedded-resource"] === true && !preserve) {
    out.properties = { ...(out.properties as Schema | undefined), ...TYPE_META, metadata: ref(`${META}.ObjectMeta`) };
    const req = new Set((out.required as string[] | undefined) ?? []);
    out.required = [...req, ...["kind", "apiVersion"].filter((f) => !req.has(f))];
  }
  return out;
}

function customDefinition(t: ResourceType): Schema {
  const schema = t.crd?.schema;
  if (!schema || schema["x-kubernetes-preserve-unknown-fields"] === true) return { type: "object", ...gvk(t) };
  const out = crdSchemaV2(schema);
  out.properties = { ...(out.properties as Schema | undefined), metadata: ref(`${META}.ObjectMeta`), ...TYPE_META };
  return { ...out, ...gvk(t) };
}

const listDefinition = (t: ResourceType, item: string): Schema => ({
  type: "object",
  required: ["items"],
  properties: { ...TYPE_META, items: { type: "array", items: ref(item) }, metadata: ref(`${META}.ListMeta`) },
  ...gvk(t, t.listKind),
});

// ---------------------------------------------------------------------------------------------

/** The Swagger 2.0 document: no paths, a definition per served kind and list, and what they reach. */
export function openapiV2Document(types: readonly ResourceType[]): {
  swagger: string;
  info: object;
  paths: object;
  definitions: Record<string, Schema>;
} {
  const p = loadProtos();
  const defs: Record<string, Schema> = {
    // Not among the trimmed .proto messages; kube-apiserver's schema, less the descriptions.
    [`${META}.ListMeta`]: {
      type: "object",
      properties: { continue: STRING, remainingItemCount: { type: "integer", format: "int64" }, resourceVersion: STRING, selfLink: STRING },
    },
  };
  for (const t of types) {
    const name = `${definitionPackage(t)}.${t.kind}`;
    defs[name] = t.crd ? customDefinition(t) : builtinDefinition(p, t, defs);
    if (t.verbs.includes("list")) defs[`${definitionPackage(t)}.${t.listKind}`] = listDefinition(t, name);
  }
  addMessage(p, p.root.lookupType("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta"), defs);
  // kube-apiserver's info: {title: Kubernetes, version: "1.32"}.
  const version = `${SERVER_VERSION.major}.${SERVER_VERSION.minor.replace(/\D.*$/, "")}`;
  return { swagger: "2.0", info: { title: "Kubernetes", version }, paths: {}, definitions: sortKeys(defs) };
}

// ---- gnostic protobuf ------------------------------------------------------------------------

/** A Swagger schema as gnostic's openapi_v2.Schema (field names as in the .proto). */
function gnosticSchema(s: Schema): Schema {
  const g: Schema = {};
  if (typeof s.$ref === "string") g._ref = s.$ref;
  if (typeof s.format === "string") g.format = s.format;
  if (typeof s.description === "string") g.description = s.description;
  if (Array.isArray(s.required) && s.required.length) g.required = s.required;
  const additional = s.additionalProperties;
  if (typeof additional === "boolean") g.additional_properties = { boolean: additional };
  else if (additional && typeof additional === "object") g.additional_properties = { schema: gnosticSchema(additional as Schema) };
  if (typeof s.type === "string") g.type = { value: [s.type] };
  if (s.items && typeof s.items === "object") g.items = { schema: [gnosticSchema(s.items as Schema)] };
  if (s.properties && typeof s.properties === "object") {
    g.properties = {
      additional_properties: Object.entries(s.properties as Record<string, Schema>).map(([name, value]) => ({
        name,
        value: gnosticSchema(value),
      })),
    };
  }
  const extensions = Object.entries(s).filter(([k]) => k.startsWith("x-"));
  // gnostic keeps an extension's value as YAML text, which kube-openapi reads back with yaml.v2:
  // JSON is YAML (flow style) and costs nothing to write.
  if (extensions.length) g.vendor_extension = extensions.map(([name, value]) => ({ name, value: { yaml: `${JSON.stringify(value)}\n` } }));
  return g;
}

export function encodeGnostic(doc: ReturnType<typeof openapiV2Document>): Uint8Array {
  const { gnostic } = loadProtos();
  return gnostic
    .encode({
      swagger: doc.swagger,
      info: doc.info,
      paths: {},
      definitions: {
        additional_properties: Object.entries(doc.definitions).map(([name, value]) => ({ name, value: gnosticSchema(value) })),
      },
    })
    .finish();
}
