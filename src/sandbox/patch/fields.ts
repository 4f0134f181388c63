// Field sets in structured-merge-diff's shape, as metadata.managedFields stores them (FieldsV1): `f:<field>` for a map field,
// `k:{"key":value}` for an item of a list keyed by fields, `v:<json>` for an item of a set of primitives, and "." for "this node itself"
// when a node is both owned and has owned children. A node with `self` is a member of the set.

import { childPath, isAtomicMapAt, itemPath, listSchemaAt } from "./lists.ts";
import type { ListSchema } from "./lists.ts";
import { isJsonObject, jsonEqual } from "./strategic.ts";
import { errors } from "../types.ts";
import type { Json, JsonObject } from "../types.ts";

export interface FieldSet {
  self: boolean;
  children: Map<string, FieldSet>;
}

/** What the walkers need to know about the object: its kind and whether it is built in. */
export interface Shape {
  kind: string;
  builtin: boolean;
}

export const emptySet = (): FieldSet => ({ self: false, children: new Map() });
const leaf = (): FieldSet => ({ self: true, children: new Map() });
export const isEmptySet = (set: FieldSet): boolean => !set.self && set.children.size === 0;

function attach(parent: FieldSet, element: string, child: FieldSet): void {
  if (!isEmptySet(child)) parent.children.set(element, child);
}

export function union(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = { self: a.self || b.self, children: new Map() };
  for (const key of new Set([...a.children.keys(), ...b.children.keys()])) {
    attach(out, key, union(a.children.get(key) ?? emptySet(), b.children.get(key) ?? emptySet()));
  }
  return out;
}

/** Members of `a` that are not members of `b`. */
export function difference(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = { self: a.self && !b.self, children: new Map() };
  for (const [key, child] of a.children) {
    const other = b.children.get(key);
    attach(out, key, other ? difference(child, other) : child);
  }
  return out;
}

export function intersection(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = { self: a.self && b.self, children: new Map() };
  for (const [key, child] of a.children) {
    const other = b.children.get(key);
    if (other) attach(out, key, intersection(child, other));
  }
  return out;
}

/** `a` without everything at or below each member of `roots` (a removed value takes its subtree). */
export function withoutSubtrees(a: FieldSet, roots: FieldSet): FieldSet {
  if (roots.self) return emptySet();
  const out: FieldSet = { self: a.self, children: new Map() };
  for (const [key, child] of a.children) {
    const root = roots.children.get(key);
    attach(out, key, root ? withoutSubtrees(child, root) : child);
  }
  return out;
}

const elementRank = (element: string): number => ({ f: 0, k: 1, v: 2, i: 3 })[element[0] ?? ""] ?? 4;
const compareElements = (a: string, b: string): number => elementRank(a) - elementRank(b) || (a < b ? -1 : a > b ? 1 : 0);
const sortedChildren = (set: FieldSet) => [...set.children].sort(([a], [b]) => compareElements(a, b));

export function toFieldsV1(set: FieldSet): JsonObject {
  const out: JsonObject = {};
  if (set.self && set.children.size > 0) out["."] = {};
  for (const [key, child] of sortedChildren(set)) out[key] = toFieldsV1(child);
  return out;
}

export function fromFieldsV1(fields: Json | undefined): FieldSet {
  const set = emptySet();
  if (!isJsonObject(fields)) return set;
  for (const [key, value] of Object.entries(fields)) {
    if (key === ".") {
      set.self = true;
      continue;
    }
    const child = fromFieldsV1(value);
    if (child.children.size === 0) child.self = true;
    set.children.set(key, child);
  }
  return set;
}

/** Every member as its list of path elements, in structured-merge-diff's order. */
export function members(set: FieldSet, prefix: string[] = []): string[][] {
  const out: string[][] = set.self && prefix.length > 0 ? [prefix] : [];
  for (const [key, child] of sortedChildren(set)) out.push(...members(child, [...prefix, key]));
  return out;
}

/** A path as kube prints it in conflicts: `.spec.containers[name="web"].image`. */
export function pathString(elements: string[]): string {
  return elements
    .map((element) => {
      const body = element.slice(2);
      if (element.startsWith("f:")) return `.${body}`;
      if (element.startsWith("v:")) return `[=${body}]`;
      if (element.startsWith("i:")) return `[${body}]`;
      const key = JSON.parse(body) as JsonObject;
      return `[${Object.entries(key)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(",")}]`;
    })
    .join("");
}

/** Fields the API server never tracks ownership of. */
const strippedTop = ["apiVersion", "kind"];
export const strippedMetadata = [
  "name",
  "namespace",
  "creationTimestamp",
  "selfLink",
  "uid",
  "clusterName",
  "generation",
  "managedFields",
  "resourceVersion",
];

function strip(set: FieldSet): FieldSet {
  for (const field of strippedTop) set.children.delete(`f:${field}`);
  const metadata = set.children.get("f:metadata");
  if (metadata) {
    metadata.self = false;
    for (const field of strippedMetadata) metadata.children.delete(`f:${field}`);
    if (isEmptySet(metadata)) set.children.delete("f:metadata");
  }
  return set;
}

