// Defaults the registry strategies give other built-in kinds: a Namespace's finalizer, phase and
// name label; a Deployment's replicas, strategy and limits (so kubectl's columns have something
// to show).
import { errors, type KubeObject, type StatusCause } from "../types.ts";

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
  const template = spec.template as { spec?: Record<string, unknown> } | undefined;
  if (template?.spec) defaultPodSpec(template.spec);
  if (!previous) dep.status = {};
}

/** The PodSpec defaults kube's SetDefaults_PodSpec and SetDefaults_Container give. Mutates `spec`. */
function defaultPodSpec(spec: Record<string, unknown>): void {
  spec.restartPolicy ??= "Always";
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= "ClusterFirst";
  spec.securityContext ??= {};
  spec.schedulerName ??= "default-scheduler";
  for (const c of [
    ...((spec.containers as Record<string, unknown>[] | undefined) ?? []),
    ...((spec.initContainers as Record<string, unknown>[] | undefined) ?? []),
  ]) {
    c.terminationMessagePath ??= "/dev/termination-log";
    c.terminationMessagePolicy ??= "File";
    if (c.imagePullPolicy === undefined) {
      const image = String(c.image ?? "");
      const tag = image.includes("@") ? "digest" : /:[^/]+$/.test(image) ? image.slice(image.lastIndexOf(":") + 1) : "latest";
      c.imagePullPolicy = tag === "latest" ? "Always" : "IfNotPresent";
    }
    for (const p of (c.ports as Record<string, unknown>[] | undefined) ?? []) p.protocol ??= "TCP";
  }
}

/** A Secret without a type is Opaque (SetDefaults_Secret). */
export function admitSecret(secret: KubeObject): void {
  const s = secret as { type?: string };
  if (!s.type) s.type = "Opaque";
}

/** kube's ValidateLeaseSpec: a duration above 0, transitions not below 0 (422 in its words). */
export function validateLease(lease: KubeObject): void {
  const spec = (lease.spec ?? {}) as { leaseDurationSeconds?: number; leaseTransitions?: number };
  const causes: StatusCause[] = [];
  if (typeof spec.leaseDurationSeconds === "number" && spec.leaseDurationSeconds <= 0) {
    causes.push({
      field: "spec.leaseDurationSeconds",
      reason: "FieldValueInvalid",
      message: `Invalid value: ${spec.leaseDurationSeconds}: must be greater than 0`,
    });
  }
  if (typeof spec.leaseTransitions === "number" && spec.leaseTransitions < 0) {
    causes.push({
      field: "spec.leaseTransitions",
      reason: "FieldValueInvalid",
      message: `Invalid value: ${spec.leaseTransitions}: must be greater than or equal to 0`,
    });
  }
  if (causes.length > 0) throw errors.invalid("Lease", lease.metadata.name ?? "", causes, "coordination.k8s.io");
}
