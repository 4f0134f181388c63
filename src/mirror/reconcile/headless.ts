// Headless targets (StatefulSets; docs/linkerd-compatibility.md#headless): a headless mirror `<svc>-<c>` whose Endpoints list one address
// per pod hostname, each pointing at an endpoint mirror `<hostname>-<c>` — a ClusterIP Service whose own Endpoints go through the gateway.
// The endpoint mirrors' cluster IPs are only known once they exist, so the headless Endpoints are computed from them last. Pure.
import { HEADLESS_MIRROR_SVC_NAME, REMOTE_RESOURCE_VERSION, REMOTE_SVC_FQ_NAME } from "../../model/labels.ts";
import type { Link } from "../../model/link.ts";
import { fillTemplate } from "../../model/mirror-names.ts";
import { gatewayPorts, gatewaySubsets, mirrorPorts } from "./ports.ts";
import { endpointsAnnotations } from "./metadata.ts";
import type { EndpointAddress, EndpointPort, EndpointsObject, Meta, ResolvedGateway, ServiceObject } from "../types.ts";

export interface EndpointMirror {
  hostname: string;
  service: ServiceObject;
  endpoints: EndpointsObject;
}

export interface HeadlessDesired {
  /** One per ready address with a hostname, sorted by hostname. */
  endpointMirrors: EndpointMirror[];
  /** Per target subset: its ready hostnames and its original ports. */
  subsets: Array<{ hostnames: string[]; ports: EndpointPort[] }>;
  /** Name, namespace, labels and annotations of the headless mirror's Endpoints. */
  endpointsMeta: Meta;
}

/** Distinct hostnames of these addresses, sorted. */
export function hostnamesOf(addresses: readonly EndpointAddress[]): string[] {
  return [...new Set(addresses.map((a) => a.hostname).filter((h): h is string => !!h))].sort();
}

export function desiredHeadless(o: {
  link: Link;
  svc: ServiceObject;
  endpoints: EndpointsObject | undefined;
  gateway: ResolvedGateway;
  alive: boolean;
  mirrorName: string;
  /** The mirrors' namespace (the target's, or `--namespace-map`'s). */
  namespace: string;
  /** The mirror name template: an endpoint mirror is named by it with the pod's hostname as {service}. */
  template: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}): HeadlessDesired {
  const { link, svc, gateway } = o;
  const cluster = link.targetClusterName;
  const { namespace } = o;
  const targetNamespace = svc.metadata.namespace ?? "";
  const svcName = svc.metadata.name ?? "";
  const subsets = (o.endpoints?.subsets ?? []).map((s) => ({
    hostnames: hostnamesOf(s.addresses ?? []),
    ports: (s.ports ?? []).map((p) => ({ ...(p.name && { name: p.name }), protocol: p.protocol ?? "TCP", port: p.port })),
  }));
  const hostnames = [...new Set(subsets.flatMap((s) => s.hostnames))].sort();
  // The exported Service's mirror labels (its own included), as Linkerd's createEndpointMirrorService.
  const labels = { ...o.labels, [HEADLESS_MIRROR_SVC_NAME]: o.mirrorName };
  const ports = mirrorPorts(svc.spec?.ports);
  const epSubsets = gatewaySubsets(gateway, gatewayPorts(svc.spec?.ports, gateway.port), o.alive);
  const endpointMirrors = hostnames.map((hostname): EndpointMirror => {
    const name = fillTemplate(o.template, { service: hostname, cluster, namespace: targetNamespace });
    const fqName = `${hostname}.${svcName}.${targetNamespace}.svc.${link.targetClusterDomain}`;
    return {
      hostname,
      service: {
        apiVersion: "v1",
        kind: "Service",
        metadata: {
          name,
          namespace,
          labels,
          annotations: { [REMOTE_RESOURCE_VERSION]: o.endpoints?.metadata.resourceVersion ?? "", [REMOTE_SVC_FQ_NAME]: fqName },
        },
        spec: { ports },
      },
      endpoints: {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: { name, namespace, labels, annotations: endpointsAnnotations(fqName, gateway.identity) },
        subsets: epSubsets,
      },
    };
  });
  return {
    endpointMirrors,
    subsets,
    endpointsMeta: { name: o.mirrorName, namespace, labels: o.labels, annotations: o.annotations },
  };
}

/**
 * The headless mirror's Endpoints: `{hostname, ip: <endpoint mirror's cluster IP>}` per ready
 * pod, with the target's own ports; always ready (the endpoint mirrors carry liveness). Pods
 * whose endpoint mirror has no IP yet are left out.
 */
export function headlessEndpoints(h: HeadlessDesired, clusterIPs: ReadonlyMap<string, string>): EndpointsObject {
  const subsets = h.subsets
    .map((s) => ({
      addresses: s.hostnames.flatMap((hostname) => {
        const ip = clusterIPs.get(hostname);
        return ip && ip !== "None" ? [{ hostname, ip }] : [];
      }),
      ports: s.ports,
    }))
    .filter((s) => s.addresses.length > 0);
  return { apiVersion: "v1", kind: "Endpoints", metadata: { ...h.endpointsMeta }, subsets };
}
