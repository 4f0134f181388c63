// Services as kube-apiserver's service registry leaves them: defaults (type, session affinity, traffic policies, target ports), a cluster
// IP and node ports from the allocator, and an empty status on create or a change of type (the load balancer's address is a controller's,
// controllers/load-balancer.ts).
import { errors, type KubeObject, type StatusCause } from "../types.ts";

interface ServicePort {
  name?: string;
  port?: number;
  protocol?: string;
  targetPort?: number | string;
  nodePort?: number;
}

interface ServiceSpec {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[];
  ports?: ServicePort[];
  sessionAffinity?: string;
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  internalTrafficPolicy?: string;
  externalTrafficPolicy?: string;
}

/** Allocates cluster IPs and node ports; remembers what is in use. */
export class Allocator {
  private nextIp = 1;
  private usedPorts = new Set<number>();
  private nextPort = 30000;

  clusterIP(): string {
    const n = this.nextIp++;
    return `10.96.${Math.floor(n / 250) % 256}.${(n % 250) + 1}`;
  }

  nodePort(requested?: number): number {
    if (requested && !this.usedPorts.has(requested)) {
      this.usedPorts.add(requested);
      return requested;
    }
    while (this.usedPorts.has(this.nextPort)) this.nextPort = this.nextPort >= 32767 ? 30000 : this.nextPort + 1;
    this.usedPorts.add(this.nextPort);
    return this.nextPort;
  }

  release(port: number): void {
    this.usedPorts.delete(port);
  }

  /** Marks a stored Service's cluster IP and node ports as taken (a store kept across a restart). */
  reserve(svc: KubeObject): void {
    const spec = svc.spec as ServiceSpec | undefined;
    const m = /^10\.96\.(\d+)\.(\d+)$/.exec(spec?.clusterIP ?? "");
    if (m) this.nextIp = Math.max(this.nextIp, Number(m[1]) * 250 + Number(m[2]));
    for (const p of spec?.ports ?? []) if (p.nodePort) this.usedPorts.add(p.nodePort);
  }
}

/** Fills Service defaults as the API server and its controllers do. Mutates `svc`. */
export function admitService(svc: KubeObject, previous: KubeObject | undefined, alloc: Allocator): void {
  const spec = ((svc.spec as ServiceSpec | undefined) ?? (svc.spec = {})) as ServiceSpec;
  const prevSpec = previous?.spec as ServiceSpec | undefined;
  spec.type ??= "ClusterIP";
  spec.sessionAffinity ??= "None";
  spec.internalTrafficPolicy ??= "Cluster";
  for (const p of spec.ports ?? []) {
    p.protocol ??= "TCP";
    p.targetPort ??= p.port;
  }
  if (spec.type !== "ExternalName") {
    if (!spec.clusterIP && prevSpec?.clusterIP) spec.clusterIP = prevSpec.clusterIP;
    if (!spec.clusterIP) spec.clusterIP = alloc.clusterIP();
    spec.clusterIPs = [spec.clusterIP];
    spec.ipFamilies ??= ["IPv4"];
    spec.ipFamilyPolicy ??= "SingleStack";
  }
  if (spec.type === "LoadBalancer") (spec as Record<string, unknown>).allocateLoadBalancerNodePorts ??= true;
  const wantsNodePorts = spec.type === "NodePort" || spec.type === "LoadBalancer";
  if (wantsNodePorts) {
    spec.externalTrafficPolicy ??= "Cluster";
    for (const p of spec.ports ?? []) {
      const before = prevSpec?.ports?.find((q) => q.port === p.port && (q.protocol ?? "TCP") === p.protocol);
      p.nodePort ??= before?.nodePort ?? alloc.nodePort();
      if (p.nodePort !== before?.nodePort) alloc.nodePort(p.nodePort);
    }
  } else {
    for (const p of spec.ports ?? []) delete p.nodePort;
  }
  if (previous === undefined || spec.type !== prevSpec?.type) svc.status = { loadBalancer: {} };
  validateService(svc);
}

/**
 * What kube's ValidateService refuses that the schema does not: ports out of range, and a load
 * balancer ingress on a Service that is no LoadBalancer (422 in kube's words).
 */
function validateService(svc: KubeObject): void {
  const spec = (svc.spec ?? {}) as ServiceSpec & { type?: string };
  const causes: StatusCause[] = [];
  for (const [i, p] of (spec.ports ?? []).entries()) {
    if (typeof p.port === "number" && (p.port < 1 || p.port > 65535)) {
      causes.push({
        field: `spec.ports[${i}].port`,
        reason: "FieldValueInvalid",
        message: `Invalid value: ${p.port}: must be between 1 and 65535, inclusive`,
      });
    }
  }
  const ingress = (svc.status as { loadBalancer?: { ingress?: unknown[] } } | undefined)?.loadBalancer?.ingress ?? [];
  if (ingress.length > 0 && (spec.type ?? "ClusterIP") !== "LoadBalancer") {
    causes.push({
      field: "status.loadBalancer.ingress",
      reason: "FieldValueForbidden",
      message: "Forbidden: may only be used when `spec.type` is 'LoadBalancer'",
    });
  }
  if (causes.length > 0) throw errors.invalid("Service", svc.metadata.name ?? "", causes);
}
