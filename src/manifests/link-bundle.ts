// `mc link`'s output for the source cluster (SPEC §4.4): the credentials Secret, its copy in the
// Linkerd namespace for the destination controller, the Link, and (unless `--controller=false`,
// Linkerd's link-gen) the link's service mirror controller. Pure: facts read from the target
// and flags in, objects out, in apply order.
import * as L from "../model/labels.ts";
import { formatDuration } from "../model/duration.ts";
import { credentialsSecretName, LINK_API_VERSION, LINK_KIND } from "../model/names.ts";
import { toSelectorObject, type LabelSelector } from "../model/selector.ts";
import { createdBy, type Manifest } from "./meta.ts";
import { renderServiceMirror, type ControllerOptions } from "./service-mirror.ts";

export interface LinkGateway {
  addresses: string[];
  port: number;
  identity: string;
  probe: { path: string; port: number; periodMs: number };
}

export interface LinkBundleOptions {
  clusterName: string;
  /** Namespace of the Link, the Secret and the controller on the source. */
  namespace: string;
  /** Linkerd's namespace: the target's (in the Link) and the source's (for the Secret copy). */
  linkerdNamespace: string;
  /** The kubeconfig for the target, holding only the remote-access token. */
  kubeconfig: string;
  clusterDomain: string;
  trustDomain: string;
  /** null: a gateway-less link (remote discovery and federated services only). */
  gateway: LinkGateway | null;
  selector: LabelSelector;
  remoteDiscoverySelector: LabelSelector;
  federatedServiceSelector: LabelSelector;
  excludedAnnotations: string[];
  excludedLabels: string[];
  /** null: `--controller=false`, Secrets and Link only. */
  controller: ControllerOptions | null;
  version: string;
}

export function renderLinkBundle(o: LinkBundleOptions): Manifest[] {
  const c = o.clusterName;
  const data = { [L.KUBECONFIG_DATA_KEY]: Buffer.from(o.kubeconfig).toString("base64") };
  const secret = (namespace: string, extra: Pick<Manifest["metadata"], "labels" | "annotations">): Manifest => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: credentialsSecretName(c), namespace, ...extra },
    type: L.REMOTE_KUBECONFIG_SECRET_TYPE,
    data,
  });
  const out = [
    secret(o.namespace, {}),
    secret(o.linkerdNamespace, {
      labels: { [L.MC_CLUSTER_NAME]: c },
      annotations: { [L.MC_TRUST_DOMAIN]: o.trustDomain, [L.MC_CLUSTER_DOMAIN]: o.clusterDomain },
    }),
    renderLink(o),
  ];
  if (o.controller) {
    out.push(...renderServiceMirror({ clusterName: c, namespace: o.namespace, probePort: o.gateway?.probe.port ?? null, controller: o.controller, version: o.version }));
  }
  return out;
}

/** The Link, v1alpha3, every scalar a string (SPEC §1.2). Probe timeout and threshold are left to the CRD defaults. */
export function renderLink(o: Omit<LinkBundleOptions, "kubeconfig" | "controller" | "trustDomain">): Manifest {
  const spec: Record<string, unknown> = {
    targetClusterName: o.clusterName,
    targetClusterDomain: o.clusterDomain,
    targetClusterLinkerdNamespace: o.linkerdNamespace,
    clusterCredentialsSecret: credentialsSecretName(o.clusterName),
  };
  if (o.gateway) {
    spec.gatewayAddress = o.gateway.addresses.join(",");
    spec.gatewayPort = String(o.gateway.port);
    spec.gatewayIdentity = o.gateway.identity;
    spec.probeSpec = { path: o.gateway.probe.path, port: String(o.gateway.probe.port), period: formatDuration(o.gateway.probe.periodMs) };
    spec.selector = toSelectorObject(o.selector);
  }
  spec.remoteDiscoverySelector = toSelectorObject(o.remoteDiscoverySelector);
  spec.federatedServiceSelector = toSelectorObject(o.federatedServiceSelector);
  if (o.excludedAnnotations.length > 0) spec.excludedAnnotations = o.excludedAnnotations;
  if (o.excludedLabels.length > 0) spec.excludedLabels = o.excludedLabels;
  return {
    apiVersion: LINK_API_VERSION,
    kind: LINK_KIND,
    metadata: { name: o.clusterName, namespace: o.namespace, annotations: { [L.CREATED_BY]: createdBy(o.version) } },
    spec,
  };
}
