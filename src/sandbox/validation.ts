// Field validation of built-in types, with kubernetes-models' compiled OpenAPI validators as the
// only schema source. Those validators check types, enums, formats and required fields but not
// unknown fields, so each object is validated through a recording Proxy: every key a validator
// reads (`get`, `has`, `getOwnPropertyDescriptor`) is known; a node whose keys it enumerated
// (`ownKeys`, i.e. `for..in` over a map such as labels) is known entirely; a node it never looked
// inside is free-form (FieldsV1, RawExtension, JSON). Any other key of the input is an unknown
// field — exactly the keys Go's strict JSON decoding would reject.
//
// What kube-apiserver does with the problems found (handlers/create.go, update.go, patch.go):
// - A value of the wrong JSON type (or an unparsable int32/date-time/base64/quantity) fails Go
//   decoding: 400 BadRequest `<Kind> in version "<v>" cannot be handled as a <Kind>: json: ...`,
//   in EVERY fieldValidation mode, Ignore included (it is not a strict-decoding error). A `null`
//   decodes to the zero value, so nulls are never type errors here.
// - Unknown fields are strict-decoding errors: Strict → 400 BadRequest `... cannot be handled as
//   a <Kind>: strict decoding error: unknown field "spec.foo", unknown field "spec.bar"`; Warn →
//   one warning `unknown field "spec.foo"` each; Ignore → nothing. Outside Strict the fields are
//   dropped (Go structs cannot hold them), so `admitBuiltin` returns a pruned copy.
// - Missing required fields and unsupported enum values come from validation after decoding:
//   422 Invalid, `<Kind>[.group] "<name>" is invalid: spec.type: Unsupported value: ...`.
import { validate as vConfigMap } from "kubernetes-models/_schemas/IoK8sApiCoreV1ConfigMap";
import { validate as vEndpoints } from "kubernetes-models/_schemas/IoK8sApiCoreV1Endpoints";
import { validate as vCoreEvent } from "kubernetes-models/_schemas/IoK8sApiCoreV1Event";
import { validate as vNamespace } from "kubernetes-models/_schemas/IoK8sApiCoreV1Namespace";
import { validate as vPod } from "kubernetes-models/_schemas/IoK8sApiCoreV1Pod";
import { validate as vSecret } from "kubernetes-models/_schemas/IoK8sApiCoreV1Secret";
import { validate as vService } from "kubernetes-models/_schemas/IoK8sApiCoreV1Service";
import { validate as vServiceAccount } from "kubernetes-models/_schemas/IoK8sApiCoreV1ServiceAccount";
import { validate as vDeployment } from "kubernetes-models/_schemas/IoK8sApiAppsV1Deployment";
import { validate as vRole } from "kubernetes-models/_schemas/IoK8sApiRbacV1Role";
import { validate as vRoleBinding } from "kubernetes-models/_schemas/IoK8sApiRbacV1RoleBinding";
import { validate as vClusterRole } from "kubernetes-models/_schemas/IoK8sApiRbacV1ClusterRole";
import { validate as vClusterRoleBinding } from "kubernetes-models/_schemas/IoK8sApiRbacV1ClusterRoleBinding";
import { validate as vLease } from "kubernetes-models/_schemas/IoK8sApiCoordinationV1Lease";
import { validate as vEndpointSlice } from "kubernetes-models/_schemas/IoK8sApiDiscoveryV1EndpointSlice";
import { validate as vPodDisruptionBudget } from "kubernetes-models/_schemas/IoK8sApiPolicyV1PodDisruptionBudget";
import { validate as vCrd } from "kubernetes-models/_schemas/IoK8sApiextensionsApiserverPkgApisApiextensionsV1CustomResourceDefinition";
import { validate as vSelfSubjectAccessReview } from "kubernetes-models/_schemas/IoK8sApiAuthorizationV1SelfSubjectAccessReview";
import { validate as vEventsEvent } from "kubernetes-models/_schemas/IoK8sApiEventsV1Event";
import { validate as vObjectMeta } from "@kubernetes-models/apimachinery/_schemas/IoK8sApimachineryPkgApisMetaV1ObjectMeta";
import { ApiError, deepCopy, errors, type KubeObject, type ObjectMeta, type StatusCause } from "./types.ts";

