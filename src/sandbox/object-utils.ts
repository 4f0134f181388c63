// Small helpers kube-apiserver's write path and the sandbox's controllers share.
import { isDeepStrictEqual } from "node:util";
import type { KubeObject } from "./types.ts";

/** Equal but for bookkeeping (managedFields, resourceVersion): such a write is a no-op. */
export function sameContent(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, managedFields: undefined, resourceVersion: undefined } });
  return isDeepStrictEqual(strip(a), strip(b));
}

/** The 5-character suffix of a generateName, from kube's alphabet (no vowels, no look-alikes). */
export function randomSuffix(): string {
  const alphabet = "bcdfghjklmnpqrstvwxz2456789";
  const bytes = crypto.getRandomValues(new Uint8Array(5));
  return [...bytes].map((b) => alphabet[b % alphabet.length]).join("");
}

/** An object without its metadata, status, apiVersion and kind: what its generation follows. */
export function specOf(obj: KubeObject): unknown {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}
