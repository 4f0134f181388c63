// Custom resources against their CRD version's structural schema, as apiextensions-apiserver does on every write: prune unknown fields
// (pruning/algorithm.go), drop non-nullable nulls and apply defaults (defaulting/algorithm.go), then validate (kube-openapi, with kube's
// messages). Every function here is pure: it returns new objects and never mutates its input.
import {
  childPath,
  coerceObjectMeta,
  formatValue,
  indexPath,
  invalidError,
  strictDecodingError,
  unknownFieldWarning,
  type FieldProblem,
  type FieldValidation,
} from "./builtin.ts";
import { deepCopy, type JSONSchemaProps, type KubeObject } from "../types.ts";

// What the server sends (customresource_handler.go decodes with the same create/update handlers as
// built-ins, so the texts match theirs):
// - unknown fields, Strict → 400 `<Kind> in version "<v>" cannot be handled as a <Kind>: strict
//   decoding error: unknown field "spec.foo"`; Warn → warning `unknown field "spec.foo"` each;
//   Ignore → dropped silently. (`.spec.foo: field not declared in schema` is structured-merge-diff's
//   text for server-side apply, not this path.)
// - every value problem, wrong types included (a custom resource decodes as plain JSON) →
//   422 Invalid `<Kind>.<group> "<name>" is invalid: spec.port: Invalid value: "string": spec.port
//   in body must be of type integer: "string"`.

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** The fields every resource root (and embedded resource) keeps whatever its schema says. */
const META_FIELDS = new Set(["apiVersion", "kind", "metadata"]);

/** The schema of a map's values: `additionalProperties` as a schema; `true` means "anything, unschematised". */
const valueSchema = (s: JSONSchemaProps): JSONSchemaProps | undefined | "none" =>
  isObject(s.additionalProperties) ? (s.additionalProperties as JSONSchemaProps) : s.additionalProperties === true ? undefined : "none";

// ---------------------------------------------------------------------------------------------
// Pruning.

export interface PruneResult {
  /** A copy of the input without the unknown fields. */
  pruned: KubeObject;
  /** What was removed, as kube reports it: `spec.foo`, `spec.items[0].bar`, `metadata.baz`. */
  removed: string[];
}

/**
 * Removes every field the schema does not declare. apiVersion, kind and metadata are always kept
 * at the root and in `x-kubernetes-embedded-resource` nodes, metadata reduced to standard
 * ObjectMeta fields. `x-kubernetes-preserve-unknown-fields` keeps unknown keys (declared ones are
 * still pruned inside); `additionalProperties` schemas apply to every map value; `items` to every
 * element. Without a schema nothing is pruned but metadata.
 */
export function pruneUnknown(obj: KubeObject, schema: JSONSchemaProps | undefined): PruneResult {
  const pruned = deepCopy(obj);
  const removed: string[] = [];
  coerceMetadata(pruned, "", removed);
  if (schema) prune(pruned, schema, "", true, removed);
  return { pruned, removed };
}

/** Replaces `node.metadata` by its coerced ObjectMeta, recording unknown metadata fields. */
function coerceMetadata(node: Obj, path: string, removed: string[]): void {
  if (!("metadata" in node)) return;
  const { meta, unknown } = coerceObjectMeta(node.metadata, childPath(path, "metadata"));
  removed.push(...unknown);
  if (meta) node.metadata = meta;
  else if (node.metadata !== null) delete node.metadata;
}

function prune(x: unknown, s: JSONSchemaProps | undefined, path: string, isResourceRoot: boolean, removed: string[]): void {
  if (s?.["x-kubernetes-preserve-unknown-fields"]) {
    skipPrune(x, s, path, removed);
    return;
  }
  if (Array.isArray(x)) {
    x.forEach((item, i) => prune(item, s?.items, indexPath(path, i), false, removed));
    return;
  }
  if (!isObject(x)) return;
  const embedded = s?.["x-kubernetes-embedded-resource"] === true;
  if (embedded && !isResourceRoot) coerceMetadata(x, path, removed);
  for (const key of Object.keys(x)) {
    const p = childPath(path, key);
    if ((isResourceRoot || embedded) && META_FIELDS.has(key)) continue;
    const prop = s?.properties?.[key];
    const values = s ? valueSchema(s) : "none";
    if (prop) prune(x[key], prop, p, false, removed);
    else if (s && values !== "none") prune(x[key], values, p, false, removed);
    else {
      removed.push(p);
      delete x[key];
    }
  }
}