export type FieldValidation = "Strict" | "Warn" | "Ignore";

/** StatusCause reasons, as kube's field.ErrorType strings. */
export type CauseReason =
  | "FieldValueRequired"
  | "FieldValueNotSupported"
  | "FieldValueInvalid"
  | "FieldValueTypeInvalid"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "FieldValueDuplicate";

export interface FieldProblem {
  /** kube field path: `spec.ports[0].port`. */
  field: string;
  /** kube's error body without the field: `Required value`, `Unsupported value: "Foo": ...`. */
  message: string;
  reason: CauseReason;
  /** Set when Go decoding itself fails (built-ins only): a 400 in every mode. */
  decode?: boolean;
}

export interface FieldProblems {
  /** Unknown fields as kube prints them, in input order: `spec.ports[0].foo`. */
  unknown: string[];
  invalid: FieldProblem[];
}

interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
}
type Validator = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

const asValidator = (fn: (data: unknown) => boolean): Validator => fn as Validator;

/** apiVersion/kind → validator. */
const VALIDATORS: ReadonlyMap<string, Validator> = new Map(
  (
    [
      ["v1", "Namespace", vNamespace],
      ["v1", "Service", vService],
      ["v1", "Endpoints", vEndpoints],
      ["v1", "Pod", vPod],
      ["v1", "Secret", vSecret],
      ["v1", "ConfigMap", vConfigMap],
      ["v1", "ServiceAccount", vServiceAccount],
      ["v1", "Event", vCoreEvent],
      ["apps/v1", "Deployment", vDeployment],
      ["rbac.authorization.k8s.io/v1", "Role", vRole],
      ["rbac.authorization.k8s.io/v1", "RoleBinding", vRoleBinding],
      ["rbac.authorization.k8s.io/v1", "ClusterRole", vClusterRole],
      ["rbac.authorization.k8s.io/v1", "ClusterRoleBinding", vClusterRoleBinding],
      ["coordination.k8s.io/v1", "Lease", vLease],
      ["discovery.k8s.io/v1", "EndpointSlice", vEndpointSlice],
      ["policy/v1", "PodDisruptionBudget", vPodDisruptionBudget],
      ["apiextensions.k8s.io/v1", "CustomResourceDefinition", vCrd],
      ["authorization.k8s.io/v1", "SelfSubjectAccessReview", vSelfSubjectAccessReview],
      ["events.k8s.io/v1", "Event", vEventsEvent],
    ] as const
  ).map(([apiVersion, kind, fn]) => [`${apiVersion}/${kind}`, asValidator(fn)]),
);

/**
 * JSONSchemaProps fields kubernetes-models' generator leaves out of its CRD validator (it takes
 * `x-` keys for vendor extensions): known wherever they appear in a CustomResourceDefinition.
 */
const CRD_SCHEMA_EXTENSIONS: ReadonlySet<string> = new Set([
  // JSONSchemaProps annotations the generated validator leaves out but kube-apiserver accepts.
  "description",
  "title",
  "example",
  "externalDocs",
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-embedded-resource",
  "x-kubernetes-int-or-string",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-list-type",
  "x-kubernetes-map-type",
  "x-kubernetes-validations",
]);
const ALSO_KNOWN: ReadonlyMap<string, ReadonlySet<string>> = new Map([["apiextensions.k8s.io/v1/CustomResourceDefinition", CRD_SCHEMA_EXTENSIONS]]);

/** Whether checkBuiltin knows a schema for this apiVersion and kind. */
export const hasBuiltinSchema = (apiVersion: string, kind: string): boolean => VALIDATORS.has(`${apiVersion}/${kind}`);

// ---------------------------------------------------------------------------------------------
// The recording Proxy.

interface Trace {
  read: Set<string>;
  enumerated: boolean;
  kids: Map<string, { trace: Trace; proxy: object }>;
}

