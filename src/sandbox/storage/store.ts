// The sandbox's object store, modelled on client-go's object tracker: deep copies in and out, sorted lists, one monotonic resourceVersion
// across all types, per-namespace buckets, and every change fed to the watch hub (watch-hub.ts) for watches and their resumes. Every read
// of many objects goes through `scan`, every change through `commit` with the object before and after.
import { matchesFilter, type ListFilter } from "./filter.ts";
import { Indexes, type IndexFn } from "./indexes.ts";
import { compareKeys, storageKey } from "./keys.ts";
import { WatchHub, type StoreEvent, type Watcher } from "./watch-hub.ts";
import { deepCopy, errors, type KubeObject, type ResourceType } from "../types.ts";

// `commit` keeps the indexes (indexes.ts: labels, some fields, and any defined with `byIndex`) up to
// date; `scan` visits only the smallest candidate set they, the namespace bucket or a name offer, so a
// read costs what it returns, not what is stored.

export type WriteVerb = "create" | "update" | "patch" | "delete";

/** What goes in is made plain JSON by a round trip (undefined fields go, as over the wire). */
function freeze<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** What comes out is a copy of plain JSON already. */
const copyOut = deepCopy;

const byKey = (a: KubeObject, b: KubeObject) =>
  compareKeys(a.metadata.namespace ?? "", b.metadata.namespace ?? "") || compareKeys(a.metadata.name!, b.metadata.name!);

export class Store {
  private rv = 0;
  /** storage key → namespace ("" for cluster-scoped) → name → object. */
  private buckets = new Map<string, Map<string, Map<string, KubeObject>>>();
  private readonly hub: WatchHub;
  private readonly indexes = new Indexes();
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
    const found = this.peek(type, namespace, name);
    return found ? copyOut(found) : undefined;
  }

  /** Like `get`, but the stored object itself: callers must treat it as read-only. */
  peek(type: Pick<ResourceType, "group" | "plural">, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.buckets
      .get(storageKey(type))
      ?.get(namespace ?? "")
      ?.get(name);
  }

  has(type: Pick<ResourceType, "group" | "plural">, namespace: string | undefined, name: string): boolean {
    return this.peek(type, namespace, name) !== undefined;
  }

  /** Sorted by namespace then name, as kube-apiserver lists. A namespace filter reads only that namespace. */
  list(type: Pick<ResourceType, "group" | "plural">, filter: ListFilter = {}): KubeObject[] {
    return this.scan(type, filter).map(copyOut);
  }

  /**
   * Like `list`, but the stored objects themselves: callers must treat them as read-only. Visits
   * the fewest objects it can: one name, one index value's, one namespace's, or all.
   */
  scan(type: Pick<ResourceType, "group" | "plural">, filter: ListFilter = {}): readonly KubeObject[] {
    const key = storageKey(type);
    const bucket = this.buckets.get(key);
    if (!bucket) return [];
    const { namespace } = filter;
    const out: KubeObject[] = [];
    const name = filter.fields?.find((f) => f.field === "metadata.name" && f.op === "=")?.value;
    if (name !== undefined) {
      const spaces = namespace !== undefined ? [bucket.get(namespace)] : [...bucket.values()];
      for (const space of spaces) {
        const obj = space?.get(name);
        if (obj && matchesFilter(obj, filter)) out.push(obj);
      }
      return out.sort(byKey);
    }
    const spaces = namespace !== undefined ? [bucket.get(namespace) ?? new Map<string, KubeObject>()] : [...bucket.values()];
    const visitAll = spaces.reduce((n, s) => n + s.size, 0);
    const indexed = this.indexes.candidates(key, namespace, filter.labels, filter.fields);
    if (indexed && indexed.count < visitAll) {
      for (const [ns, n] of indexed.keys()) {
        const obj = bucket.get(ns)?.get(n);
        if (obj && matchesFilter(obj, filter)) out.push(obj);
      }
    } else {
      for (const space of spaces) for (const obj of space.values()) if (matchesFilter(obj, filter)) out.push(obj);
    }
    return out.sort(byKey);
  }

  /**
   * The stored objects (read-only) with `value` in index `name` of this type, sorted, in one
   * namespace or all. The first call for a name defines the index with `fn` and fills it from
   * what is stored; from then on every change keeps it up to date.
   */
  byIndex(
    type: Pick<ResourceType, "group" | "plural">,
    name: string,
    fn: IndexFn,
    value: string,
    namespace?: string,
  ): readonly KubeObject[] {
    const key = storageKey(type);
    if (!this.indexes.has(key, name)) this.indexes.define(key, name, fn, this.scan(type));
    const postings = this.indexes.postings(key, name, value);
    if (!postings) return [];
    const bucket = this.buckets.get(key);
    const out: KubeObject[] = [];
    const spaces = namespace !== undefined ? [[namespace, postings.spaces.get(namespace)] as const] : [...postings.spaces];
    for (const [ns, names] of spaces) for (const n of names ?? []) out.push(bucket!.get(ns)!.get(n)!);
    return out.sort(byKey);
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
    this.commit({ type: "ADDED", rv: this.rv, key: storageKey(type), object: stored }, undefined);
    return copyOut(stored);
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
    this.commit({ type: "MODIFIED", rv: this.rv, key: storageKey(type), object: stored, previous }, previous);
    return copyOut(stored);
  }

  remove(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    expected?: { uid?: string; resourceVersion?: string },
  ): KubeObject {
    const bucket = this.slot(storageKey(type), namespace);
    const k = name;
    const previous = bucket.get(k);
    if (!previous) throw errors.notFound(type.plural, name, type.group);
    if (expected?.uid && expected.uid !== previous.metadata.uid) {
      throw errors.conflict(
        type.plural,
        name,
        type.group,
        `Precondition failed: UID in precondition: ${expected.uid}, UID in object meta: ${previous.metadata.uid}`,
      );
    }
    if (expected?.resourceVersion && expected.resourceVersion !== previous.metadata.resourceVersion) {
      throw errors.conflict(type.plural, name, type.group);
    }
    bucket.delete(k);
    const gone = copyOut(previous);
    gone.metadata.resourceVersion = this.nextResourceVersion();
    this.commit({ type: "DELETED", rv: this.rv, key: storageKey(type), object: gone }, previous);
    return copyOut(gone);
  }

  countWrite(verb: WriteVerb): void {
    this.writes[verb]++;
  }

  /** Every change, once the bucket holds it: the indexes follow it, then the watch hub, then the commit listeners. */
  private commit(event: StoreEvent, previous: KubeObject | undefined): void {
    this.indexes.update(event.key, previous, event.type === "DELETED" ? undefined : event.object);
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
      const slot = this.slot(key, object.metadata.namespace);
      const previous = slot.get(object.metadata.name!);
      slot.set(object.metadata.name!, object);
      this.commit({ type: "ADDED", rv: Number(object.metadata.resourceVersion), key, object }, previous);
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
