// What a list and each watch event do to an informer: its cache, the resourceVersion it has reached, the echoes of our own writes taken
// unparsed (echoes.ts), and the events its subscribers are told. When to list and watch is the informer's (informer.ts).
import { ObjectCache } from "./cache.ts";
import type { EchoBook } from "./echoes.ts";
import { Fanout, type InformerCounters, type InformerEvent } from "./informer-events.ts";
import type { WatchEchoes } from "./client.ts";
import { objectKey, type KubeObject, type WatchEvent } from "./types.ts";

export class InformerFeed<T extends KubeObject> {
  readonly store = new ObjectCache<T>();
  readonly events: Fanout<InformerEvent<T>>;
  /** The resourceVersion reached: the last list's, or the last watch event's (bookmarks included). */
  rv = "";

  constructor(
    private readonly counters: InformerCounters,
    /** The server's answers to our writes, whose echoes are taken from them. */
    private readonly echoes: EchoBook,
    onHandlerError: (message: string) => void,
    /** Applied to each object before caching; default drops metadata.managedFields. */
    private readonly transform?: (obj: T) => T,
  ) {
    this.events = new Fanout(onHandlerError);
  }

  /** What the watch asks of the server's echo book (a custom transform may change what it is given: no line is kept for an answer then). */
  readonly watchEchoes: WatchEchoes<T> = {
    take: (line: string): WatchEvent<T> | undefined => {
      const echo = this.echoes.take<T>(line);
      if (echo) this.counters.echoes++;
      return echo;
    },
    parsed: (line, event) => {
      if (!this.transform) this.echoes.parsed(line, event.object);
    },
  };

  /** A list at `resourceVersion`: swaps the cache and tells what changed since the last state (everything, the first time). */
  listed(items: readonly T[], resourceVersion: string): number {
    const next = new Map<string, T>();
    for (const item of items) {
      const obj = this.prepare(item);
      next.set(objectKey(obj), obj);
    }
    const old = this.store.replace(next);
    this.rv = resourceVersion;
    for (const [key, obj] of next) {
      const before = old.get(key);
      if (!before) this.events.emit({ type: "added", key, object: obj });
      else if (before.metadata.resourceVersion !== obj.metadata.resourceVersion)
        this.events.emit({ type: "updated", key, object: obj, old: before });
    }
    for (const [key, gone] of old) if (!next.has(key)) this.events.emit({ type: "deleted", key, object: gone });
    return next.size;
  }

  /** One watch event other than ERROR. */
  apply(type: string, raw: T): void {
    const rv = raw?.metadata?.resourceVersion;
    if (type === "BOOKMARK") {
      if (rv) this.rv = rv;
      return;
    }
    this.counters.events++;
    const obj = this.prepare(raw);
    const key = objectKey(obj);
    if (type === "DELETED") {
      const old = this.store.remove(key);
      if (old) this.events.emit({ type: "deleted", key, object: obj });
    } else if (type === "ADDED" || type === "MODIFIED") {
      const old = this.store.getByKey(key);
      if (old && old.metadata.resourceVersion === obj.metadata.resourceVersion) return; // replayed on resume
      this.store.put(obj);
      this.events.emit(old ? { type: "updated", key, object: obj, old } : { type: "added", key, object: obj });
    }
    if (rv) this.rv = rv;
  }

  private prepare(obj: T): T {
    if (this.transform) return this.transform(obj);
    if (obj.metadata?.managedFields) {
      const { managedFields: _drop, ...metadata } = obj.metadata;
      return { ...obj, metadata };
    }
    return obj;
  }
}