const newTrace = (): Trace => ({ read: new Set(), enumerated: false, kids: new Map() });

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** A read-only view of `target` that records into `trace` what the validator looks at. */
function traced(target: object, trace: Trace): object {
  const refuse = (): boolean => false;
  return new Proxy(target, {
    get(t, key, receiver) {
      const value: unknown = Reflect.get(t, key, receiver);
      if (typeof key !== "string") return value;
      trace.read.add(key);
      if (value === null || typeof value !== "object" || !Object.hasOwn(t, key)) return value;
      let kid = trace.kids.get(key);
      if (!kid) {
        const childTrace = newTrace();
        kid = { trace: childTrace, proxy: traced(value, childTrace) };
        trace.kids.set(key, kid);
      }
      return kid.proxy; // one proxy per child: identity stays stable across reads
    },
    has(t, key) {
      if (typeof key === "string") trace.read.add(key);
      return Reflect.has(t, key);
    },
    getOwnPropertyDescriptor(t, key) {
      if (typeof key === "string") trace.read.add(key);
      return Reflect.getOwnPropertyDescriptor(t, key);
    },
    ownKeys(t) {
      trace.enumerated = true;
      return Reflect.ownKeys(t);
    },
    set: refuse,
    deleteProperty: refuse,
    defineProperty: refuse,
  });
}

/** A key of the input that the validator never read. */
interface Stray {
  parent: Record<string, unknown>;
  key: string;
  path: string;
}

export const childPath = (path: string, key: string): string => (path ? `${path}.${key}` : key);
export const indexPath = (path: string, index: number): string => `${path}[${index}]`;

function collectStrays(value: unknown, trace: Trace, path: string, out: Stray[], alsoKnown?: ReadonlySet<string>): void {
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const kid = trace.kids.get(String(i));
      if (kid) collectStrays(item, kid.trace, indexPath(path, i), out, alsoKnown);
    });
    return;
  }
  if (!trace.enumerated && trace.read.size === 0) return; // free-form, or never inspected
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    const p = childPath(path, key);
    if (!trace.enumerated && !trace.read.has(key)) {
      if (!alsoKnown?.has(key)) out.push({ parent: obj, key, path: p });
      continue;
    }
    const kid = trace.kids.get(key);
    if (kid) collectStrays(obj[key], kid.trace, p, out, alsoKnown);
  }
}

interface Inspection {
  strays: Stray[];
  errors: AjvError[];
}

/**
 * Runs `validate` over `value` through the recording Proxy. Paths are prefixed with `base`;
 * `alsoKnown` keys are known wherever they appear.
 */
function inspect(validate: Validator, value: object, base = "", alsoKnown?: ReadonlySet<string>): Inspection {
  const trace = newTrace();
  const ok = validate(traced(value, trace));
  const strays: Stray[] = [];
  collectStrays(value, trace, base, strays, alsoKnown);
  return { strays, errors: ok ? [] : [...(validate.errors ?? [])] };
}

// ---------------------------------------------------------------------------------------------
// ajv errors → kube field problems.

/** The segments of a JSON pointer. */
const pointerSegments = (pointer: string): string[] =>
  pointer === "" ? [] : pointer.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));

/** JSON pointer → kube field path (`/spec/ports/0/port` → `spec.ports[0].port`) and the value there. */
function resolvePointer(root: unknown, pointer: string, base = ""): { path: string; value: unknown } {
  let path = base;
  let value = root;
  for (const seg of pointerSegments(pointer)) {
    if (Array.isArray(value)) {
      path = indexPath(path, Number(seg));
      value = value[Number(seg)];
    } else {
      path = childPath(path, seg);
      value = isObject(value) ? value[seg] : undefined;
    }
  }
  return { path, value };
}

/** Go's name for a JSON value in `json: cannot unmarshal <x> into ...`. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return `number ${value}`;
  if (typeof value === "boolean") return "bool";
  return typeof value; // string, object
}

/** kube's rendering of a bad value in an error body (`%q` for strings, `%v` for scalars). */
export function formatValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null || value === undefined) return "null";
  return JSON.stringify(value);
}

