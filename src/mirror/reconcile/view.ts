// A read view of a local informer's cache that also knows what this controller has just written: until the informer delivers the event for
// a write, reads return the written object (or its absence), so a key reconciled again at once plans against the truth instead of failing
// on a stale resourceVersion. Events older than our write (the resourceVersion it replaced) are recognised and do not end the overlay.
import type { Informer, InformerEvent, KubeObject } from "../../kube/index.ts";

// The event that delivers our own write is an echo (`isEcho`): it tells the controller nothing it did
// not plan, so it requeues nothing. While a write is in flight (`writing`) its key's events are held,
// since the echo may come before the response: once the result is known, those that were not the echo
// (nor the object the write replaced) go to `onMissed`, to be requeued. The overlay never outlives the
// truth: a write whose echo came while it was in flight (so the cache already moved past it: a
// deletion after it, say) leaves none; a 404/409 on a write drops it (`stale`); and each refresh drops
// those older than a period (`expire`), so the cache is read again. An optional index (kept from the
// same events) finds related objects — endpoint mirrors by headless mirror — without a scan.

interface Written<T> {
  /** null: we deleted it. */
  object: T | null;
  /** The resourceVersion the object had before our write ("" for a create). */
  before: string;
  /** The refresh generation it was made in (`expire`). */
  gen: number;
}

export type IndexKey<T> = (obj: T) => string | undefined;

const NONE: ReadonlySet<string> = new Set();

/** Our writes not yet in the cache, those that carry an index key also found by it (no scan of them all per lookup). */
class Overlay<T extends KubeObject> extends Map<string, Written<T>> {
  private readonly byIndex = new Map<string, Set<string>>();
  private indexKey?: IndexKey<T>;

  static of<T extends KubeObject>(indexKey?: IndexKey<T>): Overlay<T> {
    const o = new Overlay<T>();
    o.indexKey = indexKey;
    return o;
  }

  override set(k: string, w: Written<T>): this {
    this.unindex(k);
    super.set(k, w);
    const value = w.object ? this.indexKey?.(w.object) : undefined;
    if (value !== undefined) this.byIndex.set(value, (this.byIndex.get(value) ?? new Set()).add(k));
    return this;
  }

  override delete(k: string): boolean {
    this.unindex(k);
    return super.delete(k);
  }

  override clear(): void {
    this.byIndex.clear();
    super.clear();
  }

  /** The keys whose written object has index key `value`. */
  indexedAs(value: string): ReadonlySet<string> {
    return this.byIndex.get(value) ?? NONE;
  }

  private unindex(k: string): void {
    const w = super.get(k);
    const value = w?.object ? this.indexKey?.(w.object) : undefined;
    if (value === undefined) return;
    const set = this.byIndex.get(value);
    set?.delete(k);
    if (set?.size === 0) this.byIndex.delete(value);
  }
}

export class LocalView<T extends KubeObject> {
  private readonly written: Overlay<T>;
  private readonly index = new Map<string, Set<string>>();
  private readonly unsubscribe: () => void;
  /** The informer event being delivered, when it is the echo of our own write (or held for one). */
  private echo: InformerEvent<T> | undefined;
  /** Keys with a write of ours in flight → the events that came meanwhile. */
  private readonly inflight = new Map<string, Array<InformerEvent<T>>>();
  private missed: (event: InformerEvent<T>) => void = () => {};
  private gen = 0;
  /** Keys whose object someone else deleted (a deletion that was not ours), until it exists again. */
  private readonly removed = new Set<string>();

