// What a list or a watch asks for: a namespace, a label selector, field requirements. The store
// reads candidates from its namespace buckets or an index (indexes.ts) and tests each with this.
import { matchesLabels, type FieldRequirement, type LabelSelector } from "../selector.ts";
import type { KubeObject } from "../types.ts";

export interface ListFilter {
  namespace?: string;
  labels?: LabelSelector;
  fields?: FieldRequirement[];
}

export function matchesFilter(obj: KubeObject, f: ListFilter): boolean {
  if (f.namespace !== undefined && obj.metadata.namespace !== f.namespace) return false;
  if (f.labels && !matchesLabels(f.labels, obj.metadata.labels)) return false;
  for (const r of f.fields ?? []) {
    const actual = fieldValue(obj, r.field);
    if ((actual === r.value) !== (r.op === "=")) return false;
  }
  return true;
}

/** A field selector's view of a field: its value as text, "" when absent. */
export function fieldValue(obj: KubeObject, field: string): string {
  if (field === "metadata.name") return obj.metadata.name ?? "";
  if (field === "metadata.namespace") return obj.metadata.namespace ?? "";
  let node: unknown = obj;
  for (const part of field.split(".")) node = (node as Record<string, unknown> | undefined)?.[part];
  return node === undefined || node === null ? "" : String(node);
}