interface Walk {
  shape: Shape;
  /** Applied configurations must name every key field of a keyed list's items. */
  strict: boolean;
}

const listAt = (walk: Walk, path: string): ListSchema | undefined => listSchemaAt(walk.shape.kind, path, walk.shape.builtin);

/** The path element naming `item` of a list, or undefined when the list is atomic. */
export function itemElement(item: Json, schema: ListSchema | undefined, strict: boolean): string | undefined {
  if (schema?.listType === "set") return `v:${JSON.stringify(item)}`;
  if (schema?.listType !== "map" || !isJsonObject(item)) return undefined;
  const key: JsonObject = {};
  for (const name of [...(schema.keys ?? [])].sort()) {
    const value = item[name] ?? schema.keyDefaults?.[name];
    if (value === undefined) {
      if (strict) {
        throw errors.badRequest(
          `associative list with keys has an element that omits key field ${JSON.stringify(name)} (and doesn't have default value)`,
        );
      }
      continue;
    }
    key[name] = value;
  }
  return `k:${JSON.stringify(key)}`;
}

/** Whether the list at `path` has identifiable items (keyed or a set) in this object. */
function isGranularList(list: Json[], schema: ListSchema | undefined): boolean {
  if (schema?.listType === "set") return true;
  return schema?.listType === "map" && list.every(isJsonObject);
}

/** The field set of a value sitting at `path`. */
function valueFields(value: Json, path: string, walk: Walk): FieldSet {
  if (isJsonObject(value)) {
    if (Object.keys(value).length === 0 || isAtomicMapAt(walk.shape.kind, path, walk.shape.builtin)) return leaf();
    const set = emptySet();
    for (const [key, child] of Object.entries(value)) {
      if (child !== undefined) attach(set, `f:${key}`, valueFields(child, childPath(path, key), walk));
    }
    return set;
  }
  if (Array.isArray(value)) {
    const schema = listAt(walk, path);
    if (!isGranularList(value, schema)) return leaf();
    const set = emptySet();
    for (const item of value) {
      const element = itemElement(item, schema, walk.strict);
      if (element === undefined) continue;
      if (walk.strict && set.children.has(element)) {
        throw errors.badRequest(`duplicate entries for key ${pathString([element])} in ${path}`);
      }
      const itemSet = schema?.listType === "map" ? valueFields(item, itemPath(path), walk) : emptySet();
      itemSet.self = true;
      set.children.set(element, itemSet);
    }
    return set;
  }
  return leaf();
}

/** The fields an object (an applied configuration, or a whole created object) sets. */
export function fieldsOf(object: JsonObject, shape: Shape, strict = false): FieldSet {
  return strip(valueFields(object, "", { shape, strict }));
}

export interface FieldDiff {
  /** Fields added or given a new value. */
  changed: FieldSet;
  /** Roots of the values that were removed. */
  removed: FieldSet;
}

/** What changed between two versions of an object, as field sets. */
export function diffFields(before: JsonObject, after: JsonObject, shape: Shape): FieldDiff {
  const diff = diffValue(before, after, "", { shape, strict: false });
  return { changed: strip(diff.changed), removed: strip(diff.removed) };
}

function diffValue(a: Json | undefined, b: Json | undefined, path: string, walk: Walk): FieldDiff {
  const diff: FieldDiff = { changed: emptySet(), removed: emptySet() };
  if (jsonEqual(a, b)) return diff;
  if (a === undefined) return { changed: valueFields(b as Json, path, walk), removed: diff.removed };
  if (b === undefined) return { changed: diff.changed, removed: leaf() };
  const descend = (element: string, child: FieldDiff) => {
    attach(diff.changed, element, child.changed);
    attach(diff.removed, element, child.removed);
  };
  if (isJsonObject(a) && isJsonObject(b) && !isAtomicMapAt(walk.shape.kind, path, walk.shape.builtin)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      descend(`f:${key}`, diffValue(a[key], b[key], childPath(path, key), walk));
    }
    return diff;
  }
  const schema = Array.isArray(a) && Array.isArray(b) ? listAt(walk, path) : undefined;
  if (Array.isArray(a) && Array.isArray(b) && isGranularList(a, schema) && isGranularList(b, schema)) {
    const index = (list: Json[]) => {
      const items = new Map<string, Json>();
      for (const item of list) {
        const element = itemElement(item, schema, false);
        if (element !== undefined && !items.has(element)) items.set(element, item);
      }
      return items;
    };
    const before = index(a);
    const after = index(b);
    for (const element of new Set([...before.keys(), ...after.keys()])) {
      const child = diffValue(before.get(element), after.get(element), itemPath(path), walk);
      if (after.has(element) && !before.has(element)) child.changed.self = true;
      descend(element, child);
    }
    return diff;
  }
  return { changed: leaf(), removed: diff.removed };
}