const GO_TIME_LAYOUT = "2006-01-02T15:04:05Z07:00";
const QUANTITY_REGEXP = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

function decodeMessage(format: string | undefined, types: string[], value: unknown, path: string): string {
  const goPath = path.replace(/\[\d+\]/g, "");
  switch (format) {
    case "byte":
      return "illegal base64 data at input byte 0";
    case "date-time":
      return `parsing time ${formatValue(value)} as "${GO_TIME_LAYOUT}": cannot parse ${formatValue(value)} as "2006"`;
    case "quantity":
      return `quantities must match the regular expression '${QUANTITY_REGEXP}'`;
    case "int32":
    case "int64":
      return `json: cannot unmarshal ${jsonKind(value)} into Go struct field ${goPath} of type ${format}`;
  }
  return `json: cannot unmarshal ${jsonKind(value)} into Go struct field ${goPath} of type ${types.join(" or ") || "value"}`;
}

/** Turns one validator run's errors into problems; `base` prefixes every path. */
function problemsOf(root: unknown, errs: AjvError[], base = ""): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const byPointer = new Map<string, AjvError[]>();
  for (const e of errs) {
    const list = byPointer.get(e.instancePath);
    if (list) list.push(e);
    else byPointer.set(e.instancePath, [e]);
  }
  for (const [pointer, list] of byPointer) {
    const { path, value } = resolvePointer(root, pointer, base);
    // Type, format and oneOf failures (IntOrString, Quantity) are all Go decoding failures;
    // ajv reports a oneOf's branches only when the oneOf fails as a whole.
    const typeErrors = list.filter((e) => e.keyword === "type");
    const formatError = list.find((e) => e.keyword === "format");
    if (value !== null && (formatError || typeErrors.length > 0 || list.some((e) => e.keyword === "oneOf"))) {
      const types = [...new Set(typeErrors.flatMap((e) => (typeof e.params.type === "string" ? [e.params.type] : [])))];
      const format = typeof formatError?.params.format === "string" ? formatError.params.format : undefined;
      problems.push({ field: path, reason: "FieldValueTypeInvalid", decode: true, message: decodeMessage(format, types, value, path) });
    }
    for (const e of list) {
      if (e.keyword === "required" && typeof e.params.missingProperty === "string") {
        problems.push({ field: childPath(path, e.params.missingProperty), reason: "FieldValueRequired", message: "Required value" });
      } else if (e.keyword === "enum" && Array.isArray(e.params.allowedValues)) {
        const allowed = e.params.allowedValues.map((v) => formatValue(v)).join(", ");
        problems.push({ field: path, reason: "FieldValueNotSupported", message: `Unsupported value: ${formatValue(value)}: supported values: ${allowed}` });
      } else if (!["type", "oneOf", "format", "required", "enum"].includes(e.keyword)) {
        problems.push({ field: path, reason: "FieldValueInvalid", message: `Invalid value: ${formatValue(value)}: failed ${e.keyword} validation` });
      }
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Built-in objects.

function inspectBuiltin(obj: KubeObject): { inspection: Inspection; problems: FieldProblems } | undefined {
  const key = `${obj.apiVersion}/${obj.kind}`;
  const validate = VALIDATORS.get(key);
  if (!validate) return undefined;
  const inspection = inspect(validate, obj, "", ALSO_KNOWN.get(key));
  return {
    inspection,
    problems: { unknown: inspection.strays.map((s) => s.path), invalid: problemsOf(obj, inspection.errors) },
  };
}

/** Unknown fields and invalid values of a built-in object; undefined when no schema is known. */
export function checkBuiltin(obj: KubeObject): FieldProblems | undefined {
  return inspectBuiltin(obj)?.problems;
}

const versionOf = (apiVersion: string): string => apiVersion.slice(apiVersion.indexOf("/") + 1);
export const groupOf = (apiVersion: string): string => (apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "");

/** The 400 kube sends when a body does not decode: `<Kind> in version "<v>" cannot be handled as a <Kind>: <why>`. */
export function decodeError(obj: Pick<KubeObject, "apiVersion" | "kind">, why: string): ApiError {
  return errors.badRequest(`${obj.kind} in version "${versionOf(obj.apiVersion)}" cannot be handled as a ${obj.kind}: ${why}`);
}

/** The 400 for unknown fields under fieldValidation=Strict (built-ins and custom resources alike). */
export function strictDecodingError(obj: Pick<KubeObject, "apiVersion" | "kind">, unknown: string[]): ApiError {
  return decodeError(obj, `strict decoding error: ${unknown.map(unknownFieldWarning).join(", ")}`);
}

/** The warning (Warn mode) or strict-decoding entry for one unknown field. */
export const unknownFieldWarning = (path: string): string => `unknown field "${path}"`;

/** The 422 for validation problems: `<Kind>[.group] "<name>" is invalid: <field>: <message>, ...`. */
export function invalidError(obj: KubeObject, problems: FieldProblem[]): ApiError {
  const causes: StatusCause[] = problems.map((p) => ({ reason: p.reason, message: p.message, field: p.field }));
  return errors.invalid(obj.kind, obj.metadata?.name ?? "", causes, groupOf(obj.apiVersion));
}

/**
 * Applies a fieldValidation mode to the problems of a built-in object: throws the 400 (decode
 * failure, or unknown fields under Strict) or the 422 (required, enum) kube would send, else
 * returns the warnings to send (Warn: one `unknown field "spec.foo"` per field).
 */
export function enforceFieldValidation(problems: FieldProblems | undefined, mode: FieldValidation, obj: KubeObject): string[] {
  if (!problems) return [];
  const decode = problems.invalid.find((p) => p.decode);
  if (decode) throw decodeError(obj, decode.message);
  if (problems.unknown.length > 0 && mode === "Strict") throw strictDecodingError(obj, problems.unknown);
  const invalid = problems.invalid.filter((p) => !p.decode);
  if (invalid.length > 0) throw invalidError(obj, invalid);
  return mode === "Warn" ? problems.unknown.map(unknownFieldWarning) : [];
}

/**
 * Field validation of a built-in write: returns a copy without the unknown fields (what Go
 * decoding keeps) and the warnings to send, or throws the 400/422. Kinds without a known schema
 * pass unchanged.
 */
export function admitBuiltin(obj: KubeObject, mode: FieldValidation): { object: KubeObject; warnings: string[] } {
  const copy = deepCopy(obj);
  const found = inspectBuiltin(copy);
  if (!found) return { object: copy, warnings: [] };
  const warnings = enforceFieldValidation(found.problems, mode, copy);
  for (const s of found.inspection.strays) delete s.parent[s.key];
  return { object: copy, warnings };
}

/** The fieldValidation query parameter; kube's default (absent) is Warn. */
export function parseFieldValidation(value: string | null | undefined): FieldValidation {
  if (value === null || value === undefined || value === "") return "Warn";
  if (value === "Strict" || value === "Warn" || value === "Ignore") return value;
  throw errors.badRequest(`fieldValidation must be one of "Ignore", "Warn", "Strict", got ${JSON.stringify(value)}`);
}

// ---------------------------------------------------------------------------------------------
// ObjectMeta of custom resources and embedded resources.

/**
 * What the apiextensions server keeps of a custom resource's metadata: standard ObjectMeta
 * fields only. Unknown fields are dropped and reported (`metadata.foo`); malformed standard
 * fields (wrong types) are dropped silently, as its DropMalformedFields does.
 */
export function coerceObjectMeta(meta: unknown, path = "metadata"): { meta: ObjectMeta | undefined; unknown: string[] } {
  if (!isObject(meta)) return { meta: undefined, unknown: [] };
  const copy = deepCopy(meta) as ObjectMeta;
  const { strays, errors: errs } = inspect(asValidator(vObjectMeta), copy, path);
  for (const s of strays) delete s.parent[s.key];
  for (const e of errs) {
    const [top] = pointerSegments(e.instancePath);
    if (top !== undefined && copy[top] !== null) delete copy[top];
  }
  return { meta: copy, unknown: strays.map((s) => s.path) };
}
