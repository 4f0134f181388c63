// The shapes the kube layer speaks: resource types named by apiVersion + kind + plural, objects
// with metadata, lists, watch events. Plain data; no client-node types leak out of src/kube/.

/** A resource type, enough to build its URLs without discovery. */
export interface ResourceType {
  /** `v1` for core, `group/version` otherwise. */
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

import type { ObjectMeta } from "../lib/kube-api.ts";

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export interface KubeList<T> {
  items: T[];
  resourceVersion: string;
  continue?: string;
}

type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface WatchEvent<T> {
  type: WatchEventType;
  /** The object; a `kind: Status` for ERROR; only metadata.resourceVersion for BOOKMARK. */
  object: T;
}

/** `ns/name` for namespaced objects, `name` otherwise — the key of caches and queues. */
export function objectKey(obj: { metadata: { namespace?: string; name?: string } }): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name ?? ""}` : (name ?? "");
}