  constructor(
    private readonly informer: Informer<T>,
    indexKey?: IndexKey<T>,
  ) {
    this.written = Overlay.of(indexKey);
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
      if (event.type !== "deleted") this.removed.delete(event.key);
      else if (this.written.get(event.key)?.object !== null && !this.inflight.has(event.key)) this.removed.add(event.key);
      this.echo = undefined;
      const held = this.inflight.get(event.key);
      if (held) {
        held.push(event);
        this.echo = event;
      }
      const w = this.written.get(event.key);
      if (!w) return;
      const rv = event.object.metadata.resourceVersion ?? "";
      if (event.type !== "deleted" && w.before !== "" && rv === w.before) return; // an event from before our write
      this.written.delete(event.key);
      if (w.object === null ? event.type === "deleted" : event.type !== "deleted" && rv === w.object.metadata.resourceVersion)
        this.echo = event;
    });
  }

  /**
   * Is `event` (as the informer delivers it, to this view first) the echo of a write this
   * controller made — the very object it wrote, or the deletion it asked for?
   */
  isEcho(event: InformerEvent<KubeObject>): boolean {
    return this.echo !== undefined && this.echo === (event as unknown);
  }

  /** Whether someone else deleted `namespace/name` (not this controller), and it has not been made again since. */
  removedByOthers(namespace: string | undefined, name: string): boolean {
    return this.removed.has(key(namespace, name));
  }

  close(): void {
    this.unsubscribe();
    this.removed.clear();
    this.written.clear();
    this.inflight.clear();
    this.index.clear();
  }

  get(namespace: string | undefined, name: string): T | undefined {
    const w = this.written.get(key(namespace, name));
    if (w) return w.object ?? undefined;
    return this.informer.cache.get(namespace, name);
  }

  /** Objects whose index key is `value`, our writes included (sorted by key). */
  indexed(value: string): T[] {
    const ours = this.written.indexedAs(value);
    if (!this.index.get(value)?.size && ours.size === 0) return []; // none cached, none written: the usual answer
    const out = new Map<string, T>();
    for (const k of this.index.get(value) ?? []) {
      if (this.written.has(k)) continue; // our write decides: below if it is still indexed so, else gone
      const obj = this.informer.cache.getByKey(k);
      if (obj) out.set(k, obj);
    }
    for (const k of ours) out.set(k, this.written.get(k)!.object!);
    if (out.size <= 1) return [...out.values()]; // most lookups (a mirror's endpoint mirrors, say) find none: nothing to sort
    return [...out.keys()].sort().map((k) => out.get(k)!);
  }

  /** Told of the events held during a write that were not its echo (someone else's change). */
  onMissed(listener: (event: InformerEvent<T>) => void): void {
    this.missed = listener;
  }

  /** A write to `namespace/name` is about to be sent: hold its events until its result is known. */
  writing(namespace: string | undefined, name: string): void {
    this.inflight.set(key(namespace, name), []);
  }

  /** The write failed: every held event counts (the key is retried anyway). */
  failed(namespace: string | undefined, name: string): void {
    this.release(key(namespace, name), () => false);
  }

  /** Ends the hold of `k`'s events: those not `ours` are handed on; returns them all. */
  private release(k: string, ours: (e: InformerEvent<T>) => boolean): ReadonlyArray<InformerEvent<T>> {
    const held = this.inflight.get(k) ?? [];
    this.inflight.delete(k);
    for (const e of held) if (!ours(e)) this.missed(e);
    return held;
  }

  /**
   * A write to `namespace/name` was answered 404 or 409: what the view holds for it is not the
   * truth. Its overlay goes, so the next reconcile reads the cache (the caller requeues the key).
   */
  stale(namespace: string | undefined, name: string): void {
    this.written.delete(key(namespace, name));
  }

  /** A refresh: overlays made before the previous one (an echo that never came) go; the cache is read again. */
  expire(): void {
    for (const [k, w] of this.written) if (w.gen < this.gen) this.written.delete(k);
    this.gen++;
  }

  /** Records a create or update's result; `before` is the resourceVersion it replaced. */
  wrote(obj: T, before = ""): void {
    const rv = obj.metadata.resourceVersion;
    const k = key(obj.metadata.namespace, obj.metadata.name ?? "");
    const isEcho = (e: InformerEvent<T>) => e.type !== "deleted" && e.object.metadata.resourceVersion === rv;
    const held = this.release(
      k,
      (e) => isEcho(e) || (e.type !== "deleted" && before !== "" && e.object.metadata.resourceVersion === before),
    );
    // Its event came first: the cache holds our write, or what came after it (a deletion, say), which is the truth.
    if (held.some(isEcho)) return void this.written.delete(k);
    const cached = this.informer.cache.get(obj.metadata.namespace, obj.metadata.name ?? "");
    if (cached && cached.metadata.resourceVersion === rv) return void this.written.delete(k);
    this.written.set(k, { object: obj, before, gen: this.gen });
  }

  deleted(namespace: string, name: string, before = ""): void {
    const k = key(namespace, name);
    this.removed.delete(k); // ours
    const held = this.release(k, (e) => e.type === "deleted" || (before !== "" && e.object.metadata.resourceVersion === before));
    // Its event came first: the cache is past our deletion (a re-creation since is the truth).
    if (held.some((e) => e.type === "deleted") || !this.informer.cache.get(namespace, name)) {
      this.written.delete(k);
      return;
    }
    this.written.set(k, { object: null, before, gen: this.gen });
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
