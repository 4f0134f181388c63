// The store's change feed: every event in resourceVersion order, a bounded history to resume watches from (410 Gone once a resume point has
// been forgotten), and the watchers registered per storage key and namespace (an event reaches only the watches of its namespace and those
// of every namespace). The HTTP side (http/watch.ts) turns a registration into a stream.
import type { ListFilter } from "./filter.ts";
import { ApiError, type KubeObject } from "../types.ts";

type EventType = "ADDED" | "MODIFIED" | "DELETED";

export interface StoreEvent {
  type: EventType;
  rv: number;
  key: string; // storage key group/plural
  object: KubeObject;
  /** The object before this change (MODIFIED only): lets filtered watches send ADDED/DELETED. */
  previous?: KubeObject;
}

export interface Watcher extends ListFilter {
  key: string;
  send(event: StoreEvent): void;
}

export class WatchHub {
  /** The retained events, oldest first, in a ring of `historyLimit` slots from `head`. */
  private ring: (StoreEvent | undefined)[] = [];
  private head = 0;
  private size = 0;
  /** Oldest resourceVersion a watch may resume from; older ones get 410 Gone. */
  private floor = 0;
  /** storage key → namespace ("" for watches of every namespace) → watchers. */
  private watchers = new Map<string, Map<string, Set<Watcher>>>();

  constructor(private readonly historyLimit: number) {}

  emit(event: StoreEvent): void {
    this.retain(event);
    const spaces = this.watchers.get(event.key);
    if (!spaces) return;
    for (const w of spaces.get("") ?? []) w.send(event);
    const ns = event.object.metadata.namespace;
    if (ns) for (const w of spaces.get(ns) ?? []) w.send(event);
  }

  /** Keeps `event` in history, dropping the oldest (and raising the floor) when full. */
  private retain(event: StoreEvent): void {
    if (this.historyLimit <= 0) {
      this.floor = event.rv;
      return;
    }
    if (this.size < this.historyLimit) {
      this.ring[(this.head + this.size++) % this.historyLimit] = event;
      return;
    }
    this.floor = Math.max(this.floor, this.ring[this.head]!.rv);
    this.ring[this.head] = event;
    this.head = (this.head + 1) % this.historyLimit;
  }

  /** Retained events after `rv`, oldest first (found by binary search: resourceVersions increase). */
  private *since(rv: number): Generator<StoreEvent> {
    const at = (i: number) => this.ring[(this.head + i) % this.historyLimit]!;
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (at(mid).rv > rv) hi = mid;
      else lo = mid + 1;
    }
    for (let i = lo; i < this.size; i++) yield at(i);
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
      for (const e of this.since(fromRv)) if (e.key === watcher.key) watcher.send(e);
    }
    let spaces = this.watchers.get(watcher.key);
    if (!spaces) this.watchers.set(watcher.key, (spaces = new Map()));
    const ns = watcher.namespace ?? "";
    let set = spaces.get(ns);
    if (!set) spaces.set(ns, (set = new Set()));
    set.add(watcher);
    return () => {
      set.delete(watcher);
      if (set.size === 0 && spaces.get(ns) === set) spaces.delete(ns);
    };
  }

  watcherCount(): number {
    let n = 0;
    for (const spaces of this.watchers.values()) for (const set of spaces.values()) n += set.size;
    return n;
  }

  /** Forgets all history up to `rv`, so every resume from an older resourceVersion gets 410. */
  forget(rv: number): void {
    this.ring = [];
    this.head = 0;
    this.size = 0;
    this.floor = rv;
  }
}