/** Under x-kubernetes-preserve-unknown-fields: unknown keys stay, declared ones are pruned by their schemas. */
function skipPrune(x: unknown, s: JSONSchemaProps | undefined, path: string, removed: string[]): void {
  if (!s) return;
  if (Array.isArray(x)) {
    x.forEach((item, i) => skipPrune(item, s.items, indexPath(path, i), removed));
    return;
  }
  if (!isObject(x)) return;
  const embedded = s["x-kubernetes-embedded-resource"] === true;
  if (embedded) coerceMetadata(x, path, removed);
  for (const key of Object.keys(x)) {
    if (embedded && META_FIELDS.has(key)) continue;
    const prop = s.properties?.[key];
    const values = valueSchema(s);
    if (prop) prune(x[key], prop, childPath(path, key), false, removed);
    else if (values !== "none") prune(x[key], values, childPath(path, key), false, removed);
  }
}

// ---------------------------------------------------------------------------------------------
// Defaulting.

const isNonNullableNull = (v: unknown, s: JSONSchemaProps | undefined): boolean => v === null && !s?.nullable;

/**
 * Defaults as apiextensions applies them: first non-nullable nulls without a default are removed
 * (nullable ones are kept and never defaulted); then, wherever a parent object exists, each
 * declared property that is absent (or a non-nullable null) gets a copy of its default, and
 * defaulting continues inside what is there, defaults included. Status is defaulted like spec.
 */
export function applyDefaults(obj: KubeObject, schema: JSONSchemaProps | undefined): KubeObject {
  const out = deepCopy(obj);
  if (!schema) return out;
  pruneNulls(out, schema, true);
  applyDefaultsIn(out, schema, true);
  return out;
}

function pruneNulls(x: unknown, s: JSONSchemaProps | undefined, isRoot: boolean): void {
  if (!s) return;
  if (Array.isArray(x)) {
    for (const item of x) pruneNulls(item, s.items, false);
    return;
  }
  if (!isObject(x)) return;
  for (const key of Object.keys(x)) {
    if (isRoot && META_FIELDS.has(key)) continue;
    const values = valueSchema(s);
    const sub = s.properties?.[key] ?? (values === "none" ? undefined : values);
    if (!sub) continue;
    if (isNonNullableNull(x[key], sub) && sub.default === undefined) delete x[key];
    else pruneNulls(x[key], sub, false);
  }
}

