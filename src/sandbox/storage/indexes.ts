// The store's indexes, as client-go's Indexer keeps them: per storage key, named index functions (object → values), and for each value the
// objects that have it, by namespace. The store updates them in `commit` and plans every multi-object read over the smallest candidate set
// (indexes.ts's `candidates`), so a read costs what it returns, not what is stored.
import type { FieldRequirement, LabelSelector } from "../selector.ts";
import type { KubeObject } from "../types.ts";
import { fieldValue } from "./filter.ts";

// Built in for every type: `labels` (values `key` and `key=value`, for label selectors' `=`, `in` and
// `exists`). Built in for some types: a field selector's fields (`field:<path>`). Others are defined
// on first use by whoever needs them (`Store.byIndex`), e.g. RBAC bindings by subject or token Secrets
// by their ServiceAccount.

/** The values an object has in one index (none: not in it). */
export type IndexFn = (obj: KubeObject) => readonly string[];

const LABEL_INDEX = "labels";
const fieldIndex = (field: string): string => `field:${field}`;

/** Fields that field selectors may name beyond metadata.name/namespace, indexed per storage key. */
const INDEXED_FIELDS: Record<string, readonly string[]> = {
  "/secrets": ["type"],
  "/events": ["involvedObject.kind", "involvedObject.name", "involvedObject.namespace", "involvedObject.uid"],
};

function labelValues(obj: KubeObject): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(obj.metadata.labels ?? {})) out.push(k, `${k}=${v}`);
  return out;
}

/** The names holding one index value, by namespace ("" for cluster-scoped objects). */
export class Postings {
  size = 0;
  readonly spaces = new Map<string, Set<string>>();

  add(namespace: string, name: string): void {
    let names = this.spaces.get(namespace);
    if (!names) this.spaces.set(namespace, (names = new Set()));
    if (names.has(name)) return;
    names.add(name);
    this.size++;
  }

  delete(namespace: string, name: string): void {
    const names = this.spaces.get(namespace);
    if (!names?.delete(name)) return;
    this.size--;
    if (names.size === 0) this.spaces.delete(namespace);
  }

  /** How many names, in one namespace or in all. */
  count(namespace: string | undefined): number {
    return namespace === undefined ? this.size : (this.spaces.get(namespace)?.size ?? 0);
  }
}

interface Index {
  fn: IndexFn;
  values: Map<string, Postings>;
}

/** Where to read a filtered list from: the count it would visit and the (namespace, name) pairs. */
export interface Candidates {
  count: number;
  keys(): Iterable<readonly [string, string]>;
}

export class Indexes {
  /** storage key → index name → index. */
  private readonly byKey = new Map<string, Map<string, Index>>();

  private indexesOf(key: string): Map<string, Index> {
    let indexes = this.byKey.get(key);
    if (!indexes) {
      indexes = new Map([[LABEL_INDEX, { fn: labelValues, values: new Map() }]]);
      for (const field of INDEXED_FIELDS[key] ?? [])
        indexes.set(fieldIndex(field), { fn: (o) => [fieldValue(o, field)], values: new Map() });
      this.byKey.set(key, indexes);
    }
    return indexes;
  }

  has(key: string, name: string): boolean {
    return this.indexesOf(key).has(name);
  }

  /** Adds index `name` to storage key `key` (once; later calls keep the first), filled from `existing`. */
  define(key: string, name: string, fn: IndexFn, existing: Iterable<KubeObject>): void {
    const indexes = this.indexesOf(key);
    if (indexes.has(name)) return;
    const index: Index = { fn, values: new Map() };
    indexes.set(name, index);
    for (const obj of existing) add(index, obj, fn(obj));
  }

  /** Follows one change: `previous` leaves the values it had, `next` joins the ones it has. */
  update(key: string, previous: KubeObject | undefined, next: KubeObject | undefined): void {
    const sameLabels = previous !== undefined && next !== undefined && sameMap(previous.metadata.labels, next.metadata.labels);
    for (const [name, index] of this.indexesOf(key)) {
      if (sameLabels && name === LABEL_INDEX) continue; // most updates leave labels alone
      const before = previous ? index.fn(previous) : [];
      const after = next ? index.fn(next) : [];
      if (previous && next && sameValues(before, after)) continue;
      if (previous) for (const v of before) index.values.get(v)?.delete(previous.metadata.namespace ?? "", previous.metadata.name!);
      if (next) add(index, next, after);
      for (const v of before) if (index.values.get(v)?.size === 0) index.values.delete(v);
    }
  }

  /** The names with `value` in index `name` (undefined: no object has it). */
  postings(key: string, name: string, value: string): Postings | undefined {
    return this.indexesOf(key).get(name)?.values.get(value);
  }

  /**
   * The smallest set of candidates an index offers for a label selector and field requirements,
   * or undefined when no requirement can use one (the caller reads the namespace, or all).
   */
  candidates(
    key: string,
    namespace: string | undefined,
    labels: LabelSelector | undefined,
    fields: readonly FieldRequirement[] | undefined,
  ): Candidates | undefined {
    let best: Postings[] | undefined;
    let bestCount = Number.POSITIVE_INFINITY;
    const consider = (name: string, values: readonly string[]) => {
      const found = values.map((v) => this.postings(key, name, v)).filter((p): p is Postings => p !== undefined);
      const count = found.reduce((n, p) => n + p.count(namespace), 0);
      if (count < bestCount) [best, bestCount] = [found, count];
    };
    for (const r of labels ?? []) {
      if (r.op === "=") consider(LABEL_INDEX, [`${r.key}=${r.value}`]);
      else if (r.op === "in")
        consider(
          LABEL_INDEX,
          [...new Set(r.values)].map((v) => `${r.key}=${v}`),
        );
      else if (r.op === "exists") consider(LABEL_INDEX, [r.key]);
    }
    for (const f of fields ?? []) if (f.op === "=" && this.has(key, fieldIndex(f.field))) consider(fieldIndex(f.field), [f.value]);
    if (!best) return undefined;
    const chosen: Postings[] = best;
    return {
      count: bestCount,
      *keys() {
        for (const p of chosen) {
          if (namespace !== undefined) for (const name of p.spaces.get(namespace) ?? []) yield [namespace, name] as const;
          else for (const [ns, names] of p.spaces) for (const name of names) yield [ns, name] as const;
        }
      },
    };
  }
}

function add(index: Index, obj: KubeObject, values: readonly string[]): void {
  for (const v of values) {
    let p = index.values.get(v);
    if (!p) index.values.set(v, (p = new Postings()));
    p.add(obj.metadata.namespace ?? "", obj.metadata.name!);
  }
}

function sameMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  if (a === b) return true;
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  for (const k of ka) if (a![k] !== b?.[k]) return false;
  return true;
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
