// Strategic merge patch (application/strategic-merge-patch+json), following k8s.io/apimachinery/pkg/util/strategicpatch as the API server
// runs it (parallel lists merged, unmatched nulls ignored): maps merge, null deletes, lists merge by key or are replaced, and the
// directives `$patch`, `$retainKeys`, `$setElementOrder/<list>` and `$deleteFromPrimitiveList/<list>` are obeyed and never stored.

import { childPath, itemPath, listSchemaAt } from "./lists.ts";
import type { ListSchema } from "./lists.ts";
import { deepCopy, errors } from "../types.ts";
import type { Json, JsonObject } from "../types.ts";

const directiveMarker = "$patch";
const retainKeysDirective = "$retainKeys";
const setElementOrderPrefix = "$setElementOrder/";
const deleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList/";

export const isJsonObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

interface Context {
  kind: string;
  lookup: (path: string) => ListSchema | undefined;
}

/** Applies a strategic merge patch to a built-in object; both inputs are left untouched. */
export function strategicMergePatch(original: JsonObject, patch: JsonObject, kind: string): JsonObject {
  const ctx: Context = { kind, lookup: (path) => listSchemaAt(kind, path, true) };
  return mergeMap(deepCopy(original), deepCopy(patch), "", ctx);
}

const badPatchType = (directive: Json | undefined, where: Json) =>
  errors.badRequest(`Unknown patch type: ${JSON.stringify(directive)} in map: ${JSON.stringify(where)}`);

/** Merges `patch` into `original` (which it may modify and returns). */
function mergeMap(original: JsonObject, patch: JsonObject, path: string, ctx: Context): JsonObject {
  if (directiveMarker in patch) {
    const directive = patch[directiveMarker];
    delete patch[directiveMarker];
    if (directive === "replace") return fresh(patch, path, ctx) as JsonObject;
    if (directive === "delete") return {};
    // "$patch: merge" is the default behaviour; kube rejects it in maps, the sandbox allows it.
    if (directive !== "merge") throw badPatchType(directive, patch);
  }

  applyRetainKeys(original, patch);
  applySetElementOrder(original, patch, path, ctx);

  for (const [rawKey, patchValue] of Object.entries(patch)) {
    if (rawKey.startsWith(deleteFromPrimitiveListPrefix)) {
      const key = rawKey.slice(deleteFromPrimitiveListPrefix.length);
      if (!Array.isArray(patchValue) || key === "") throw errors.badRequest("invalid patch format of primitive list");
      const current = original[key];
      if (Array.isArray(current)) original[key] = current.filter((v) => !patchValue.some((d) => jsonEqual(d, v)));
      continue;
    }
    if (rawKey.startsWith("$")) continue; // an unknown directive: never stored
    const key = rawKey;
    if (patchValue === null) {
      delete original[key];
      continue;
    }
    const current = original[key];
    const here = childPath(path, key);
    if (current === undefined || current === null) {
      if (isJsonObject(patchValue) && patchValue[directiveMarker] === "delete") continue;
      original[key] = fresh(patchValue, here, ctx);
    } else if (isJsonObject(current) && isJsonObject(patchValue)) {
      original[key] = mergeMap(current, patchValue, here, ctx);
    } else if (Array.isArray(current) && Array.isArray(patchValue)) {
      original[key] = mergeList(current, patchValue, here, ctx);
    } else {
      original[key] = fresh(patchValue, here, ctx);
    }
  }
  return original;
}

/** A patch value that lands where nothing was: directives are applied, nulls dropped. */
function fresh(value: Json, path: string, ctx: Context): Json {
  if (isJsonObject(value)) return mergeMap({}, value, path, ctx);
  if (Array.isArray(value)) return mergeList([], value, path, ctx);
  return value;
}

