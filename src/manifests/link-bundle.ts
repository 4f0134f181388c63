// `mc link`'s output for the source cluster (docs/linkerd-compatibility.md#link-output): the credentials Secret, its copy in the Linkerd
// namespace for the destination controller, the Link, and (unless `--controller=false`, Linkerd's link-gen) the link's service mirror
// controller — or, with `--controller=shared`, only the probe Service the shared controller (`mc install
import * as L from "../model/labels.ts";
import { DEFAULT_PROBE_FAILURE_THRESHOLD, DEFAULT_PROBE_TIMEOUT_MS, toLinkSpecObject, type LinkSpecOptions } from "../model/link.ts";
import { credentialsSecretName, LINK_API_VERSION, LINK_KIND } from "../model/names.ts";
import { createdBy, type Manifest } from "./meta.ts";
import { renderProbeService, renderServiceMirror, type ControllerOptions } from "./service-mirror.ts";

// --shared-controller`) needs. Pure: facts read from the target and flags in, objects out, in apply
// order.

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
  /** The Link's selectors and exclusions (mc link's flags). */
  spec: LinkSpecOptions;
  /** null: `--controller=false`, Secrets and Link only; "shared": served by the shared controller, so the probe Service only. */
  controller: ControllerOptions | "shared" | null;
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
  if (o.controller === "shared") {
    if (o.gateway)
      out.push(renderProbeService({ clusterName: c, namespace: o.namespace, probePort: o.gateway.probe.port, version: o.version }));
  } else if (o.controller) {
    out.push(
      ...renderServiceMirror({
        clusterName: c,
        namespace: o.namespace,
        probePort: o.gateway?.probe.port ?? null,
        controller: o.controller,
        version: o.version,
      }),
    );
  }
  return out;
}

/**
 * The Link, v1alpha3 (docs/linkerd-compatibility.md#link-spec): the facts read from the target plus the
 * chosen spec options.
 */
export function renderLink(o: Omit<LinkBundleOptions, "kubeconfig" | "controller" | "trustDomain">): Manifest {
  const g = o.gateway;
  const spec = toLinkSpecObject({
    targetClusterName: o.clusterName,
    targetClusterDomain: o.clusterDomain,
    targetClusterLinkerdNamespace: o.linkerdNamespace,
    clusterCredentialsSecret: credentialsSecretName(o.clusterName),
    gateway: g && { addresses: g.addresses, port: g.port, identity: g.identity },
    probe: g && { ...g.probe, timeoutMs: DEFAULT_PROBE_TIMEOUT_MS, failureThreshold: DEFAULT_PROBE_FAILURE_THRESHOLD },
    ...o.spec,
  });
  return {
    apiVersion: LINK_API_VERSION,
    kind: LINK_KIND,
    metadata: { name: o.clusterName, namespace: o.namespace, annotations: { [L.CREATED_BY]: createdBy(o.version) } },
    spec,
  };
}
