// The sandbox's object store, modelled on client-go's object tracker: deep copies in and out,
// sorted lists, one monotonic resourceVersion across all types, per-namespace buckets, and every
// change fed to the watch hub (watch-hub.ts) for watches and their resumes.
//
// The seam for indexes: every read of many objects goes through `scan` (it narrows by namespace
// bucket, or by a label index when the selector requires an indexed label's value, then tests
// each candidate against the filter), and every change passes through `commit` with the object
// before and after; an index keeps itself up to date there and lets `scan` visit only its
// candidates.
import { matchesFilter, type ListFilter } from "./filter.ts";
import { compareKeys, storageKey } from "./keys.ts";
import { LabelIndex } from "./label-index.ts";
import { WatchHub, type StoreEvent, type Watcher } from "./watch-hub.ts";
import { errors, type KubeObject, type ResourceType } from "../types.ts";

export type WriteVerb = "create" | "update" | "patch" | "delete";

/** Stored objects are plain JSON, so a JSON round trip is a faithful (and fast) deep copy. */
function freeze<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

const byNamespaceAndName = (a: KubeObject, b: KubeObject) => compareKeys(a.metadata.namespace ?? "", b.metadata.namespace ?? "") || compareKeys(a.metadata.name!, b.metadata.name!);

export class Store {
  private rv = 0;
  /** storage key → namespace ("" for cluster-scoped) → name → object. */
  private buckets = new Map<string, Map<string, Map<string, KubeObject>>>();
  private readonly hub: WatchHub;
  /** storage key → the label indexes of that type (indexLabel). */
  private readonly labelIndexes = new Map<string, LabelIndex[]>();
  /** Count of successful mutating requests by verb (dry runs excluded): for "writes nothing" tests. */
  readonly writes: Record<WriteVerb, number> = { create: 0, update: 0, patch: 0, delete: 0 };
  /** Told of every change after the watch hub (durable storage, the RBAC index). */
  private readonly committed = new Set<(event: StoreEvent) => void>();

  constructor(historyLimit = 10_000) {
    this.hub = new WatchHub(historyLimit);
  }

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

  /**
   * Keeps an index of a type's objects by one label (built now from what is stored): a scan whose
   * selector requires `label=value` then visits only the objects carrying that value.
   */
  indexLabel(type: Pick<ResourceType, "group" | "plural">, label: string): void {
    const key = storageKey(type);
    const indexes = this.labelIndexes.get(key) ?? [];
    if (indexes.some((i) => i.label === label)) return;
    const index = new LabelIndex(label);
    for (const space of this.buckets.get(key)?.values() ?? []) for (const obj of space.values()) index.add(obj);
    this.labelIndexes.set(key, [...indexes, index]);
  }

  /** Like `list`, but the stored objects themselves: callers must treat them as read-only. */
  scan(type: Pick<ResourceType, "group" | "plural">, filter: ListFilter = {}): readonly KubeObject[] {
    const bucket = this.buckets.get(storageKey(type));
    if (!bucket) return [];
    for (const index of this.labelIndexes.get(storageKey(type)) ?? []) {
      const value = index.valueIn(filter.labels);
      if (value === undefined) continue;
      const out: KubeObject[] = [];
      for (const [ns, name] of index.candidates(filter.namespace, value)) {
        const obj = bucket.get(ns)?.get(name);
        if (obj && matchesFilter(obj, filter)) out.push(obj);
      }
      return out.sort(byNamespaceAndName);
    }
    const spaces = filter.namespace !== undefined ? [bucket.get(filter.namespace) ?? new Map<string, KubeObject>()] : [...bucket.values()];
    const out: KubeObject[] = [];
    for (const space of spaces) for (const obj of space.values()) if (matchesFilter(obj, filter)) out.push(obj);
    return out.sort(byNamespaceAndName);
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
    this.commit({ type: "ADDED", rv: this.rv, key: storageKey(type), object: stored });
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
    this.commit({ type: "MODIFIED", rv: this.rv, key: storageKey(type), object: stored, previous });
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
    this.commit({ type: "DELETED", rv: this.rv, key: storageKey(type), object: gone });
    return freeze(gone);
  }

  countWrite(verb: WriteVerb): void {
    this.writes[verb]++;
  }

  /** Every change, once the bucket holds it: the indexes follow it here, then the watch hub. */
  private commit(event: StoreEvent): void {
    for (const index of this.labelIndexes.get(event.key) ?? []) {
      if (event.previous) index.remove(event.previous);
      if (event.type === "DELETED") index.remove(event.object);
      else index.add(event.object);
    }
    this.hub.emit(event);
    for (const listener of this.committed) listener(event);
  }

  /** Subscribes to every change (called synchronously, after the watch hub); returns the unsubscribe function. */
  onCommit(listener: (event: StoreEvent) => void): () => void {
    this.committed.add(listener);
    return () => this.committed.delete(listener);
  }

  /**
   * Puts back objects kept elsewhere (a durable file at start), each under its storage key with
   * its resourceVersion, through `commit` like any change; then the counter resumes at `rv` and
   * the history starts there (a resume from before it gets 410 Gone, as after etcd compaction).
   */
  restore(entries: Iterable<{ key: string; object: KubeObject }>, rv: number): void {
    for (const { key, object } of entries) {
      this.slot(key, object.metadata.namespace).set(object.metadata.name!, object);
      this.commit({ type: "ADDED", rv: Number(object.metadata.resourceVersion), key, object });
    }
    this.rv = Math.max(this.rv, rv);
    this.hub.forget(this.rv);
  }

  /**
   * Registers a watcher. With `fromRv` it first replays every retained event after it, or throws
   * 410 Gone when that point is older than the retained history.
   */
  watch(watcher: Watcher, fromRv?: number): () => void {
    return this.hub.watch(watcher, fromRv);
  }

  watcherCount(): number {
    return this.hub.watcherCount();
  }

  /** Test control: forget all history so every resume from an older resourceVersion gets 410. */
  forgetHistory(): void {
    this.hub.forget(this.rv);
  }
}