/** `$retainKeys`: keys of the original not listed are cleared; the patch may only set listed keys. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!(retainKeysDirective in patch)) return;
  const retain = patch[retainKeysDirective];
  delete patch[retainKeysDirective];
  if (!Array.isArray(retain)) throw errors.badRequest("invalid patch format of retainKeys");
  const keep = new Set(retain.map((k) => String(k)));
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith("$")) continue;
    if (!keep.has(key)) throw errors.badRequest("invalid patch format of retainKeys");
  }
  for (const key of Object.keys(original)) if (!keep.has(key)) delete original[key];
}

/**
 * `$setElementOrder/<list>`: merges the patch list for that field now and orders the result —
 * items named in the directive in its order, the server's other items kept among them by their
 * live position. Both the directive and the patch list are consumed.
 */
function applySetElementOrder(original: JsonObject, patch: JsonObject, path: string, ctx: Context): void {
  for (const directiveKey of Object.keys(patch)) {
    if (!directiveKey.startsWith(setElementOrderPrefix)) continue;
    const order = patch[directiveKey];
    delete patch[directiveKey];
    const field = directiveKey.slice(setElementOrderPrefix.length);
    if (!Array.isArray(order) || field === "") throw errors.badRequest("invalid patch format of setElementOrder list");
    const patchList = patch[field];
    if (patchList === null || (patchList !== undefined && !Array.isArray(patchList))) continue; // left to the main loop
    const current = original[field];
    const currentList = Array.isArray(current) ? current : [];
    const here = childPath(path, field);
    delete patch[field];
    if (currentList.length === 0 && (patchList ?? []).length === 0) continue;

    const merged = patchList === undefined ? currentList.slice() : mergeList(currentList.slice(), patchList, here, ctx);
    const id = identity(ctx.lookup(here)?.mergeKey);
    const wanted = order.map(id);
    const inOrder = (v: Json) => wanted.some((w) => jsonEqual(w, id(v)));
    const serverOrder = currentList.map(id);
    original[field] = mergeSortedSlice(
      sortByOrder(
        merged.filter((v) => !inOrder(v)),
        serverOrder,
        id,
      ),
      sortByOrder(merged.filter(inOrder), wanted, id),
      serverOrder,
      id,
    );
  }
}

/** Merges a patch list into a live list by the field's strategy. */
function mergeList(original: Json[], patch: Json[], path: string, ctx: Context): Json[] {
  const schema = ctx.lookup(path);
  if (schema?.strategy !== "merge") {
    // Replaced whole; list-item directives have no meaning here and are dropped.
    return patch.filter((item) => !(isJsonObject(item) && directiveMarker in item)).map((item) => fresh(item, itemPath(path), ctx));
  }
  if (original.length === 0 && patch.length === 0) return original;
  return schema.mergeKey === undefined
    ? mergePrimitives(original, patch)
    : mergeByKey(original, patch, schema.mergeKey, itemPath(path), ctx);
}

function mergePrimitives(original: Json[], patch: Json[]): Json[] {
  let replace = false;
  const items: Json[] = [];
  for (const item of patch) {
    if (isJsonObject(item) && directiveMarker in item) {
      if (item[directiveMarker] === "replace") replace = true;
      else throw badPatchType(item[directiveMarker], item);
      continue;
    }
    items.push(item);
  }
  if (replace) return dedupe(items);
  const merged = dedupe([...original, ...items]);
  const id = identity(undefined);
  const patchIds = items.map(id);
  const fromPatch = (v: Json) => patchIds.some((p) => jsonEqual(p, v));
  const serverOrder = original.map(id);
  return mergeSortedSlice(
    sortByOrder(
      merged.filter((v) => !fromPatch(v)),
      serverOrder,
      id,
    ),
    sortByOrder(merged.filter(fromPatch), patchIds, id),
    serverOrder,
    id,
  );
}

