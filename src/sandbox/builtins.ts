// What a real cluster's controllers and admission plugins would do to objects mc depends on:
// service IPs and node ports, load-balancer ingress (as k3s's servicelb), service-account token
// Secrets filled in, namespace phase.
import { errors, type KubeObject } from "./types.ts";

const SA_TOKEN_TYPE = "kubernetes.io/service-account-token";
const SA_NAME_ANNOTATION = "kubernetes.io/service-account.name";

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
  if (spec.type === "LoadBalancer") {
    svc.status = { loadBalancer: { ingress: [{ ip: "127.0.0.1", ipMode: "VIP" }] } };
  } else if (previous === undefined || spec.type !== prevSpec?.type) {
    svc.status = { loadBalancer: {} };
  }
}

/** Is this a token Secret whose data the token controller has still to fill in? */
export function isUnfilledTokenSecret(secret: KubeObject): boolean {
  const data = secret.data as Record<string, string> | undefined;
  return secret.type === SA_TOKEN_TYPE && !!secret.metadata.annotations?.[SA_NAME_ANNOTATION] && !data?.token;
}

/** Fills `data.token`, `data.ca.crt` and `data.namespace` (base64), as the token controller does. */
export function fillTokenSecret(secret: KubeObject, serviceAccount: KubeObject, token: string, caPem: string): void {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  secret.data = {
    ...((secret.data as Record<string, string> | undefined) ?? {}),
    token: b64(token),
    "ca.crt": b64(caPem),
    namespace: b64(secret.metadata.namespace ?? "default"),
  };
  secret.metadata.annotations = {
    ...secret.metadata.annotations,
    "kubernetes.io/service-account.uid": serviceAccount.metadata.uid ?? "",
  };
}

/** Random token text that looks like what a cluster hands out, unique per call. */
export function mintToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `sbx.${Buffer.from(bytes).toString("base64url")}`;
}

export function admitNamespace(ns: KubeObject): void {
  ns.spec = { finalizers: ["kubernetes"] };
  ns.status = { phase: "Active" };
  ns.metadata.labels = { ...ns.metadata.labels, "kubernetes.io/metadata.name": ns.metadata.name ?? "" };
}

/** Default fields the API server sets on Deployments, so kubectl's columns have something to show. */
export function admitDeployment(dep: KubeObject, previous: KubeObject | undefined): void {
  const spec = (dep.spec ??= {}) as Record<string, unknown>;
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  spec.strategy ??= { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } };
  if (!previous) dep.status = {};
}

/** The apiextensions controller: a CRD is named plural.group, and its names are accepted at once. */
export function admitCrd(crd: KubeObject): void {
  const spec = crd.spec as { group?: string; names?: { plural?: string } } | undefined;
  const expected = `${spec?.names?.plural}.${spec?.group}`;
  if (crd.metadata.name !== expected) {
    throw errors.invalid("CustomResourceDefinition", crd.metadata.name ?? "", [{ field: "metadata.name", message: `Invalid value: "${crd.metadata.name}": must be spec.names.plural+"."+spec.group` }], "apiextensions.k8s.io");
  }
  crd.status = {
    conditions: [
      { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found", lastTransitionTime: new Date().toISOString() },
      { type: "Established", status: "True", reason: "InitialNamesAccepted", message: "the initial names have been accepted", lastTransitionTime: new Date().toISOString() },
    ],
    acceptedNames: (crd.spec as { names: object }).names,
    storedVersions: ((crd.spec as { versions: { name: string; storage?: boolean }[] }).versions ?? []).filter((v) => v.storage).map((v) => v.name),
  };
}
