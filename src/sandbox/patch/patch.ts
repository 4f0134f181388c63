// PATCH bodies as kube-apiserver applies them: JSON patch (RFC 6902), JSON merge patch
// (RFC 7386), strategic merge patch (built-in kinds only) and server-side apply, plus the
// managedFields bookkeeping that create, update and patch leave behind.

import { applyPatch as applyJsonPatch, JsonPatchError } from "fast-json-patch";
import type { Operation } from "fast-json-patch";
import { isJsonObject, strategicMergePatch } from "./strategic.ts";
import { ApiError, deepCopy, errors } from "../types.ts";
import type { Json, JsonObject, KubeObject } from "../types.ts";

export { recordUpdateManager, serverSideApply } from "./server-side-apply.ts";

export type PatchType = "json" | "merge" | "strategic" | "apply";

const patchTypes: Record<string, PatchType> = {
  "application/json-patch+json": "json",
  "application/merge-patch+json": "merge",
  "application/strategic-merge-patch+json": "strategic",
  "application/apply-patch+yaml": "apply",
};

/** The patch type a request's Content-Type names (parameters such as charset ignored). */
export function patchTypeFromContentType(contentType: string): PatchType | undefined {
  const mediaType = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  return patchTypes[mediaType];
}

/** What kube-apiserver says when a custom resource is sent a strategic merge patch. */
const customResourcePatchTypes = "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml";

/**
 * The generic 422 kube-apiserver answers when a JSON patch cannot be applied. Like kube it does not
 * say why (kubectl prints "The request is invalid: the server rejected our request due to an
 * error in our request"); the reason rides along on the error for the sandbox's own logs.
 */
class UnprocessablePatch extends ApiError {
  constructor(readonly why: string) {
    super(422, "Invalid", "the server rejected our request due to an error in our request");
  }
}
const unprocessablePatch = (why: string) => new UnprocessablePatch(why);

/**
 * Applies a JSON, merge or strategic merge patch to `current` and returns the patched copy.
 * `builtin` is false for custom resources, which do not accept strategic merge patches.
 */
export function applyPatch(current: KubeObject, patch: unknown, type: Exclude<PatchType, "apply">, opts: { builtin: boolean }): KubeObject {
  const original = current as unknown as JsonObject;
  let patched: Json;
  switch (type) {
    case "json":
      patched = jsonPatch(original, patch);
      break;
    case "merge":
      if (!isJsonObject(patch)) throw errors.badRequest(notAnObject(patch));
      patched = mergePatch(deepCopy(original), patch);
      break;
    case "strategic":
      if (!opts.builtin) {
        throw errors.unsupportedMediaType(
          `the body of the request was in an unknown format - accepted media types include: ${customResourcePatchTypes}`,
        );
      }
      if (!isJsonObject(patch)) throw errors.badRequest(notAnObject(patch));
      patched = strategicMergePatch(original, patch, current.kind);
      break;
  }
  if (!isJsonObject(patched)) throw unprocessablePatch("the patched document is not an object");
  if (!isJsonObject(patched.metadata)) patched.metadata = {};
  return patched as unknown as KubeObject;
}

const notAnObject = (patch: unknown) =>
  `error decoding patch: json: cannot unmarshal ${Array.isArray(patch) ? "array" : typeof patch} into Go value of type map[string]interface {}`;

function jsonPatch(original: JsonObject, patch: unknown): Json {
  if (!Array.isArray(patch)) {
    throw errors.badRequest(
      `error decoding patch: json: cannot unmarshal ${patch === null ? "null" : typeof patch} into Go value of type jsonpatch.Patch`,
    );
  }
  try {
    const operations = deepCopy(patch) as Operation[];
    return applyJsonPatch<Json>(deepCopy(original), operations, true, true).newDocument;
  } catch (err) {
    if (err instanceof JsonPatchError) throw unprocessablePatch(describeJsonPatchError(err));
    throw err;
  }
}

/** Phrases a fast-json-patch failure the way evanphx/json-patch (used by kube) words it. */
function describeJsonPatchError(err: InstanceType<typeof JsonPatchError>): string {
  const op = (err.operation ?? {}) as { op?: unknown; path?: unknown; from?: unknown };
  const path = String(op.path ?? "");
  switch (err.name) {
    case "TEST_OPERATION_FAILED":
      return `testing value ${path} failed: test failed`;
    case "OPERATION_PATH_UNRESOLVABLE":
      return op.op === "remove"
        ? `unable to remove nonexistent key: ${path}: missing value`
        : `${String(op.op)} operation does not apply: doc is missing path: "${path}": missing value`;
    case "OPERATION_PATH_CANNOT_ADD":
      return `add operation does not apply: doc is missing path: "${path}": missing value`;
    case "OPERATION_FROM_UNRESOLVABLE":
      return `${String(op.op)} operation does not apply: doc is missing from path: "${String(op.from)}": missing value`;
    case "OPERATION_VALUE_OUT_OF_BOUNDS":
    case "OPERATION_PATH_ILLEGAL_ARRAY_INDEX":
      return `${String(op.op)} operation does not apply: index out of bounds at path "${path}"`;
    case "OPERATION_OP_INVALID":
      return `Unexpected kind: ${String(op.op)}`;
    default:
      return err.message.split("\n")[0] ?? err.message;
  }
}

/** RFC 7386: objects merge recursively, null deletes, anything else replaces. */
function mergePatch(target: Json | undefined, patch: Json): Json {
  if (!isJsonObject(patch)) return deepCopy(patch);
  const out: JsonObject = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}
