// Shared shapes of the sandbox API server: objects, resource types, and API errors that
// serialise as real `kind: Status` bodies.

import { jsonCopy } from "../lib/json-copy.ts";
import type { ObjectMeta as BaseObjectMeta, StatusReason } from "../lib/kube-api.ts";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Object metadata as stored: the shared shape, with managed fields and owner references typed as the sandbox writes them. */
export interface ObjectMeta extends BaseObjectMeta {
  managedFields?: ManagedFieldsEntry[];
  ownerReferences?: JsonObject[];
}

export interface ManagedFieldsEntry {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  time: string;
  fieldsType: "FieldsV1";
  fieldsV1: JsonObject;
  subresource?: string;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

/** A column of a server-side Table, as in a CRD's additionalPrinterColumns. */
export interface PrinterColumn {
  name: string;
  type: "string" | "integer" | "number" | "boolean" | "date";
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

/** The OpenAPI v3 schema subset a CRD version carries (apiextensions.k8s.io/v1 JSONSchemaProps). */
export interface JSONSchemaProps {
  type?: string;
  format?: string;
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  enum?: Json[];
  default?: Json;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-list-type"?: string;
  "x-kubernetes-list-map-keys"?: string[];
  [key: string]: unknown;
}

/** One served resource: a built-in type or one defined by a CRD. */
export interface ResourceType {
  group: string; // "" for core
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs: string[];
  /** Subresources served: "status" for now. */
  subresources: { status: boolean };
  /** Set for custom resources: the CRD version's schema and printer columns. */
  crd?: {
    name: string;
    schema?: JSONSchemaProps;
    printerColumns: PrinterColumn[];
    storage: boolean;
  };
}

export const apiVersionOf = (t: Pick<ResourceType, "group" | "version">): string =>
  t.group === "" ? t.version : `${t.group}/${t.version}`;

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export type { StatusReason };

/** An API failure; `toStatus()` is the body kube-apiserver would send. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = "ApiError";
  }

  toStatus(): JsonObject {
    const status: JsonObject = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details) status.details = this.details as unknown as JsonObject;
    return status;
  }
}

/** kube-apiserver brackets several causes: `is invalid: [a: x, b: y]`. */
function invalidCauses(causes: StatusCause[]): string {
  const parts = causes.map((c) => `${c.field ? `${c.field}: ` : ""}${c.message}`);
  return parts.length === 1 ? parts[0]! : `[${parts.join(", ")}]`;
}

/** Shorthand constructors with kube-apiserver's exact message shapes. */
export const errors = {
  notFound: (resource: string, name: string, group = "") =>
    new ApiError(404, "NotFound", `${resource}${group ? `.${group}` : ""} "${name}" not found`, {
      name,
      group: group || undefined,
      kind: resource,
    }),
  alreadyExists: (resource: string, name: string, group = "") =>
    new ApiError(409, "AlreadyExists", `${resource}${group ? `.${group}` : ""} "${name}" already exists`, {
      name,
      group: group || undefined,
      kind: resource,
    }),
  conflict: (
    resource: string,
    name: string,
    group = "",
    why = "the object has been modified; please apply your changes to the latest version and try again",
  ) =>
    new ApiError(409, "Conflict", `Operation cannot be fulfilled on ${resource}${group ? `.${group}` : ""} "${name}": ${why}`, {
      name,
      group: group || undefined,
      kind: resource,
    }),
  invalid: (kind: string, name: string, causes: StatusCause[], group = "") =>
    new ApiError(422, "Invalid", `${kind}${group ? `.${group}` : ""} "${name}" is invalid: ${invalidCauses(causes)}`, {
      name,
      group: group || undefined,
      kind,
      causes,
    }),
  badRequest: (message: string) => new ApiError(400, "BadRequest", message),
  gone: (message: string) => new ApiError(410, "Expired", message),
  methodNotAllowed: (message: string) => new ApiError(405, "MethodNotAllowed", message),
  unsupportedMediaType: (message: string) => new ApiError(415, "UnsupportedMediaType", message),
  unauthorized: () => new ApiError(401, "Unauthorized", "Unauthorized"),
  internal: (message: string) => new ApiError(500, "InternalError", message),
};

/** A deep copy of JSON-shaped data (src/lib/json-copy.ts): the sandbox copies on every write. */
export const deepCopy = jsonCopy;
