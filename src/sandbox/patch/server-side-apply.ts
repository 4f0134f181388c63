// Server-side apply and managedFields bookkeeping, after structured-merge-diff as kube-apiserver runs it, kept deliberately small: one
// Apply entry per manager holding exactly the fields of its last applied configuration, conflicts only against other appliers, and pruning
// of the fields an applier stopped setting unless someone else owns them.

import {
  diffFields,
  difference,
  emptySet,
  fieldsOf,
  fromFieldsV1,
  intersection,
  isEmptySet,
  itemElement,
  members,
  pathString,
  strippedMetadata,
  toFieldsV1,
  union,
  withoutSubtrees,
} from "./fields.ts";
import type { FieldSet, Shape } from "./fields.ts";
import { childPath, isAtomicMapAt, itemPath, listSchemaAt } from "./lists.ts";
import { isJsonObject, jsonEqual } from "./strategic.ts";
import { ApiError, deepCopy, errors } from "../types.ts";
import type { Json, JsonObject, KubeObject, ManagedFieldsEntry } from "../types.ts";

interface Managed {
  entry: ManagedFieldsEntry;
  set: FieldSet;
}

const sameSubresource = (entry: ManagedFieldsEntry, subresource: string | undefined) => (entry.subresource ?? "") === (subresource ?? "");

const readManaged = (object: KubeObject | undefined): Managed[] =>
  (object?.metadata.managedFields ?? []).map((entry) => ({ entry, set: fromFieldsV1(entry.fieldsV1) }));

/** Encodes the entries kube's way: Apply before Update, then by time, manager, version, subresource. */
function writeManaged(managed: Managed[]): ManagedFieldsEntry[] {
  const entries = managed.map(({ entry, set }) => ({ ...deepCopy(entry), fieldsV1: toFieldsV1(set) }));
  const by = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return entries.sort(
    (p, q) =>
      by(p.operation, q.operation) ||
      by(p.time, q.time) ||
      by(p.manager, q.manager) ||
      by(p.apiVersion, q.apiVersion) ||
      by(p.subresource ?? "", q.subresource ?? ""),
  );
}

function newEntry(
  manager: string,
  operation: ManagedFieldsEntry["operation"],
  apiVersion: string,
  time: string,
  subresource: string | undefined,
): ManagedFieldsEntry {
  const entry: ManagedFieldsEntry = { manager, operation, apiVersion, time, fieldsType: "FieldsV1", fieldsV1: {} };
  if (subresource) entry.subresource = subresource;
  return entry;
}

const withoutManagedFields = (object: KubeObject): JsonObject => {
  const copy = deepCopy(object) as unknown as JsonObject;
  if (isJsonObject(copy.metadata)) delete copy.metadata.managedFields;
  return copy;
};

/** How kube names a manager in a conflict message. */
function printManager(entry: ManagedFieldsEntry): string {
  const name = JSON.stringify(entry.manager);
  return entry.subresource ? `${name} with subresource ${JSON.stringify(entry.subresource)}` : name;
}

