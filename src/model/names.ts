// Object names and defaults, as Linkerd spells them (docs/linkerd-compatibility.md#names). Pure.

/** The extension namespace: Links, credentials Secrets, gateway and controllers live here. */
export const DEFAULT_NAMESPACE = "linkerd-multicluster";
/** Linkerd's control-plane namespace (`-L/--linkerd-namespace`). */
export const DEFAULT_LINKERD_NAMESPACE = "linkerd";
/** The ConfigMap in the Linkerd namespace holding the control plane's values. */
export const LINKERD_CONFIG = "linkerd-config";
/** The gateway Deployment, Service and ServiceAccount on the target. */
export const GATEWAY_NAME = "linkerd-gateway";
/** The remote-access ServiceAccount (and ClusterRole/Binding) a source's controller uses on the target. */
export const DEFAULT_REMOTE_ACCESS_SA = "linkerd-service-mirror-remote-access-default";
/** Gateway Service port names, read by `mc link`. */
export const GATEWAY_PORT_NAME = "mc-gateway";
export const PROBE_PORT_NAME = "mc-probe";
/** The controller's admin port (metrics, ready) and its name (Linkerd's since linkerd/linkerd2#14111). */
export const ADMIN_PORT = 9999;
export const ADMIN_PORT_NAME = "svcmi-admin";
/** Default cluster and trust domains when linkerd-config is not read. */
export const DEFAULT_CLUSTER_DOMAIN = "cluster.local";
export const DEFAULT_TRUST_DOMAIN = "cluster.local";

/** Link's group, kind and versions. v1alpha3 is storage and what mc writes. */
export const LINK_GROUP = "multicluster.linkerd.io";
export const LINK_KIND = "Link";
export const LINK_VERSIONS = ["v1alpha1", "v1alpha2", "v1alpha3"] as const;
export type LinkVersion = (typeof LINK_VERSIONS)[number];
export const LINK_API_VERSION = `${LINK_GROUP}/v1alpha3`;
export const LINK_CRD_NAME = `links.${LINK_GROUP}`;

/** `controllerName` of the Link status entries the service mirror writes (docs/linkerd-compatibility.md#link-status). */
export const MIRROR_CONTROLLER_NAME = "linkerd.io/service-mirror";
/** Secret `cluster-credentials-<c>`: the target's kubeconfig, in the extension and the Linkerd namespace. */
export const credentialsSecretName = (cluster: string): string => `cluster-credentials-${cluster}`;
/** Deployment and ServiceAccount of the per-link controller. */
export const serviceMirrorName = (cluster: string): string => `linkerd-service-mirror-${cluster}`;
/** ClusterRole/Binding for local services, endpoints and namespaces. */
export const localResourcesAccessName = (cluster: string): string => `linkerd-service-mirror-access-local-resources-${cluster}`;
/** Role/Binding for the credentials Secret, Links, Link status and the Lease. */
export const readRemoteCredsName = (cluster: string): string => `linkerd-service-mirror-read-remote-creds-${cluster}`;
/** The probe Service (and the gateway-mirror Endpoints the controller writes) for a link. */
export const probeGatewayName = (cluster: string): string => `probe-gateway-${cluster}`;
/** The controller's leader-election Lease. */
export const leaseName = (cluster: string): string => `service-mirror-write-${cluster}`;
/** The token Secret of a remote-access ServiceAccount. */
export const tokenSecretName = (serviceAccount: string): string => `${serviceAccount}-token`;
/** The mirror of target Service `svc` from `cluster` by Linkerd's rule (mc's default template; model/mirror-names.ts). A mirror's target is never parsed back out of its name. */
export const mirrorName = (svc: string, cluster: string): string => `${svc}-${cluster}`;
/** What federated Service names end with: `<svc>-federated` unions `svc` across clusters. */
export const FEDERATED_SUFFIX = "-federated";
/** The federated Service of `svc` (same namespace). */
export const federatedName = (svc: string): string => `${svc}${FEDERATED_SUFFIX}`;
/** The inverse of federatedName: `web-federated` → `web`; undefined when the name has no such suffix. */
export function federatedTarget(name: string): string | undefined {
  return name.length > FEDERATED_SUFFIX.length && name.endsWith(FEDERATED_SUFFIX) ? name.slice(0, -FEDERATED_SUFFIX.length) : undefined;
}
/** `<svc>@<cluster>`: one remote member in a federated Service's remote-discovery annotation. */
export const federatedMember = (svc: string, cluster: string): string => `${svc}@${cluster}`;

