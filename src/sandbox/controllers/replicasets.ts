// kube-controller-manager's ReplicaSet controller: a ReplicaSet keeps `spec.replicas` Pods of its template (named `<rs>-<5 chars>`,
// controlled by it), deleting not-ready and newest Pods first when there are too many and replacing any that is deleted, and reports
// replicas, readyReplicas and availableReplicas (ready is available: minReadySeconds is not waited for).
import { KeyedSync, keyOf, splitKey } from "./keyed-sync.ts";
import { controllerOf, controllerRef, isControlledBy, selectorRequirements } from "./owners.ts";
import { belongsInEndpoints, isPodReady } from "./service-pods.ts";
import type { KubeObject } from "../types.ts";
import type { Controller, ControllerContext } from "./controller.ts";

// Deleting a ReplicaSet deletes its Pods (the garbage collector's part). Its Pods are found by its
// selector within its namespace (pod-template-hash is an indexed label).

export const POD_TEMPLATE_HASH = "pod-template-hash";
const MANAGER = "kube-controller-manager";

interface ReplicaSetSpec {
  replicas?: number;
  selector?: unknown;
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: unknown };
}

const isReplicaSet = (t: { group: string; kind: string }) => t.group === "apps" && t.kind === "ReplicaSet";
const isPod = (t: { group: string; kind: string }) => t.group === "" && t.kind === "Pod";
const active = (pod: KubeObject) => {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  return phase !== "Succeeded" && phase !== "Failed" && pod.metadata.deletionTimestamp === undefined;
};

/** Which Pods go first when a ReplicaSet has too many: not ready before ready, newer before older. */
function deletionOrder(pods: readonly KubeObject[]): KubeObject[] {
  const rank = (p: KubeObject) => (!belongsInEndpoints(p) ? 0 : isPodReady(p) ? 2 : 1);
  return [...pods].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      (b.metadata.creationTimestamp ?? "").localeCompare(a.metadata.creationTimestamp ?? "") ||
      (a.metadata.name! < b.metadata.name! ? 1 : -1),
  );
}

export function replicaSets(ctx: ControllerContext): Controller {
  const pods = () => ctx.registry.find("", "v1", "pods")!;
  const rsType = () => ctx.registry.find("apps", "v1", "replicasets")!;
  const podsOf = (rs: KubeObject) => {
    const labels = selectorRequirements((rs.spec as ReplicaSetSpec | undefined)?.selector);
    return labels ? ctx.store.scan(pods(), { namespace: rs.metadata.namespace, labels }).filter((p) => isControlledBy(p, rs)) : [];
  };
  const sync = new KeyedSync((key) => {
    const [namespace, name] = splitKey(key);
    const rs = ctx.store.get(rsType(), namespace, name);
    if (!rs) return;
    const spec = (rs.spec as ReplicaSetSpec | undefined) ?? {};
    const want = spec.replicas ?? 1;
    const mine = podsOf(rs).filter(active);
    if (mine.length < want) {
      const template = spec.template ?? {};
      for (let i = mine.length; i < want; i++) {
        const body: KubeObject = {
          apiVersion: "v1",
          kind: "Pod",
          metadata: {
            generateName: `${name}-`,
            namespace,
            ...(template.metadata?.labels && { labels: { ...template.metadata.labels } }),
            ...(template.metadata?.annotations && { annotations: { ...template.metadata.annotations } }),
            ownerReferences: [controllerRef(rs, "apps/v1", "ReplicaSet") as unknown as Record<string, never>],
          },
          spec: structuredClone(template.spec ?? {}),
        };
        ctx.own.create(pods(), body, MANAGER);
      }
    } else if (mine.length > want) {
      for (const pod of deletionOrder(mine).slice(0, mine.length - want)) ctx.own.delete(pods(), namespace, pod.metadata.name!);
    }
    const now = podsOf(rs).filter(active);
    const ready = now.filter(isPodReady).length;
    const status = {
      replicas: now.length,
      fullyLabeledReplicas: now.length,
      readyReplicas: ready,
      availableReplicas: ready,
      observedGeneration: rs.metadata.generation ?? 1,
    };
    const fresh = ctx.store.get(rsType(), namespace, name);
    if (fresh) ctx.own.update(rsType(), { ...fresh, status }, MANAGER, "status");
  });
  return {
    onWrite(t, obj) {
      if (isReplicaSet(t)) sync.run(keyOf(obj.metadata.namespace!, obj.metadata.name!));
      else if (isPod(t)) podChanged(obj);
    },
    onDelete(t, obj) {
      if (isPod(t)) podChanged(obj);
      else if (isReplicaSet(t)) {
        const labels = selectorRequirements((obj.spec as ReplicaSetSpec | undefined)?.selector);
        if (!labels) return;
        for (const pod of ctx.store.list(pods(), { namespace: obj.metadata.namespace, labels })) {
          if (isControlledBy(pod, obj)) ctx.own.delete(pods(), obj.metadata.namespace, pod.metadata.name!);
        }
      }
    },
  };
  function podChanged(pod: KubeObject): void {
    const owner = controllerOf(pod);
    if (owner?.kind === "ReplicaSet" && owner.apiVersion.startsWith("apps/")) sync.run(keyOf(pod.metadata.namespace!, owner.name));
  }
}