function conflictError(conflicts: { manager: ManagedFieldsEntry; path: string }[]): ApiError {
  const causes = conflicts.map((c) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${printManager(c.manager)}`,
    field: c.path,
  }));
  const first = conflicts[0];
  if (conflicts.length === 1 && first) {
    return new ApiError(409, "Conflict", `Apply failed with 1 conflict: conflict with ${printManager(first.manager)}: ${first.path}`, {
      causes,
    });
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const name = printManager(c.manager);
    byManager.set(name, [...(byManager.get(name) ?? []), c.path]);
  }
  const lines = [...byManager.keys()]
    .sort()
    .flatMap((name) => [`conflicts with ${name}:`, ...(byManager.get(name) ?? []).map((path) => `- ${path}`)]);
  return new ApiError(409, "Conflict", `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`, { causes });
}

/**
 * Server-side apply of `applied` (already parsed from YAML or JSON) by `opts.manager`. Creates from
 * the configuration when `current` is undefined. Throws a 409 Conflict when another applier owns a
 * field whose value would change, unless `force`, which takes the field over.
 */
export function serverSideApply(
  current: KubeObject | undefined,
  applied: KubeObject,
  opts: { manager: string; force: boolean; builtin: boolean; now: string; subresource?: string },
): KubeObject {
  if (!isJsonObject(applied)) throw errors.badRequest("the applied configuration must be an object");
  if (typeof applied.apiVersion !== "string" || typeof applied.kind !== "string") {
    throw errors.badRequest("apiVersion and kind are required in an applied configuration");
  }
  if (!isJsonObject(applied.metadata)) throw errors.badRequest("metadata is required in an applied configuration");
  if (applied.metadata.managedFields !== undefined && applied.metadata.managedFields !== null) {
    throw errors.badRequest("metadata.managedFields must be nil");
  }
  if (current && applied.kind !== current.kind) {
    throw errors.badRequest(`the kind in the applied configuration (${applied.kind}) does not match the object (${current.kind})`);
  }
  const shape: Shape = { kind: current?.kind ?? applied.kind, builtin: opts.builtin };
  const config = configuration(applied, opts.subresource);
  const appliedSet = fieldsOf(config, shape, true);
  const mine = newEntry(opts.manager, "Apply", applied.apiVersion, opts.now, opts.subresource);

  if (!current) {
    const created = mergeValue({}, config, "", shape) as unknown as KubeObject;
    created.metadata.managedFields = writeManaged([{ entry: mine, set: appliedSet }]);
    return created;
  }

  const live = withoutManagedFields(current);
  const target = deepCopy(config);
  delete target.apiVersion;
  delete target.kind;
  if (isJsonObject(target.metadata)) for (const field of strippedMetadata) delete target.metadata[field];
  const merged = mergeValue(live, target, "", shape) as JsonObject;

  const all = readManaged(current);
  const previous = all.find(
    ({ entry }) => entry.manager === opts.manager && entry.operation === "Apply" && sameSubresource(entry, opts.subresource),
  );
  const others = all.filter((m) => m !== previous);
  const { changed, removed } = diffFields(live, merged, shape);

  const conflicts: { manager: ManagedFieldsEntry; path: string }[] = [];
  for (const other of others) {
    const taken = intersection(changed, other.set);
    if (other.entry.operation === "Apply") {
      for (const path of members(taken)) conflicts.push({ manager: other.entry, path: pathString(path) });
    }
    other.set = withoutSubtrees(difference(other.set, taken), removed);
  }
  if (conflicts.length > 0 && !opts.force) throw conflictError(conflicts);

  const othersOwn = others.reduce((acc, m) => union(acc, m.set), emptySet());
  const toRemove = difference(difference(previous?.set ?? emptySet(), appliedSet), othersOwn);
  removeFields(merged, toRemove, othersOwn, "", shape);

  const unchanged = previous && jsonEqual(live, merged) && jsonEqual(toFieldsV1(previous.set), toFieldsV1(appliedSet));
  if (unchanged) mine.time = previous.entry.time;
  const kept = others.filter((m) => !isEmptySet(m.set));
  const result = merged as unknown as KubeObject;
  result.metadata.managedFields = writeManaged([{ entry: mine, set: appliedSet }, ...kept]);
  return result;
}

/** The part of an applied configuration that the request may set: only status on /status. */
function configuration(applied: KubeObject, subresource: string | undefined): JsonObject {
  const config = deepCopy(applied) as unknown as JsonObject;
  if (isJsonObject(config.metadata)) delete config.metadata.managedFields;
  if (subresource !== "status") return config;
  const meta = isJsonObject(config.metadata) ? config.metadata : {};
  const status: JsonObject = { apiVersion: applied.apiVersion, kind: applied.kind, metadata: {} };
  for (const field of ["name", "namespace"]) if (meta[field] !== undefined) (status.metadata as JsonObject)[field] = meta[field] as Json;
  if (config.status !== undefined) status.status = config.status;
  return status;
}

/** Merges an applied configuration into a live value: maps by field, keyed lists by key, sets by value. */
function mergeValue(live: Json | undefined, applied: Json, path: string, shape: Shape): Json {
  if (isJsonObject(applied) && !isAtomicMapAt(shape.kind, path, shape.builtin)) {
    const out: JsonObject = isJsonObject(live) ? { ...live } : {};
    for (const [key, value] of Object.entries(applied)) {
      if (value === undefined) continue;
      if (value === null) delete out[key];
      else out[key] = mergeValue(out[key], value, childPath(path, key), shape);
    }
    return out;
  }
  if (Array.isArray(applied)) {
    const schema = listSchemaAt(shape.kind, path, shape.builtin);
    const items = Array.isArray(live) ? live : [];
    if (schema?.listType === "set") return [...items, ...applied.filter((v) => !items.some((l) => jsonEqual(l, v)))];
    if (schema?.listType === "map" && items.every(isJsonObject) && applied.every(isJsonObject)) {
      return mergeKeyedList(items, applied, itemPath(path), shape, (item) => itemElement(item, schema, false));
    }
  }
  return deepCopy(applied);
}

/**
 * Applied items in applied order, merged with their live counterparts; live-only items stay just
 * before the live item they preceded.
 */
function mergeKeyedList(live: Json[], applied: Json[], path: string, shape: Shape, key: (item: Json) => string | undefined): Json[] {
  const liveKeys = live.map(key);
  const appliedKeys = new Set(applied.map(key));
  const out: Json[] = [];
  let next = 0;
  const flushLiveOnly = (upTo: number) => {
    for (; next < upTo; next++) {
      const item = live[next];
      if (item !== undefined && !appliedKeys.has(liveKeys[next])) out.push(item);
    }
  };
  for (const item of applied) {
    const at = liveKeys.indexOf(key(item));
    if (at >= 0) {
      flushLiveOnly(at);
      next = Math.max(next, at + 1);
    }
    out.push(mergeValue(at >= 0 ? live[at] : undefined, item, path, shape));
  }
  flushLiveOnly(live.length);
  return out;
}

/** Removes the members of `set` from `value`, keeping what `keep` (others' fields) still needs. */
function removeFields(value: JsonObject, set: FieldSet, keep: FieldSet, path: string, shape: Shape): void {
  for (const [element, node] of set.children) {
    if (!element.startsWith("f:")) continue;
    const field = element.slice(2);
    const here = childPath(path, field);
    const kept = keep.children.get(element) ?? emptySet();
    const child = value[field];
    if (child === undefined) continue;
    if (node.self && isEmptySet(kept)) {
      delete value[field];
    } else if (isJsonObject(child)) {
      removeFields(child, node, kept, here, shape);
      if (Object.keys(child).length === 0) delete value[field];
    } else if (Array.isArray(child)) {
      const rest = removeItems(child, node, kept, here, shape);
      if (rest.length === 0 && child.length > 0) delete value[field];
      else value[field] = rest;
    }
  }
}

function removeItems(list: Json[], set: FieldSet, keep: FieldSet, path: string, shape: Shape): Json[] {
  const schema = listSchemaAt(shape.kind, path, shape.builtin);
  return list.filter((item) => {
    const element = itemElement(item, schema, false);
    const node = element === undefined ? undefined : set.children.get(element);
    if (!node || element === undefined) return true;
    const kept = keep.children.get(element) ?? emptySet();
    if (node.self && isEmptySet(kept)) return false;
    if (isJsonObject(item)) removeFields(item, node, kept, itemPath(path), shape);
    return true;
  });
}

/**
 * Records a create, update or non-apply patch by `opts.manager` in managedFields: its Update entry
 * gains the fields that were added or changed, every entry loses the fields that were removed, and
 * other managers lose the fields this one changed.
 */
export function recordUpdateManager(
  previous: KubeObject | undefined,
  next: KubeObject,
  opts: { manager: string; now: string; subresource?: string },
): KubeObject {
  const result = deepCopy(next);
  const shape: Shape = { kind: next.kind, builtin: true };
  const after = withoutManagedFields(next);
  const { changed, removed } = previous
    ? diffFields(withoutManagedFields(previous), after, shape)
    : { changed: fieldsOf(after, shape), removed: emptySet() };

  const all = readManaged(previous);
  const mineAt = all.findIndex(
    ({ entry }) =>
      entry.manager === opts.manager &&
      entry.operation === "Update" &&
      entry.apiVersion === next.apiVersion &&
      sameSubresource(entry, opts.subresource),
  );
  const mine = all[mineAt];
  const others = all.filter((_, i) => i !== mineAt);
  for (const other of others) other.set = withoutSubtrees(difference(other.set, changed), removed);

  const touched = !isEmptySet(changed) || !isEmptySet(removed);
  const entry = mine?.entry ?? newEntry(opts.manager, "Update", next.apiVersion, opts.now, opts.subresource);
  if (touched) entry.time = opts.now;
  const set = withoutSubtrees(union(mine?.set ?? emptySet(), changed), removed);
  const kept = [...(isEmptySet(set) ? [] : [{ entry, set }]), ...others.filter((m) => !isEmptySet(m.set))];
  if (kept.length > 0) result.metadata.managedFields = writeManaged(kept);
  else delete result.metadata.managedFields;
  return result;
}
