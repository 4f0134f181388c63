// The sandbox's object store, modelled on client-go's object tracker: deep copies in and out,
// sorted lists, one monotonic resourceVersion across all types, a bounded event history for
// watches (410 Gone when a resume point has been forgotten), and per-namespace indexes.
import { matchesLabels, type FieldRequirement, type LabelSelector } from "./selector.ts";
import { storageKey } from "./resources.ts";
import { ApiError, errors, type KubeObject, type ResourceType } from "./types.ts";

export type EventType = "ADDED" | "MODIFIED" | "DELETED";

export interface StoreEvent {
  type: EventType;
  rv: number;
  key: string; // storage key group/plural
  object: KubeObject;
  /** The object before this change (MODIFIED only): lets filtered watches send ADDED/DELETED. */
  previous?: KubeObject;
}

export interface ListFilter {
  namespace?: string;
  labels?: LabelSelector;
  fields?: FieldRequirement[];
}

export interface Watcher extends ListFilter {
  key: string;
  send(event: StoreEvent): void;
}

export type WriteVerb = "create" | "update" | "patch" | "delete";

export function matchesFilter(obj: KubeObject, f: ListFilter): boolean {
  if (f.namespace !== undefined && obj.metadata.namespace !== f.namespace) return false;
  if (f.labels && !matchesLabels(f.labels, obj.metadata.labels)) return false;
  for (const r of f.fields ?? []) {
    const actual = fieldValue(obj, r.field);
    if ((actual === r.value) !== (r.op === "=")) return false;
  }
  return true;
}

function fieldValue(obj: KubeObject, field: string): string {
  if (field === "metadata.name") return obj.metadata.name ?? "";
  if (field === "metadata.namespace") return obj.metadata.namespace ?? "";
  let node: unknown = obj;
  for (const part of field.split(".")) node = (node as Record<string, unknown> | undefined)?.[part];
  return node === undefined || node === null ? "" : String(node);
}

