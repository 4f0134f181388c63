// The store's change feed: every event in resourceVersion order, a bounded history to resume
// watches from (410 Gone once a resume point has been forgotten), and the watchers registered
// per storage key. The HTTP side (http/watch.ts) turns a registration into a stream.
import type { ListFilter } from "./filter.ts";
import { ApiError, type KubeObject } from "../types.ts";

export type EventType = "ADDED" | "MODIFIED" | "DELETED";

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
  private history: StoreEvent[] = [];
  /** Oldest resourceVersion a watch may resume from; older ones get 410 Gone. */
  private floor = 0;
  private watchers = new Map<string, Set<Watcher>>();

  constructor(private readonly historyLimit: number) {}

  emit(event: StoreEvent): void {
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

  /** Forgets all history up to `rv`, so every resume from an older resourceVersion gets 410. */
  forget(rv: number): void {
    this.history = [];
    this.floor = rv;
  }
}
