// kube-controller-manager's Deployment controller, enough for `kubectl get pods`, `kubectl rollout status` and availability.
import { KeyedSync, keyOf, splitKey } from "./keyed-sync.ts";
import { controllerOf, controllerRef, isControlledBy, timestamp } from "./owners.ts";
import { POD_TEMPLATE_HASH } from "./replicasets.ts";
import type { KubeObject } from "../types.ts";
import type { Controller, ControllerContext } from "./controller.ts";

// kube-controller-manager's Deployment controller, enough for `kubectl get pods`, `kubectl
// rollout status` and availability: a Deployment owns a ReplicaSet per pod template, named
// `<deployment>-<pod-template-hash>` (its Pods carry the hash label too); the current one is
// scaled to `spec.replicas` and older ones to 0 at once (Pods start ready at once, so a rolling
// update would end the same way), keeping `revisionHistoryLimit` old ones. The status sums the
// ReplicaSets' and carries kube's Available and Progressing conditions. Deleting a Deployment
// deletes its ReplicaSets (which delete their Pods). A paused Deployment is only reported on.

const MANAGER = "kube-controller-manager";
const REVISION = "deployment.kubernetes.io/revision";
const DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas";
const MAX_REPLICAS = "deployment.kubernetes.io/max-replicas";

interface DeploymentSpec {
  replicas?: number;
  paused?: boolean;
  revisionHistoryLimit?: number;
  minReadySeconds?: number;
  selector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
  strategy?: { type?: string; rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string } };
  template?: { metadata?: { labels?: Record<string, string>; [k: string]: unknown }; spec?: unknown };
}

interface RsStatus {
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
}

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastUpdateTime: string;
  lastTransitionTime: string;
}

const isDeployment = (t: { group: string; kind: string }) => t.group === "apps" && t.kind === "Deployment";
const isReplicaSet = (t: { group: string; kind: string }) => t.group === "apps" && t.kind === "ReplicaSet";

/** JSON with sorted keys: the same template always gives the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/** kube's ComputeHash shape: FNV-32a of the template, its decimal spelled with rand.SafeEncodeString's alphabet. */
function podTemplateHash(template: unknown): string {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(canonical(template))) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  const alphabet = "bcdfghjklmnpqrstvwxz2456789";
  return [...String(h)].map((c) => alphabet[c.charCodeAt(0) % alphabet.length]).join("");
}

/** An int-or-percent of `total` (rounding up for surge, down for unavailable), as intstr.GetScaledValueFromIntOrPercent. */
function scaled(value: number | string | undefined, total: number, roundUp: boolean, fallback: string): number {
  const v = value ?? fallback;
  if (typeof v === "number") return v;
  const pct = Number.parseInt(v, 10) / 100;
  return roundUp ? Math.ceil(pct * total) : Math.floor(pct * total);
}

function maxUnavailable(spec: DeploymentSpec, replicas: number): number {
  if ((spec.strategy?.type ?? "RollingUpdate") !== "RollingUpdate" || replicas === 0) return 0;
  const surge = scaled(spec.strategy?.rollingUpdate?.maxSurge, replicas, true, "25%");
  const unavailable = scaled(spec.strategy?.rollingUpdate?.maxUnavailable, replicas, false, "25%");
  // Both zero is not allowed; kube then allows one unavailable.
  return Math.min(surge === 0 && unavailable === 0 ? 1 : unavailable, replicas);
}

const revisionOf = (rs: KubeObject) => Number.parseInt(rs.metadata.annotations?.[REVISION] ?? "0", 10) || 0;