/** The local service mirror (Linkerd's `-local-mirror`): its Deployment and ServiceAccount. */
export const LOCAL_MIRROR_NAME = "linkerd-local-service-mirror";
/** Its ClusterRole and ClusterRoleBinding. */
export const LOCAL_MIRROR_ACCESS_NAME = "linkerd-local-service-mirror-access-local-resources";
/** Its Lease. */
export const LOCAL_MIRROR_LEASE = "local-service-mirror-write";
/** Its admin port's name (LATEST). */
export const LOCAL_MIRROR_ADMIN_PORT_NAME = "locsm-admin";
/** The name the local mirror goes by where a Link name would be (it has no Link; Linkerd's "local"). */
export const LOCAL_LINK_NAME = "local";

// A controller the install renders, as Linkerd 2.18's chart names it (`controllers[]`; mc install --controllers).
/** Its ServiceAccount, Deployment and PodDisruptionBudget. */
export const installControllerName = (cluster: string): string => `controller-${cluster}`;
/** The ClusterRole every install-rendered controller is bound to (one for all). */
export const INSTALL_CONTROLLER_ACCESS_NAME = "linkerd-multicluster-controller-access-local-resources";
/** Its ClusterRoleBinding to that ClusterRole. */
export const installControllerAccessName = (cluster: string): string => `${INSTALL_CONTROLLER_ACCESS_NAME}-${cluster}`;
/** Its Role and RoleBinding for its credentials Secret, its Link and its Lease. */
export const installControllerCredsName = (cluster: string): string => `controller-read-remote-creds-${cluster}`;
/** Its probe Service (mc link's controller uses probe-gateway-<cluster>). */
export const installProbeName = (cluster: string): string => `probe-${cluster}`;
/** Its admin port's name (the chart's). */
export const INSTALL_CONTROLLER_ADMIN_PORT_NAME = "ctrl-admin";

/** The one controller serving every Link of a namespace (`mc serve --all`): Deployment and ServiceAccount. mc only. */
export const SHARED_CONTROLLER_NAME = "mc-shared-controller";
/** Its ClusterRole and ClusterRoleBinding for local Services, Endpoints and Namespaces. */
export const SHARED_CONTROLLER_ACCESS_NAME = "mc-shared-controller-access-local-resources";
/** Its Role and RoleBinding for the credentials Secrets, Links, their status and the Leases. */
export const SHARED_CONTROLLER_LINKS_NAME = "mc-shared-controller-read-links";
/**
 * Bun's cap on a process's concurrent HTTP requests (default 256), read once at start. Every
 * watch holds one for as long as it runs, so a process serving many Links needs it raised;
 * 65535 is the most Bun accepts (a larger value is ignored).
 */
export const MAX_HTTP_REQUESTS_ENV = "BUN_CONFIG_MAX_HTTP_REQUESTS";
export const MAX_HTTP_REQUESTS = 65535;
/**
 * The runtime environment of every controller (its Deployment's `env`, and `mc serve` as the benchmarks start it): JavaScriptCore's
 * top JIT tier off. A sync or resync burst made its compiler threads take ~0.7 s of CPU per process start (0.15 s without it),
 * counted against the container's CPU limit, for no measured gain of the tier below it (docs/decisions.md#d175).
 */
export const CONTROLLER_ENV: Readonly<Record<string, string>> = { BUN_JSC_useFTLJIT: "0" };
/** `<gw>.<ns>.serviceaccount.identity.<linkerdNs>.<trustDomain>`: the gateway proxy's mTLS identity. */
export const gatewayIdentity = (o: { gateway: string; namespace: string; linkerdNamespace: string; trustDomain: string }): string =>
  `${o.gateway}.${o.namespace}.serviceaccount.identity.${o.linkerdNamespace}.${o.trustDomain}`;

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Namespaces, Services and cluster names: lowercase letters, digits and '-', at most 63. */
export function isDns1123Label(text: string): boolean {
  return text.length <= 63 && DNS1123_LABEL.test(text);
}

/** Most object names and domains: dot-separated DNS-1123 labels, at most 253. */
export function isDns1123Subdomain(text: string): boolean {
  return text.length <= 253 && DNS1123_SUBDOMAIN.test(text);
}

/**
 * The longest object name mc derives from a cluster name is the ClusterRole
 * `linkerd-service-mirror-access-local-resources-<c>` (no length limit), but the Service
 * `probe-gateway-<c>` must stay a 63-character label, and so must `<svc>-<c>` mirrors.
 */
export const MAX_CLUSTER_NAME = 63 - "probe-gateway-".length;

/** `mc link`'s selector defaults, gateway, remote discovery, federated (docs/linkerd-compatibility.md#selectors). */
export const DEFAULT_SELECTOR = "mirror.linkerd.io/exported=true";
export const DEFAULT_REMOTE_DISCOVERY_SELECTOR = "mirror.linkerd.io/exported=remote-discovery";
export const DEFAULT_FEDERATED_SERVICE_SELECTOR = "mirror.linkerd.io/federated=member";
/** The image of `mc serve` that `mc link` puts in the controller Deployment. */
export const defaultImage = (version: string): string => `ghcr.io/mc-project/mc:${version}`;