function applyDefaultsIn(x: unknown, s: JSONSchemaProps | undefined, isRoot: boolean): void {
  if (!s) return;
  if (Array.isArray(x)) {
    x.forEach((item, i) => {
      if (isNonNullableNull(item, s.items) && s.items?.default !== undefined) x[i] = deepCopy(s.items.default);
      applyDefaultsIn(x[i], s.items, false);
    });
    return;
  }
  if (!isObject(x)) return;
  for (const [key, prop] of Object.entries(s.properties ?? {})) {
    if (isRoot && key === "metadata") continue;
    if (prop.default === undefined) continue;
    if (!(key in x) || isNonNullableNull(x[key], prop)) x[key] = deepCopy(prop.default);
  }
  const values = valueSchema(s);
  for (const key of Object.keys(x)) {
    if (isRoot && key === "metadata") continue;
    const prop = s.properties?.[key];
    if (prop) applyDefaultsIn(x[key], prop, false);
    else if (values !== "none" && values) {
      if (isNonNullableNull(x[key], values) && values.default !== undefined) x[key] = deepCopy(values.default);
      applyDefaultsIn(x[key], values, false);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Validation.

type JsonType = "null" | "boolean" | "integer" | "number" | "string" | "array" | "object";

function jsonType(v: unknown): JsonType {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  if (typeof v === "boolean" || typeof v === "string") return typeof v as "boolean" | "string";
  return "object";
}

/** Go durations (`1h30m`, `-1.5s`, `0`) and strfmt's looser forms (`3d`, `2 hours`). */
const GO_DURATION = /^[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$/;
const STRFMT_DURATION =
  /^(\s*\d+\s*(ns|us|µs|μs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?|sec|secs|min|mins|hr|hrs)\s*)+$/i;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function formatOk(format: string, v: unknown): boolean {
  if (typeof v === "number") {
    if (format === "int32") return v >= -2147483648 && v <= 2147483647;
    if (format === "int64") return Number.isSafeInteger(v) || Math.abs(v) <= 2 ** 63;
    return true;
  }
  if (typeof v !== "string") return true;
  switch (format) {
    case "duration":
      return GO_DURATION.test(v) || STRFMT_DURATION.test(v);
    case "date-time":
      return DATE_TIME.test(v) && !Number.isNaN(Date.parse(v));
    case "date":
      return DATE.test(v);
    case "byte":
      return BASE64.test(v);
    default:
      return true; // other formats are not checked (kube checks a dozen; rarely used in CRDs)
  }
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

class Validator {
  readonly problems: FieldProblem[] = [];

  private push(field: string, reason: FieldProblem["reason"], message: string): void {
    this.problems.push({ field, reason, message });
  }

  /** `Invalid value: <v>: <path> in body <detail>` — kube-openapi's wording through field.Invalid. */
  private invalid(path: string, v: unknown, detail: string, reason: FieldProblem["reason"] = "FieldValueInvalid"): void {
    this.push(path, reason, `Invalid value: ${formatValue(v)}: ${path} in body ${detail}`);
  }

  private typeAllowed(s: JSONSchemaProps, v: unknown): { ok: boolean; expected: string } {
    const t = jsonType(v);
    if (s["x-kubernetes-int-or-string"]) return { ok: t === "integer" || t === "string", expected: "integer,string" };
    if (t === "null") return { ok: s.nullable === true || !s.type, expected: s.type ?? "" };
    if (!s.type) return { ok: true, expected: "" };
    if (s.type === "number") return { ok: t === "number" || t === "integer", expected: s.type };
    return { ok: s.type === t, expected: s.type };
  }

  /** Validates `v` against `s`; returns whether it passed (for the junctors). */
  check(v: unknown, s: JSONSchemaProps, path: string, isRoot = false): boolean {
    const before = this.problems.length;
    const { ok, expected } = this.typeAllowed(s, v);
    if (!ok) {
      const actual = jsonType(v);
      this.invalid(path, actual, `must be of type ${expected}: ${JSON.stringify(actual)}`, "FieldValueTypeInvalid");
      return false;
    }
    if (v === null || v === undefined) return true;
    if (s.enum && !s.enum.some((e) => sameJson(e, v))) {
      const supported = s.enum.map((e) => JSON.stringify(e)).join(", ");
      this.push(path, "FieldValueNotSupported", `Unsupported value: ${formatValue(v)}: supported values: ${supported}`);
    }
    if (s.format && !formatOk(s.format, v))
      this.invalid(path, v, `must be of type ${s.format}: ${formatValue(v)}`, "FieldValueTypeInvalid");
    if (typeof v === "number") this.checkNumber(v, s, path);
    else if (typeof v === "string") this.checkString(v, s, path);
    else if (Array.isArray(v)) this.checkArray(v, s, path);
    else if (isObject(v)) this.checkObject(v, s, path, isRoot);
    this.checkJunctors(v, s, path);
    return this.problems.length === before;
  }

  private checkNumber(v: number, s: JSONSchemaProps, path: string): void {
    const exMin = s.exclusiveMinimum === true;
    const exMax = s.exclusiveMaximum === true;
    if (s.minimum !== undefined && (exMin ? v <= s.minimum : v < s.minimum)) {
      this.invalid(path, v, `should be greater than ${exMin ? "" : "or equal to "}${s.minimum}`);
    }
    if (s.maximum !== undefined && (exMax ? v >= s.maximum : v > s.maximum)) {
      this.invalid(path, v, `should be less than ${exMax ? "" : "or equal to "}${s.maximum}`);
    }
    const multipleOf = s.multipleOf;
    if (typeof multipleOf === "number" && multipleOf > 0 && Math.abs(v / multipleOf - Math.round(v / multipleOf)) > 1e-9) {
      this.invalid(path, v, `should be a multiple of ${multipleOf}`);
    }
  }

  private checkString(v: string, s: JSONSchemaProps, path: string): void {
    const length = [...v].length;
    if (s.maxLength !== undefined && length > s.maxLength) {
      this.push(path, "FieldValueTooLong", `Too long: may not be more than ${s.maxLength} bytes`);
    }
    if (s.minLength !== undefined && length < s.minLength) this.invalid(path, v, `should be at least ${s.minLength} chars long`);
    if (s.pattern !== undefined) {
      let re: RegExp | undefined;
      try {
        re = new RegExp(s.pattern, "u");
      } catch {
        re = undefined; // an RE2 construct JavaScript lacks: not checked
      }
      if (re && !re.test(v)) this.invalid(path, v, `should match '${s.pattern}'`);
    }
  }

  private checkArray(v: unknown[], s: JSONSchemaProps, path: string): void {
    if (s.maxItems !== undefined && v.length > s.maxItems) {
      this.push(path, "FieldValueTooMany", `Too many: ${v.length}: must have at most ${s.maxItems} items`);
    }
    if (s.minItems !== undefined && v.length < s.minItems) this.invalid(path, v, `should have at least ${s.minItems} items`);
    const listType = s["x-kubernetes-list-type"];
    const keys = s["x-kubernetes-list-map-keys"];
    if (listType === "set" || s.uniqueItems === true) {
      const seen = new Set<string>();
      v.forEach((item, i) => {
        const k = JSON.stringify(item);
        if (seen.has(k)) this.push(indexPath(path, i), "FieldValueDuplicate", `Duplicate value: ${formatValue(item)}`);
        seen.add(k);
      });
    } else if (listType === "map" && keys && keys.length > 0) {
      const seen = new Set<string>();
      v.forEach((item, i) => {
        if (!isObject(item)) return;
        const key = Object.fromEntries(keys.map((k) => [k, item[k]]));
        const k = JSON.stringify(key);
        if (seen.has(k)) this.push(indexPath(path, i), "FieldValueDuplicate", `Duplicate value: ${JSON.stringify(key)}`);
        seen.add(k);
      });
    }
    if (s.items) v.forEach((item, i) => this.check(item, s.items!, indexPath(path, i)));
  }

  private checkObject(v: Obj, s: JSONSchemaProps, path: string, isRoot: boolean): void {
    for (const name of s.required ?? []) {
      if (isRoot && name === "metadata") continue;
      if (!(name in v) || v[name] === undefined) this.push(childPath(path, name), "FieldValueRequired", "Required value");
    }
    const count = Object.keys(v).length;
    if (typeof s.maxProperties === "number" && count > s.maxProperties) {
      this.push(path, "FieldValueTooMany", `Too many: ${count}: must have at most ${s.maxProperties} items`);
    }
    if (typeof s.minProperties === "number" && count < s.minProperties)
      this.invalid(path, v, `should have at least ${s.minProperties} properties`);
    const values = valueSchema(s);
    for (const [key, value] of Object.entries(v)) {
      if (isRoot && META_FIELDS.has(key)) continue; // metadata is ObjectMeta's, not the schema's
      const prop = s.properties?.[key];
      if (prop) this.check(value, prop, childPath(path, key));
      else if (values !== "none" && values) this.check(value, values, childPath(path, key));
    }
  }

  /** allOf / anyOf / oneOf / not: value validation only (structural schemas declare fields outside them). */
  private checkJunctors(v: unknown, s: JSONSchemaProps, path: string): void {
    for (const sub of s.allOf ?? []) this.check(v, sub, path);
    const passes = (sub: JSONSchemaProps): boolean => new Validator().check(v, sub, path);
    if (s.anyOf && s.anyOf.length > 0 && !s.anyOf.some(passes)) {
      this.invalid(path, v, "must validate at least one schema (anyOf)");
    }
    if (s.oneOf && s.oneOf.length > 0 && s.oneOf.filter(passes).length !== 1) {
      this.invalid(path, v, "must validate one and only one schema (oneOf)");
    }
    const not = s.not;
    if (isObject(not) && passes(not as JSONSchemaProps)) this.invalid(path, v, "must not validate the schema (not)");
  }
}

/**
 * Value problems of a custom resource: types (nullable honoured), enum, required, formats
 * (duration, date-time, date, byte, int32, int64), minimum/maximum (and exclusive), multipleOf,
 * pattern, min/maxLength, min/maxItems, list-type set/map duplicates, min/maxProperties, and the
 * allOf/anyOf/oneOf/not junctors. apiVersion, kind and metadata at the root are not the schema's
 * business. Paths and messages are kube's: `spec.port: Invalid value: "string": spec.port in body
 * must be of type integer: "string"`.
 */
export function validateCustom(obj: KubeObject, schema: JSONSchemaProps | undefined): FieldProblem[] {
  if (!schema) return [];
  const v = new Validator();
  v.check(obj, schema, "", true);
  return v.problems;
}

// ---------------------------------------------------------------------------------------------
// The whole write path.

/**
 * Admission of a custom resource write in one pass: prune (Strict → 400 for unknown fields,
 * Warn → warnings, Ignore → silent), drop non-nullable nulls, default, validate (→ 422).
 * Returns the object to store and the warnings to send. Without a schema only metadata is coerced.
 */
export function admitStructural(
  obj: KubeObject,
  schema: JSONSchemaProps | undefined,
  mode: FieldValidation,
): { object: KubeObject; warnings: string[] } {
  const { pruned, removed } = pruneUnknown(obj, schema);
  if (removed.length > 0 && mode === "Strict") throw strictDecodingError(obj, removed);
  const warnings = mode === "Warn" ? removed.map(unknownFieldWarning) : [];
  const object = applyDefaults(pruned, schema);
  const problems = validateCustom(object, schema);
  if (problems.length > 0) throw invalidError(object, problems);
  return { object, warnings };
}
