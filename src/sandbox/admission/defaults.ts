// Defaults the registry strategies give other built-in kinds: a Namespace's finalizer, phase and
// name label; a Deployment's replicas, strategy and limits (so kubectl's columns have something
// to show).
import type { KubeObject } from "../types.ts";

export function admitNamespace(ns: KubeObject): void {
  ns.spec = { finalizers: ["kubernetes"] };
  ns.status = { phase: "Active" };
  ns.metadata.labels = { ...ns.metadata.labels, "kubernetes.io/metadata.name": ns.metadata.name ?? "" };
}

/** Default fields the API server sets on Deployments. */
export function admitDeployment(dep: KubeObject, previous: KubeObject | undefined): void {
  const spec = (dep.spec ??= {}) as Record<string, unknown>;
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  spec.strategy ??= { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } };
  if (!previous) dep.status = {};
}
