// What the workload controllers (deployments.ts, replicasets.ts) share: owner references (who
// controls an object; the garbage collector deletes what an owner controlled when it goes),
// metav1.LabelSelector objects as the store's selectors, and kube's timestamps.
import type { LabelSelector } from "../selector.ts";
import type { KubeObject } from "../types.ts";

export interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** The reference a controller puts on what it creates for `owner`. */
export function controllerRef(owner: KubeObject, apiVersion: string, kind: string): OwnerRef {
  return { apiVersion, kind, name: owner.metadata.name!, uid: owner.metadata.uid ?? "", controller: true, blockOwnerDeletion: true };
}

/** The owner reference marked controller, if any. */
export function controllerOf(obj: KubeObject): OwnerRef | undefined {
  return (obj.metadata.ownerReferences as OwnerRef[] | undefined)?.find((r) => r.controller === true);
}

/** Is `obj` controlled by `owner` (by uid)? */
export const isControlledBy = (obj: KubeObject, owner: KubeObject): boolean => controllerOf(obj)?.uid === owner.metadata.uid;

interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/**
 * A metav1.LabelSelector as the store's requirements. An empty selector selects nothing here
 * (kube-apiserver rejects empty selectors on workloads, so it never selects everything).
 */
export function selectorRequirements(selector: unknown): LabelSelector | undefined {
  const s = (selector ?? {}) as LabelSelectorObject;
  const out: LabelSelector = Object.entries(s.matchLabels ?? {}).map(([key, value]) => ({ key, op: "=" as const, value }));
  for (const e of s.matchExpressions ?? []) {
    if (e.operator === "In") out.push({ key: e.key, op: "in", values: e.values ?? [] });
    else if (e.operator === "NotIn") out.push({ key: e.key, op: "notin", values: e.values ?? [] });
    else if (e.operator === "Exists") out.push({ key: e.key, op: "exists" });
    else if (e.operator === "DoesNotExist") out.push({ key: e.key, op: "!" });
  }
  return out.length > 0 ? out : undefined;
}

export const timestamp = (): string => new Date().toISOString().replace(/\.\d+Z$/, "Z");
