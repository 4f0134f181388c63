// Every label, annotation and special type string mc reads or writes, with Linkerd's exact
// spelling (docs/linkerd-compatibility.md#labels). Never spell one of these inline elsewhere:
// import it from here.

// --- mirror.linkerd.io/* (Linkerd's SvcMirrorPrefix) -------------------------------------------

/** Prefix of Linkerd's mirror keys: remote labels under it are never copied to mirrors. */
export const SVC_MIRROR_PREFIX = "mirror.linkerd.io";
/** Label a target Service carries to be exported: `true` = gateway mode, `remote-discovery` = flat mode. */
export const EXPORTED = "mirror.linkerd.io/exported";
/** Label `member` on a target or local Service: joins the federated Service `<svc>-federated`. */
export const FEDERATED = "mirror.linkerd.io/federated";
/** Label `"true"` the mirror puts on everything it creates (mirrors, their Endpoints, federated Services). */
export const MIRRORED_SERVICE = "mirror.linkerd.io/mirrored-service";
/** Label: the target cluster name, on mirrors and on every per-link controller object. */
export const CLUSTER_NAME = "mirror.linkerd.io/cluster-name";
/**
 * mc's label: the uid of the Link whose controller made a mirror (every mirror object, endpoint
 * mirrors and the gateway mirror's Endpoints included), so a Link whose target was renamed finds
 * the mirrors it made under the old name. Under Linkerd's prefix so that no mirror copies it from
 * a target Service; Linkerd ignores it.
 */
export const LINK_UID = "mirror.linkerd.io/link-uid";
/** Label `"true"` on the probe Service `probe-gateway-<c>`: the gateway mirror, not a service mirror. */
export const MIRRORED_GATEWAY = "mirror.linkerd.io/mirrored-gateway";
/** Label on endpoint-mirror Services/Endpoints: the headless mirror they belong to. */
export const HEADLESS_MIRROR_SVC_NAME = "mirror.linkerd.io/headless-mirror-svc-name";
/** Annotation on a mirror: the target Service's last mirrored resourceVersion. */
export const REMOTE_RESOURCE_VERSION = "mirror.linkerd.io/remote-resource-version";
/** Annotation on a mirror: `<svc>.<ns>.svc.<targetClusterDomain>`, read by Linkerd's destination controller. */
export const REMOTE_SVC_FQ_NAME = "mirror.linkerd.io/remote-svc-fq-name";
/** Annotation on mirror Endpoints: the gateway's mTLS identity (copy of `spec.gatewayIdentity`). */
export const REMOTE_GATEWAY_IDENTITY = "mirror.linkerd.io/remote-gateway-identity";
/** Annotation `mc install` puts on the gateway Service: its mTLS identity, read by `mc link`. */
export const GATEWAY_IDENTITY = "mirror.linkerd.io/gateway-identity";
/** Annotation on the gateway Service: probe period in seconds (`"3"`), read by `mc link`. */
export const PROBE_PERIOD = "mirror.linkerd.io/probe-period";
/** Annotation on the gateway Service: probe path (`/ready`), read by `mc link`. */
export const PROBE_PATH = "mirror.linkerd.io/probe-path";
/** Annotation `"true"` on the gateway Service: an informational marker. */
export const MULTICLUSTER_GATEWAY = "mirror.linkerd.io/multicluster-gateway";
/** Secret `type` of credentials Secrets; their kubeconfig is in `data.kubeconfig`. */
export const REMOTE_KUBECONFIG_SECRET_TYPE = "mirror.linkerd.io/remote-kubeconfig";
/** The data key of a credentials Secret that holds the kubeconfig. */
export const KUBECONFIG_DATA_KEY = "kubeconfig";

// --- multicluster.linkerd.io/* (Linkerd's MulticlusterPrefix) ---------------------------------

/** Label on the credentials Secret copy in the Linkerd namespace: lets the destination controller find the cluster. */
export const MC_CLUSTER_NAME = "multicluster.linkerd.io/cluster-name";
/** Annotation on that Secret: the target's identity trust domain (the destination controller requires it). */
export const MC_TRUST_DOMAIN = "multicluster.linkerd.io/trust-domain";
/** Annotation on that Secret: the target's cluster domain (the destination controller requires it). */
export const MC_CLUSTER_DOMAIN = "multicluster.linkerd.io/cluster-domain";
/** Label (value = cluster) on remote-discovery mirrors; annotation `<svc>@<c>,…` on federated Services. */
export const MC_REMOTE_DISCOVERY = "multicluster.linkerd.io/remote-discovery";
/** Label on remote-discovery mirrors: the Service's name in the target. */
export const MC_REMOTE_SERVICE = "multicluster.linkerd.io/remote-service";
/** Annotation on federated Services: the local member's name. */
export const MC_LOCAL_DISCOVERY = "multicluster.linkerd.io/local-discovery";

