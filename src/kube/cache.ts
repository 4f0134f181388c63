// The informer's cache: objects by key (`ns/name`), frozen so no reader can mutate what others see — deeply under tests
// (FREEZE_CACHE), only the top level otherwise (docs/decisions.md#d173). Readers get the read-only view; only the informer changes entries.
import { matchesLabels, parseLabelSelector, type LabelSelector } from "../model/selector.ts";
import { objectKey, type KubeObject } from "./types.ts";

/**
 * Deep-freeze what is cached: under `bun test` (NODE_ENV=test, processes it spawns included) and with
 * MC_FREEZE_CACHE=1. Otherwise only each object's top level is frozen — the mark of a cached object the
 * reconciler's memos key on — and the rest is read-only by contract, which the tests, run deep-frozen, hold.
 */
export const FREEZE_CACHE = process.env.NODE_ENV === "test" || process.env.MC_FREEZE_CACHE === "1";

export interface ReadonlyCache<T extends KubeObject> {
  get(namespace: string | undefined, name: string): T | undefined;
  getByKey(key: string): T | undefined;
  /** Objects sorted by key, optionally those matching a label selector (string or parsed). */
  list(selector?: string | LabelSelector): T[];
  keys(): string[];
  readonly size: number;
}

export class ObjectCache<T extends KubeObject> implements ReadonlyCache<T> {
  private items = new Map<string, T>();

  get(namespace: string | undefined, name: string): T | undefined {
    return this.items.get(namespace ? `${namespace}/${name}` : name);
  }

  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  list(selector?: string | LabelSelector): T[] {
    const parsed = typeof selector === "string" ? parseLabelSelector(selector) : selector;
    // Matched first, then sorted: a narrow selector costs one pass, not a sort of every key.
    const out: Array<[string, T]> = [];
    for (const entry of this.items) if (!parsed || matchesLabels(parsed, entry[1].metadata.labels)) out.push(entry);
    return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, obj]) => obj);
  }

  keys(): string[] {
    return [...this.items.keys()].sort();
  }

  get size(): number {
    return this.items.size;
  }

  /** Stores a (frozen) object; returns the one it replaced. */
  put(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    this.items.set(key, freeze(obj));
    return old;
  }

  remove(key: string): T | undefined {
    const old = this.items.get(key);
    this.items.delete(key);
    return old;
  }

  /** Swaps in a whole new set of objects (a relist); the old map is dropped, not cleared in place. */
  replace(objects: Map<string, T>): Map<string, T> {
    const old = this.items;
    for (const obj of objects.values()) freeze(obj);
    this.items = objects;
    return old;
  }
}

const freeze: <T>(value: T) => T = FREEZE_CACHE ? deepFreeze : Object.freeze;

export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
  else for (const k in value) deepFreeze((value as Record<string, unknown>)[k]);
  return value;
}
