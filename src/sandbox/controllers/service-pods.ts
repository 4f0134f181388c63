// What the endpoints and EndpointSlice controllers share (kube's pkg/controller/util/endpoint and pkg/api/v1/pod): which Services select a
// Pod, which Pods a Service selects, whether a Pod belongs in them and is ready, the port a Service port resolves to on a Pod, and its
// hostname. Selection reads one namespace's Pods or Services, never the whole store.
import type { LabelSelector } from "../selector.ts";
import { keyOf } from "./keyed-sync.ts";
import type { Store } from "../storage/store.ts";
import type { KubeObject } from "../types.ts";

const HEADLESS_LABEL = "service.kubernetes.io/headless";
const PODS = { group: "", plural: "pods" };
const SERVICES = { group: "", plural: "services" };

export interface ServicePort {
  name?: string;
  port?: number;
  protocol?: string;
  appProtocol?: string;
  targetPort?: number | string;
}

interface ServiceSpec {
  type?: string;
  clusterIP?: string;
  selector?: Record<string, string> | null;
  ports?: ServicePort[];
  publishNotReadyAddresses?: boolean;
}

interface PodSpec {
  nodeName?: string;
  hostname?: string;
  subdomain?: string;
  containers?: Array<{ ports?: Array<{ name?: string; containerPort?: number; protocol?: string }> }>;
}

interface PodStatus {
  phase?: string;
  podIP?: string;
  conditions?: Array<{ type?: string; status?: string }>;
}

export const serviceSpec = (svc: KubeObject): ServiceSpec => (svc.spec as ServiceSpec | undefined) ?? {};
const podSpec = (pod: KubeObject): PodSpec => (pod.spec as PodSpec | undefined) ?? {};
const podStatus = (pod: KubeObject): PodStatus => (pod.status as PodStatus | undefined) ?? {};

/**
 * The Pod selector of a Service the controllers manage, or undefined for one they leave alone:
 * no selector (hand-managed Endpoints), or ExternalName. An empty selector counts as none, as in
 * kube, whose protobuf storage cannot tell {} from nil.
 */
export function podSelector(svc: KubeObject): Record<string, string> | undefined {
  const spec = serviceSpec(svc);
  if (spec.type === "ExternalName") return undefined;
  return spec.selector && Object.keys(spec.selector).length > 0 ? spec.selector : undefined;
}

export const isHeadless = (svc: KubeObject): boolean => serviceSpec(svc).clusterIP === "None";

const requirements = (selector: Record<string, string>): LabelSelector =>
  Object.entries(selector).map(([key, value]) => ({ key, op: "=" as const, value }));
const selects = (selector: Record<string, string>, labels: Record<string, string> | undefined) =>
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

/** The Pods a Service selects (read-only store objects), from its namespace only. */
export function podsOf(store: Store, svc: KubeObject): readonly KubeObject[] {
  const selector = podSelector(svc);
  return selector ? store.scan(PODS, { namespace: svc.metadata.namespace, labels: requirements(selector) }) : [];
}

/** Names of the Services in `namespace` whose selector matches any of these label sets (a Pod before and after a change). */
function servicesSelecting(store: Store, namespace: string, labelSets: ReadonlyArray<Record<string, string> | undefined>): string[] {
  const out: string[] = [];
  for (const svc of store.scan(SERVICES, { namespace })) {
    const selector = podSelector(svc);
    if (selector && labelSets.some((labels) => selects(selector, labels))) out.push(svc.metadata.name!);
  }
  return out;
}

/** `namespace/name` of the Services a Pod's change concerns: those selecting it before or after. */
export function servicesOfPod(store: Store, pod: KubeObject, previous?: KubeObject): string[] {
  const namespace = pod.metadata.namespace!;
  return servicesSelecting(store, namespace, [previous?.metadata.labels, pod.metadata.labels]).map((name) => keyOf(namespace, name));
}

/** ShouldPodBeInEndpoints: an IP, not finished (Succeeded/Failed), not being deleted. */
export function belongsInEndpoints(pod: KubeObject): boolean {
  const status = podStatus(pod);
  if (status.phase === "Succeeded" || status.phase === "Failed") return false;
  if (!status.podIP) return false;
  return pod.metadata.deletionTimestamp === undefined;
}

export const isPodReady = (pod: KubeObject): boolean =>
  podStatus(pod).conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

/** FindPort: a numeric targetPort as is, a named one from the Pod's container ports (same protocol); undefined when none matches. */
export function findPort(pod: KubeObject, port: ServicePort): number | undefined {
  const target = port.targetPort ?? port.port;
  if (typeof target === "number") return target;
  const protocol = port.protocol ?? "TCP";
  for (const c of podSpec(pod).containers ?? []) {
    for (const p of c.ports ?? []) if (p.name === target && (p.protocol ?? "TCP") === protocol) return p.containerPort;
  }
  return undefined;
}

/** The endpoint's hostname: the Pod's, when its subdomain is this Service (StatefulSet pods). */
export function hostnameFor(pod: KubeObject, svc: KubeObject): string | undefined {
  const spec = podSpec(pod);
  return spec.hostname && spec.subdomain === svc.metadata.name && pod.metadata.namespace === svc.metadata.namespace
    ? spec.hostname
    : undefined;
}

export const podIP = (pod: KubeObject): string => podStatus(pod).podIP ?? "";
export const nodeNameOf = (pod: KubeObject): string => podSpec(pod).nodeName ?? "";
export const podRef = (pod: KubeObject) => ({
  kind: "Pod",
  namespace: pod.metadata.namespace!,
  name: pod.metadata.name!,
  uid: pod.metadata.uid ?? "",
});

/** The labels the controllers give a Service's Endpoints and slices: the Service's, plus the headless marker. */
export function endpointLabels(svc: KubeObject): Record<string, string> {
  const labels = { ...svc.metadata.labels };
  if (isHeadless(svc)) labels[HEADLESS_LABEL] = "";
  else delete labels[HEADLESS_LABEL];
  return labels;
}