// --- linkerd.io/* and config.linkerd.io/* ------------------------------------------------------

/** Label `multicluster` on every object the extension renders; `mc uninstall` and `check` select by it. */
export const EXTENSION = "linkerd.io/extension";
/** The value of EXTENSION. */
export const EXTENSION_NAME = "multicluster";
/** Annotation naming the tool and version that rendered an object (`mc/cli 0.1.0`). */
export const CREATED_BY = "linkerd.io/created-by";
/** Pod annotation `enabled`: Linkerd's proxy injector adds the proxy (gateway and controller pods). */
export const INJECT = "linkerd.io/inject";
/** Gateway pod annotation `"true"`: the proxy runs in gateway mode. */
export const ENABLE_GATEWAY = "config.linkerd.io/enable-gateway";
/** Gateway pod annotation: inbound ports that require mTLS (the gateway port). */
export const REQUIRE_IDENTITY_INBOUND_PORTS = "config.linkerd.io/proxy-require-identity-inbound-ports";
/** Gateway pod annotation `all-authenticated`: only meshed clients get in by default. */
export const DEFAULT_INBOUND_POLICY = "config.linkerd.io/default-inbound-policy";
/** Controller pod annotation `"0"`: the proxy exits with the controller. */
export const PROXY_WAIT_BEFORE_EXIT = "config.alpha.linkerd.io/proxy-wait-before-exit-seconds";
/** Annotation mirrors always copy (linkerd/linkerd2#5770): ports the proxy treats as opaque TCP. */
export const OPAQUE_PORTS = "config.linkerd.io/opaque-ports";

// --- Kubernetes keys -----------------------------------------------------------------------------

/**
 * Label: `gateway`, `service-mirror` (controller Deployment metadata), `linkerd-service-mirror` (controller pods);
 * also an annotation `component: gateway` on the gateway Service, as Linkerd's chart writes it.
 */
export const COMPONENT = "component";
/** Gateway pods and selector: `app: linkerd-gateway`. */
export const APP = "app";
export const APP_NAME = "app.kubernetes.io/name";
export const APP_PART_OF = "app.kubernetes.io/part-of";
/** Pod annotation `"true"`: the cluster autoscaler may evict gateway and controller pods. */
export const SAFE_TO_EVICT = "cluster-autoscaler.kubernetes.io/safe-to-evict";
/** Namespace label: the extension namespace runs privileged pods (linkerd-init needs capabilities). */
export const POD_SECURITY_ENFORCE = "pod-security.kubernetes.io/enforce";
/** Annotation on a token Secret: the ServiceAccount whose token the token controller writes into it. */
export const SERVICE_ACCOUNT_NAME = "kubernetes.io/service-account.name";
/** Secret `type` of service-account token Secrets (`data.token`). */
export const SERVICE_ACCOUNT_TOKEN_SECRET_TYPE = "kubernetes.io/service-account-token";
/** Never copied to mirrors: topology hints make no sense across clusters. */
export const TOPOLOGY_AWARE_HINTS = "service.kubernetes.io/topology-aware-hints";
export const TOPOLOGY_MODE = "service.kubernetes.io/topology-mode";
/** Label on an EndpointSlice: the Service whose endpoints it holds (discovery.k8s.io/v1). */
export const SLICE_SERVICE_NAME = "kubernetes.io/service-name";
/** Label on an EndpointSlice: the controller that manages it (kube's own leave others' slices alone). */
export const SLICE_MANAGED_BY = "endpointslice.kubernetes.io/managed-by";
/** SLICE_MANAGED_BY's value on the slices of mirrors (`--mirror-endpoint-slices`): mc's own, no kube controller's. */
export const MC_SLICE_MANAGER = "service-mirror.mc-project.io";
/** Endpoints label marking headless Services' Endpoints. */
export const HEADLESS = "service.kubernetes.io/headless";

// --- component values ---------------------------------------------------------------------------

/** COMPONENT value on the gateway's Deployment, Service and pods. */
export const COMPONENT_GATEWAY = "gateway";
/** COMPONENT value on the per-link controller's Deployment metadata and RBAC (`check` looks for it). */
export const COMPONENT_SERVICE_MIRROR = "service-mirror";
/** COMPONENT value on the per-link controller's pods and selector (`gateways` looks for it). */
export const COMPONENT_SERVICE_MIRROR_POD = "linkerd-service-mirror";
/** COMPONENT value on a controller the install renders (Linkerd 2.18's chart `controllers[]`; `mc install --controllers`): its objects, pods and selector. */
export const COMPONENT_CONTROLLER = "controller";
/** COMPONENT value on the local service mirror's objects (federated members of the local cluster). */
export const COMPONENT_LOCAL_SERVICE_MIRROR = "local-service-mirror";
/** COMPONENT value on the one controller that serves every Link (`mc install --shared-controller`; mc only). */
export const COMPONENT_SHARED_CONTROLLER = "shared-controller";