function mergeByKey(original: Json[], patch: Json[], mergeKey: string, path: string, ctx: Context): Json[] {
  let base = original.slice();
  const items: JsonObject[] = [];
  let replace = false;
  for (const item of patch) {
    if (!isJsonObject(item))
      throw errors.badRequest(`list item ${JSON.stringify(item)} is not a map but the list merges on key "${mergeKey}"`);
    if (!(directiveMarker in item)) {
      items.push(item);
      continue;
    }
    const directive = item[directiveMarker];
    if (directive === "delete") {
      if (!(mergeKey in item)) throw errors.badRequest("delete patch type with no merge key defined");
      base = base.filter((o) => !(isJsonObject(o) && jsonEqual(o[mergeKey], item[mergeKey])));
    } else if (directive === "replace") {
      replace = true;
    } else if (directive === "merge") {
      // kube refuses "merging lists cannot yet be specified in the patch"; the sandbox treats it as a plain item.
      const { [directiveMarker]: _, ...rest } = item;
      items.push(rest);
    } else {
      throw badPatchType(directive, item);
    }
  }
  if (replace) return items.map((item) => fresh(item, path, ctx));

  const id = identity(mergeKey);
  const serverOrder = base.map(id);
  for (const item of items) {
    if (!(mergeKey in item)) {
      throw errors.badRequest(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`);
    }
    const at = base.findIndex((o) => isJsonObject(o) && jsonEqual(o[mergeKey], item[mergeKey]));
    const found = base[at];
    if (isJsonObject(found)) base[at] = mergeMap(found, item, path, ctx);
    else base.push(fresh(item, path, ctx));
  }
  const patchIds = items.map(id);
  const fromPatch = (v: Json) => patchIds.some((p) => jsonEqual(p, id(v)));
  return mergeSortedSlice(
    sortByOrder(
      base.filter((v) => !fromPatch(v)),
      serverOrder,
      id,
    ),
    sortByOrder(base.filter(fromPatch), patchIds, id),
    serverOrder,
    id,
  );
}

type Identity = (value: Json) => Json;
/** What identifies a list item: its merge key's value, or the value itself for primitives. */
const identity =
  (mergeKey: string | undefined): Identity =>
  (value) =>
    mergeKey !== undefined && isJsonObject(value) ? (value[mergeKey] ?? null) : value;

const indexIn = (order: Json[], key: Json): number => order.findIndex((o) => jsonEqual(o, key));

/** Items found in `order` sorted by it (stably); the rest keep their relative order at the end. */
function sortByOrder(items: Json[], order: Json[], id: Identity): Json[] {
  const known = items.filter((v) => indexIn(order, id(v)) >= 0);
  const unknown = items.filter((v) => indexIn(order, id(v)) < 0);
  known.sort((a, b) => indexIn(order, id(a)) - indexIn(order, id(b)));
  return [...known, ...unknown];
}

/**
 * Interleaves server-only items (`left`) with patch items (`right`), keeping each side's order:
 * a left item goes first only when both are in the live list and it came earlier there.
 */
function mergeSortedSlice(left: Json[], right: Json[], serverOrder: Json[], id: Identity): Json[] {
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    const l = left[i];
    const r = right[j];
    if (i >= left.length) {
      out.push(r as Json);
      j++;
    } else if (j >= right.length) {
      out.push(l as Json);
      i++;
    } else {
      const li = indexIn(serverOrder, id(l as Json));
      const ri = indexIn(serverOrder, id(r as Json));
      if (li >= 0 && ri >= 0 && li < ri) {
        out.push(l as Json);
        i++;
      } else {
        out.push(r as Json);
        j++;
      }
    }
  }
  return out;
}

function dedupe(items: Json[]): Json[] {
  const out: Json[] = [];
  for (const item of items) if (!out.some((o) => jsonEqual(o, item))) out.push(item);
  return out;
}

/** Deep equality of JSON values (object key order ignored). */
export function jsonEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, k) => jsonEqual(v, b[k]));
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}