/** The status kube's deployment controller reports for a Deployment and its ReplicaSets. Pure. */
function deploymentStatus(
  dep: KubeObject,
  newRs: KubeObject | undefined,
  all: readonly KubeObject[],
  at = timestamp(),
): Record<string, unknown> {
  const spec = (dep.spec as DeploymentSpec | undefined) ?? {};
  const want = spec.replicas ?? 1;
  const sum = (f: keyof RsStatus) => all.reduce((n, rs) => n + ((rs.status as RsStatus | undefined)?.[f] ?? 0), 0);
  const replicas = sum("replicas");
  const available = sum("availableReplicas");
  const updated = (newRs?.status as RsStatus | undefined)?.replicas ?? 0;
  const previous = (dep.status as { conditions?: Condition[] } | undefined)?.conditions ?? [];
  const condition = (type: string, status: string, reason: string, message: string): Condition => {
    const before = previous.find((c) => c.type === type);
    if (before && before.status === status && before.reason === reason && before.message === message) return before;
    return {
      type,
      status,
      lastUpdateTime: at,
      lastTransitionTime: before && before.status === status ? before.lastTransitionTime : at,
      reason,
      message,
    };
  };
  const availableNow = available >= want - maxUnavailable(spec, want);
  const complete = updated === want && replicas === want && available === want;
  const rsName = newRs?.metadata.name ?? "";
  const conditions = [
    availableNow
      ? condition("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
      : condition("Available", "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability."),
    complete
      ? condition("Progressing", "True", "NewReplicaSetAvailable", `ReplicaSet "${rsName}" has successfully progressed.`)
      : condition("Progressing", "True", "ReplicaSetUpdated", `ReplicaSet "${rsName}" is progressing.`),
  ];
  return {
    observedGeneration: dep.metadata.generation ?? 1,
    ...(replicas > 0 && { replicas }),
    ...(updated > 0 && { updatedReplicas: updated }),
    ...(sum("readyReplicas") > 0 && { readyReplicas: sum("readyReplicas") }),
    ...(available > 0 && { availableReplicas: available }),
    ...(want - available > 0 && { unavailableReplicas: want - available }),
    conditions,
  };
}

export function deployments(ctx: ControllerContext): Controller {
  const depType = () => ctx.registry.find("apps", "v1", "deployments")!;
  const rsType = () => ctx.registry.find("apps", "v1", "replicasets")!;
  const owned = (dep: KubeObject) =>
    ctx.store.list(rsType(), { namespace: dep.metadata.namespace }).filter((rs) => isControlledBy(rs, dep));
  const scale = (rs: KubeObject, replicas: number, annotations: Record<string, string>) => {
    const spec = rs.spec as { replicas?: number };
    const merged = { ...rs.metadata.annotations, ...annotations };
    if (spec.replicas === replicas && Object.entries(annotations).every(([k, v]) => rs.metadata.annotations?.[k] === v)) return;
    ctx.own.update(rsType(), { ...rs, metadata: { ...rs.metadata, annotations: merged }, spec: { ...spec, replicas } }, MANAGER);
  };
  const sync = new KeyedSync((key) => {
    const [namespace, name] = splitKey(key);
    const dep = ctx.store.get(depType(), namespace, name);
    if (!dep) return;
    const spec = (dep.spec as DeploymentSpec | undefined) ?? {};
    const want = spec.replicas ?? 1;
    const hash = podTemplateHash(spec.template ?? {});
    if (!spec.paused) {
      const sets = owned(dep);
      const current = sets.find((rs) => rs.metadata.labels?.[POD_TEMPLATE_HASH] === hash);
      const sizes = {
        [DESIRED_REPLICAS]: String(want),
        [MAX_REPLICAS]: String(want + scaled(spec.strategy?.rollingUpdate?.maxSurge, want, true, "25%")),
      };
      if (current) scale(current, want, sizes);
      else {
        const revision = String(Math.max(0, ...sets.map(revisionOf)) + 1);
        const labels = { ...spec.template?.metadata?.labels, [POD_TEMPLATE_HASH]: hash };
        ctx.own.create(
          rsType(),
          {
            apiVersion: "apps/v1",
            kind: "ReplicaSet",
            metadata: {
              name: `${name}-${hash}`,
              namespace,
              labels,
              annotations: { ...sizes, [REVISION]: revision },
              ownerReferences: [controllerRef(dep, "apps/v1", "Deployment") as never],
            },
            spec: {
              replicas: want,
              ...(spec.minReadySeconds !== undefined && { minReadySeconds: spec.minReadySeconds }),
              selector: { ...spec.selector, matchLabels: { ...spec.selector?.matchLabels, [POD_TEMPLATE_HASH]: hash } },
              template: { ...spec.template, metadata: { ...spec.template?.metadata, labels } },
            },
          },
          MANAGER,
        );
      }
      const old = owned(dep)
        .filter((rs) => rs.metadata.labels?.[POD_TEMPLATE_HASH] !== hash)
        .sort((a, b) => revisionOf(a) - revisionOf(b));
      for (const rs of old) scale(rs, 0, {});
      for (const rs of old.slice(0, Math.max(0, old.length - (spec.revisionHistoryLimit ?? 10))))
        ctx.own.delete(rsType(), namespace, rs.metadata.name!);
    }
    const sets = owned(dep);
    const status = deploymentStatus(
      dep,
      sets.find((rs) => rs.metadata.labels?.[POD_TEMPLATE_HASH] === hash),
      sets,
    );
    const fresh = ctx.store.get(depType(), namespace, name);
    if (fresh) ctx.own.update(depType(), { ...fresh, status }, MANAGER, "status");
  });
  return {
    onWrite(t, obj) {
      if (isDeployment(t)) sync.run(keyOf(obj.metadata.namespace!, obj.metadata.name!));
      else if (isReplicaSet(t)) ownerChanged(obj);
    },
    onDelete(t, obj) {
      if (isReplicaSet(t)) ownerChanged(obj);
      else if (isDeployment(t)) for (const rs of owned(obj)) ctx.own.delete(rsType(), obj.metadata.namespace, rs.metadata.name!);
    },
  };
  function ownerChanged(rs: KubeObject): void {
    const owner = controllerOf(rs);
    if (owner?.kind === "Deployment" && owner.apiVersion.startsWith("apps/")) sync.run(keyOf(rs.metadata.namespace!, owner.name));
  }
}