/** Byte order, as etcd keys sort (localeCompare would put "a-b" and "ab" differently). */
const compareKeys = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Stored objects are plain JSON, so a JSON round trip is a faithful (and fast) deep copy. */
function freeze<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export class Store {
  private rv = 0;
  /** storage key → namespace ("" for cluster-scoped) → name → object. */
  private buckets = new Map<string, Map<string, Map<string, KubeObject>>>();
  private history: StoreEvent[] = [];
  /** Oldest resourceVersion a watch may resume from; older ones get 410 Gone. */
  private floor = 0;
  private watchers = new Map<string, Set<Watcher>>();
  /** Count of successful mutating requests by verb (dry runs excluded): for "writes nothing" tests. */
  readonly writes: Record<WriteVerb, number> = { create: 0, update: 0, patch: 0, delete: 0 };

  constructor(private historyLimit = 10_000) {}

  get resourceVersion(): string {
    return String(this.rv);
  }

  nextResourceVersion(): string {
    return String(++this.rv);
  }

  /** The per-namespace map an object lives in, created on demand. */
  private slot(key: string, namespace: string | undefined): Map<string, KubeObject> {
    let b = this.buckets.get(key);
    if (!b) this.buckets.set(key, (b = new Map()));
    let ns = b.get(namespace ?? "");
    if (!ns) b.set(namespace ?? "", (ns = new Map()));
    return ns;
  }

  get(type: Pick<ResourceType, "group" | "plural">, namespace: string | undefined, name: string): KubeObject | undefined {
    const found = this.buckets.get(storageKey(type))?.get(namespace ?? "")?.get(name);
    return found ? freeze(found) : undefined;
  }

  /** Sorted by namespace then name, as kube-apiserver lists. A namespace filter reads only that namespace. */
  list(type: Pick<ResourceType, "group" | "plural">, filter: ListFilter = {}): KubeObject[] {
    return this.scan(type, filter).map(freeze);
  }

  /** Like `list`, but the stored objects themselves: callers must treat them as read-only. */
  scan(type: Pick<ResourceType, "group" | "plural">, filter: ListFilter = {}): readonly KubeObject[] {
    const bucket = this.buckets.get(storageKey(type));
    if (!bucket) return [];
    const spaces = filter.namespace !== undefined ? [bucket.get(filter.namespace) ?? new Map<string, KubeObject>()] : [...bucket.values()];
    const out: KubeObject[] = [];
    for (const space of spaces) for (const obj of space.values()) if (matchesFilter(obj, filter)) out.push(obj);
    out.sort((a, b) => compareKeys(a.metadata.namespace ?? "", b.metadata.namespace ?? "") || compareKeys(a.metadata.name!, b.metadata.name!));
    return out;
  }

  count(type: Pick<ResourceType, "group" | "plural">): number {
    let n = 0;
    for (const space of this.buckets.get(storageKey(type))?.values() ?? []) n += space.size;
    return n;
  }

  /** Stores a new object. The caller has filled name and metadata; this assigns rv. */
  insert(type: ResourceType, obj: KubeObject): KubeObject {
    const bucket = this.slot(storageKey(type), obj.metadata.namespace);
    const k = obj.metadata.name!;
    if (bucket.has(k)) throw errors.alreadyExists(type.plural, obj.metadata.name!, type.group);
    const stored = freeze(obj);
    stored.metadata.resourceVersion = this.nextResourceVersion();
    bucket.set(k, stored);
    this.emit({ type: "ADDED", rv: this.rv, key: storageKey(type), object: stored });
    return freeze(stored);
  }

  /** Replaces a stored object; `expectedRv` (when given) must match or it is a 409 Conflict. */
  replace(type: ResourceType, obj: KubeObject, expectedRv?: string): KubeObject {
    const bucket = this.slot(storageKey(type), obj.metadata.namespace);
    const k = obj.metadata.name!;
    const previous = bucket.get(k);
    if (!previous) throw errors.notFound(type.plural, obj.metadata.name!, type.group);
    if (expectedRv !== undefined && expectedRv !== "" && expectedRv !== previous.metadata.resourceVersion) {
      throw errors.conflict(type.plural, obj.metadata.name!, type.group);
    }
    const stored = freeze(obj);
    stored.metadata.resourceVersion = this.nextResourceVersion();
    bucket.set(k, stored);
    this.emit({ type: "MODIFIED", rv: this.rv, key: storageKey(type), object: stored, previous });
    return freeze(stored);
  }

  remove(type: ResourceType, namespace: string | undefined, name: string, expected?: { uid?: string; resourceVersion?: string }): KubeObject {
    const bucket = this.slot(storageKey(type), namespace);
    const k = name;
    const previous = bucket.get(k);
    if (!previous) throw errors.notFound(type.plural, name, type.group);
    if (expected?.uid && expected.uid !== previous.metadata.uid) {
      throw errors.conflict(type.plural, name, type.group, `Precondition failed: UID in precondition: ${expected.uid}, UID in object meta: ${previous.metadata.uid}`);
    }
    if (expected?.resourceVersion && expected.resourceVersion !== previous.metadata.resourceVersion) {
      throw errors.conflict(type.plural, name, type.group);
    }
    bucket.delete(k);
    const gone = freeze(previous);
    gone.metadata.resourceVersion = this.nextResourceVersion();
    this.emit({ type: "DELETED", rv: this.rv, key: storageKey(type), object: gone });
    return freeze(gone);
  }

  countWrite(verb: WriteVerb): void {
    this.writes[verb]++;
  }

  private emit(event: StoreEvent): void {
    this.history.push(event);
    if (this.history.length > this.historyLimit) {
      const dropped = this.history.splice(0, this.history.length - this.historyLimit);
      this.floor = Math.max(this.floor, dropped[dropped.length - 1]!.rv);
    }
    for (const w of this.watchers.get(event.key) ?? []) w.send(event);
  }

  /**
   * Registers a watcher. With `fromRv` it first replays every retained event after it, or throws
   * 410 Gone when that point is older than the retained history.
   */
  watch(watcher: Watcher, fromRv?: number): () => void {
    if (fromRv !== undefined) {
      if (fromRv < this.floor) {
        throw new ApiError(410, "Expired", `too old resource version: ${fromRv} (${this.floor + 1})`);
      }
      for (const e of this.history) if (e.rv > fromRv && e.key === watcher.key) watcher.send(e);
    }
    let set = this.watchers.get(watcher.key);
    if (!set) this.watchers.set(watcher.key, (set = new Set()));
    set.add(watcher);
    return () => {
      set.delete(watcher);
    };
  }

  watcherCount(): number {
    let n = 0;
    for (const set of this.watchers.values()) n += set.size;
    return n;
  }

  /** Test control: forget all history so every resume from an older resourceVersion gets 410. */
  forgetHistory(): void {
    this.history = [];
    this.floor = this.rv;
  }
}
