// Where the store keeps an object and in what order it lists them, as etcd's keys do.
import type { ResourceType } from "../types.ts";

/** Where objects of a type are stored: one bucket per group and plural, whatever the version. */
export const storageKey = (t: Pick<ResourceType, "group" | "plural">): string => `${t.group}/${t.plural}`;

/** Byte order, as etcd keys sort (localeCompare would put "a-b" and "ab" differently). */
export const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
