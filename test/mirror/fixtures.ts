// Small factories for the mirror's tests: Links, credentials Secrets, target Services and
// Endpoints, shaped as the API server returns them. No server needed.
import type { KubeObject } from "../../src/kube/index.ts";
import { EXPORTED, FEDERATED, HEADLESS, KUBECONFIG_DATA_KEY, REMOTE_KUBECONFIG_SECRET_TYPE } from "../../src/model/labels.ts";
import { parseLink, type Link } from "../../src/model/link.ts";
import { credentialsSecretName, DEFAULT_NAMESPACE, LINK_API_VERSION } from "../../src/model/names.ts";
import type { LabelSelectorObject } from "../../src/model/selector.ts";
import type { EndpointsObject, ServiceObject, ServicePort } from "../../src/mirror/types.ts";

export const EXPORT = { [EXPORTED]: "true" };
/** Linkerd's default remote-discovery export label. */
export const REMOTE_DISCOVERY = { [EXPORTED]: "remote-discovery" };
/** Linkerd's default federated-member label. */
export const MEMBER = { [FEDERATED]: "member" };

export interface LinkFixture {
  cluster?: string;
  namespace?: string;
  /** null: no selector at all. Default `mirror.linkerd.io/exported=true`. */
  selector?: LabelSelectorObject | null;
  /** Default none; `{ matchLabels: REMOTE_DISCOVERY }` is Linkerd's default. */
  remoteDiscoverySelector?: LabelSelectorObject;
  /** Default none; `{ matchLabels: MEMBER }` is Linkerd's default. */
  federatedServiceSelector?: LabelSelectorObject;
  /** "" for a gateway-less link. */
  gatewayAddress?: string;
  gatewayPort?: string;
  gatewayIdentity?: string;
  /** null: no probe spec. */
  probe?: { path: string; port: string; period: string } | null;
  domain?: string;
  excludedLabels?: string[];
  excludedAnnotations?: string[];
  status?: Record<string, unknown>;
}

export function linkObject(o: LinkFixture = {}): KubeObject {
  const cluster = o.cluster ?? "east";
  const selector = o.selector === undefined ? { matchLabels: EXPORT } : o.selector;
  const probe = o.probe === undefined ? { path: "/ready", port: "4191", period: "3s" } : o.probe;
  const gatewayAddress = o.gatewayAddress ?? "192.0.2.127";
  return {
    apiVersion: LINK_API_VERSION,
    kind: "Link",
    metadata: { name: cluster, namespace: o.namespace ?? DEFAULT_NAMESPACE },
    spec: {
      targetClusterName: cluster,
      targetClusterDomain: o.domain ?? "cluster.local",
      targetClusterLinkerdNamespace: "linkerd",
      clusterCredentialsSecret: credentialsSecretName(cluster),
      ...(gatewayAddress !== "" && {
        gatewayAddress,
        gatewayPort: o.gatewayPort ?? "888",
        gatewayIdentity: o.gatewayIdentity ?? "gateway-identity",
      }),
      ...(probe && { probeSpec: probe }),
      ...(selector && { selector }),
      ...(o.remoteDiscoverySelector && { remoteDiscoverySelector: o.remoteDiscoverySelector }),
      ...(o.federatedServiceSelector && { federatedServiceSelector: o.federatedServiceSelector }),
      ...(o.excludedLabels && { excludedLabels: o.excludedLabels }),
      ...(o.excludedAnnotations && { excludedAnnotations: o.excludedAnnotations }),
    },
    ...(o.status && { status: o.status }),
  };
}

export function link(o: LinkFixture = {}): Link {
  return parseLink(linkObject(o));
}

export function credentialsSecret(cluster: string, kubeconfig: string, namespace = DEFAULT_NAMESPACE): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: credentialsSecretName(cluster), namespace },
    type: REMOTE_KUBECONFIG_SECRET_TYPE,
    data: { [KUBECONFIG_DATA_KEY]: Buffer.from(kubeconfig).toString("base64") },
  };
}

export interface ServiceFixture {
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ports?: ServicePort[];
  headless?: boolean;
  resourceVersion?: string;
}

/** A target Service (exported by default), with Linkerd's test ports 555 and 666. */
export function remoteService(o: ServiceFixture = {}): ServiceObject & KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: o.name ?? "service-one",
      namespace: o.namespace ?? "ns1",
      labels: o.labels ?? { ...EXPORT },
      ...(o.annotations && { annotations: o.annotations }),
      ...(o.resourceVersion && { resourceVersion: o.resourceVersion }),
    },
    spec: {
      ports: o.ports ?? [
        { name: "port1", protocol: "TCP", port: 555 },
        { name: "port2", protocol: "TCP", port: 666 },
      ],
      ...(o.headless && { clusterIP: "None" }),
    },
  };
}

export type AddressFixture = string | { ip: string; hostname: string };

export interface EndpointsFixture {
  name?: string;
  namespace?: string;
  /** Copied from the Service by the endpoints controller; default exported. */
  labels?: Record<string, string>;
  ready?: AddressFixture[];
  notReady?: AddressFixture[];
  ports?: Array<{ name?: string; port: number; protocol?: string }>;
  headless?: boolean;
  resourceVersion?: string;
}

/** The target Service's Endpoints, as Kubernetes' endpoints controller writes them. */
export function remoteEndpoints(o: EndpointsFixture = {}): EndpointsObject & KubeObject {
  const addr = (a: AddressFixture) => (typeof a === "string" ? { ip: a } : a);
  const ready = (o.ready ?? ["10.0.0.1"]).map(addr);
  const notReady = (o.notReady ?? []).map(addr);
  const labels = { ...(o.labels ?? EXPORT), ...(o.headless && { [HEADLESS]: "" }) };
  return {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: {
      name: o.name ?? "service-one",
      namespace: o.namespace ?? "ns1",
      labels,
      ...(o.resourceVersion && { resourceVersion: o.resourceVersion }),
    },
    subsets:
      ready.length + notReady.length === 0
        ? []
        : [
            {
              ...(ready.length > 0 && { addresses: ready }),
              ...(notReady.length > 0 && { notReadyAddresses: notReady }),
              ports: o.ports ?? [
                { name: "port1", port: 555, protocol: "TCP" },
                { name: "port2", port: 666, protocol: "TCP" },
              ],
            },
          ],
  };
}

/** A fixed resolver: hostname → addresses, changeable between calls. */
export function fakeResolver(table: Record<string, string[]>): ((host: string) => Promise<string[]>) & { table: Record<string, string[]> } {
  const fn = async (host: string) => {
    const found = fn.table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return found;
  };
  fn.table = table;
  return fn;
}
