// Field validation of built-in types, with kubernetes-models' compiled OpenAPI validators as the only schema source. Those validators check
// types, enums, formats and required fields but not unknown fields, so each object is validated through a recording Proxy: every key a
// validator reads (`get`, `has`, `getOwnPropertyDescriptor`) is known; a node whose keys it enumerated (`ownKeys`, i.e.
import { validate as vConfigMap } from "kubernetes-models/_schemas/IoK8sApiCoreV1ConfigMap";
import { validate as vEndpoints } from "kubernetes-models/_schemas/IoK8sApiCoreV1Endpoints";
import { validate as vCoreEvent } from "kubernetes-models/_schemas/IoK8sApiCoreV1Event";
import { validate as vNamespace } from "kubernetes-models/_schemas/IoK8sApiCoreV1Namespace";
import { validate as vPod } from "kubernetes-models/_schemas/IoK8sApiCoreV1Pod";
import { validate as vSecret } from "kubernetes-models/_schemas/IoK8sApiCoreV1Secret";
import { validate as vService } from "kubernetes-models/_schemas/IoK8sApiCoreV1Service";
import { validate as vServiceAccount } from "kubernetes-models/_schemas/IoK8sApiCoreV1ServiceAccount";
import { validate as vDeployment } from "kubernetes-models/_schemas/IoK8sApiAppsV1Deployment";
import { validate as vReplicaSet } from "kubernetes-models/_schemas/IoK8sApiAppsV1ReplicaSet";
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
import { inspect, type Inspection, type Validator } from "./field-recorder.ts";
import { deepCopy, errors, type KubeObject, type ObjectMeta } from "../types.ts";
import {
  decodeError,
  invalidError,
  isObject,
  pointerSegments,
  problemsOf,
  strictDecodingError,
  unknownFieldWarning,
  type FieldProblems,
} from "./errors.ts";

// `for..in` over a map such as labels) is known entirely; a node it never looked inside is free-form
// (FieldsV1, RawExtension, JSON). Any other key of the input is an unknown field — exactly the keys
// Go's strict JSON decoding would reject. What kube-apiserver does with the problems found
// (handlers/create.go, update.go, patch.go):
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
//
// The recording Proxy is in field-recorder.ts; the wording of problems and errors in
// errors.ts.

export { childPath, indexPath } from "./field-recorder.ts";
export { formatValue, invalidError, strictDecodingError, unknownFieldWarning, type FieldProblem, type FieldProblems } from "./errors.ts";

export type FieldValidation = "Strict" | "Warn" | "Ignore";

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
      ["apps/v1", "ReplicaSet", vReplicaSet],
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
const ALSO_KNOWN: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["apiextensions.k8s.io/v1/CustomResourceDefinition", CRD_SCHEMA_EXTENSIONS],
]);

/** Whether checkBuiltin knows a schema for this apiVersion and kind. */
export const hasBuiltinSchema = (apiVersion: string, kind: string): boolean => VALIDATORS.has(`${apiVersion}/${kind}`);

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
