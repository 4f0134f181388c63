// A read view of a local informer's cache that also knows what this controller has just
// written: until the informer delivers the event for a write, reads return the written object
// (or its absence), so a key reconciled again at once plans against the truth instead of
// failing on a stale resourceVersion. Events older than our write (the resourceVersion it
// replaced) are recognised and do not end the overlay. An optional index (kept from the same
// events) finds related objects — endpoint mirrors by headless mirror — without a scan.
import type { Informer, KubeObject } from "../kube/index.ts";

interface Written<T> {
  /** null: we deleted it. */
  object: T | null;
  /** The resourceVersion the object had before our write ("" for a create). */
  before: string;
}

export type IndexKey<T> = (obj: T) => string | undefined;

export class LocalView<T extends KubeObject> {
  private readonly written = new Map<string, Written<T>>();
  private readonly index = new Map<string, Set<string>>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly informer: Informer<T>,
    private readonly indexKey?: IndexKey<T>,
  ) {
    this.unsubscribe = informer.on((event) => {
      if (indexKey) {
        const before = event.type === "updated" ? indexKey(event.old) : undefined;
        const now = indexKey(event.object);
        if (before !== undefined && before !== now) this.unindex(before, event.key);
        if (now !== undefined) {
          if (event.type === "deleted") this.unindex(now, event.key);
          else this.index.set(now, (this.index.get(now) ?? new Set()).add(event.key));
        }
      }
      const w = this.written.get(event.key);
      if (!w) return;
      const rv = event.object.metadata.resourceVersion ?? "";
      if (event.type !== "deleted" && w.before !== "" && rv === w.before) return; // an event from before our write
      this.written.delete(event.key);
    });
  }

  close(): void {
    this.unsubscribe();
    this.written.clear();
    this.index.clear();
  }

  get(namespace: string | undefined, name: string): T | undefined {
    const w = this.written.get(key(namespace, name));
    if (w) return w.object ?? undefined;
    return this.informer.cache.get(namespace, name);
  }

  /** Objects whose index key is `value`, our writes included (sorted by key). */
  indexed(value: string): T[] {
    const out = new Map<string, T>();
    for (const k of this.index.get(value) ?? []) {
      const obj = this.informer.cache.getByKey(k);
      if (obj) out.set(k, obj);
    }
    for (const [k, w] of this.written) {
      if (w.object && this.indexKey?.(w.object) === value) out.set(k, w.object);
      else if (out.has(k)) out.delete(k);
    }
    return [...out.keys()].sort().map((k) => out.get(k)!);
  }

  /** Records a create or update's result; `before` is the resourceVersion it replaced. */
  wrote(obj: T, before = ""): void {
    const cached = this.informer.cache.get(obj.metadata.namespace, obj.metadata.name ?? "");
    if (cached && cached.metadata.resourceVersion === obj.metadata.resourceVersion) return; // its event came first
    this.written.set(key(obj.metadata.namespace, obj.metadata.name ?? ""), { object: obj, before });
  }

  deleted(namespace: string, name: string, before = ""): void {
    if (!this.informer.cache.get(namespace, name)) {
      this.written.delete(key(namespace, name)); // its event came first
      return;
    }
    this.written.set(key(namespace, name), { object: null, before });
  }

  private unindex(value: string, k: string): void {
    const set = this.index.get(value);
    set?.delete(k);
    if (set?.size === 0) this.index.delete(value);
  }
}

function key(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}
