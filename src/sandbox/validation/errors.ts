// Field problems: how a validator's errors become kube's field problems, worded as kube-apiserver
// words them, and the 400 and 422 ApiErrors that carry them.
import { childPath, indexPath, type AjvError } from "./field-recorder.ts";
import { errors, type ApiError, type KubeObject, type StatusCause } from "../types.ts";

/** StatusCause reasons, as kube's field.ErrorType strings. */
type CauseReason =
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

export const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

// ---------------------------------------------------------------------------------------------
// ajv errors → kube field problems.

/** The segments of a JSON pointer. */
export const pointerSegments = (pointer: string): string[] =>
  pointer === ""
    ? []
    : pointer
        .slice(1)
        .split("/")
        .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));

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
export function problemsOf(root: unknown, errs: AjvError[], base = ""): FieldProblem[] {
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
        problems.push({
          field: path,
          reason: "FieldValueNotSupported",
          message: `Unsupported value: ${formatValue(value)}: supported values: ${allowed}`,
        });
      } else if (!["type", "oneOf", "format", "required", "enum"].includes(e.keyword)) {
        problems.push({
          field: path,
          reason: "FieldValueInvalid",
          message: `Invalid value: ${formatValue(value)}: failed ${e.keyword} validation`,
        });
      }
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Errors.

const versionOf = (apiVersion: string): string => apiVersion.slice(apiVersion.indexOf("/") + 1);
const groupOf = (apiVersion: string): string => (apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "");

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
