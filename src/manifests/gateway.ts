// The target's gateway (docs/linkerd-compatibility.md#gateway): a Deployment whose only container
// is `pause` (the injected Linkerd proxy does the work), its Service with the ports and annotations
// `mc link` reads, its ServiceAccount, and the policy that lets meshed clients from anywhere in.
import * as L from "../model/labels.ts";
import { GATEWAY_NAME, GATEWAY_PORT_NAME, gatewayIdentity, PROBE_PORT_NAME } from "../model/names.ts";
import { antiAffinity, object, restrictedContainer, type Manifest } from "./meta.ts";

export type GatewayServiceType = "LoadBalancer" | "NodePort" | "ClusterIP";
export const GATEWAY_SERVICE_TYPES: readonly GatewayServiceType[] = ["LoadBalancer", "NodePort", "ClusterIP"];

const PAUSE_IMAGE = "registry.k8s.io/pause:3.2";
/** The gateway's pause container: a process that sleeps (well under 1 MB). */
const PAUSE_RESOURCES = { requests: { cpu: "10m", memory: "8Mi" }, limits: { cpu: "100m", memory: "32Mi" } };

/** UID/GID of Linkerd's gateway and controller containers. */
export const LINKERD_UID = 2103;
const PROBE_PATH = "/ready";

export interface GatewayOptions {
  serviceType: GatewayServiceType;
  /** `mc-gateway`: the proxy's inbound port (4143). */
  port: number;
  /** `mc-probe`: the proxy's admin port, probed at /ready (4191). */
  probePort: number;
  probeSeconds: number;
  replicas: number;
  /** HA: anti-affinity, maxUnavailable 1 and a PodDisruptionBudget. */
  ha: boolean;
}

interface Context {
  namespace: string;
  linkerdNamespace: string;
  trustDomain: string;
  version: string;
}

const POLICY = "policy.linkerd.io";

export function renderGateway(gw: GatewayOptions, c: Context): Manifest[] {
  const ns = c.namespace;
  const pods = { [L.APP]: GATEWAY_NAME };
  const meta = (extra: Record<string, string> = {}) => ({ name: GATEWAY_NAME, namespace: ns, version: c.version, labels: extra });
  const deployment = object(
    "apps/v1",
    "Deployment",
    meta({ [L.APP_NAME]: "gateway", [L.APP_PART_OF]: "Linkerd", [L.COMPONENT]: L.COMPONENT_GATEWAY, [L.APP]: GATEWAY_NAME }),
    {
      spec: {
        replicas: gw.replicas,
        revisionHistoryLimit: 10,
        selector: { matchLabels: pods },
        ...(gw.ha && { strategy: { rollingUpdate: { maxUnavailable: 1 } } }),
        template: {
          metadata: {
            annotations: {
              [L.INJECT]: "enabled",
              [L.ENABLE_GATEWAY]: "true",
              [L.REQUIRE_IDENTITY_INBOUND_PORTS]: String(gw.port),
              [L.DEFAULT_INBOUND_POLICY]: "all-authenticated",
              [L.SAFE_TO_EVICT]: "true",
            },
            labels: { [L.EXTENSION]: L.EXTENSION_NAME, ...pods },
          },
          spec: {
            ...(gw.ha && { affinity: antiAffinity(pods) }),
            automountServiceAccountToken: false,
            // The pause container only holds the pod for the proxy (sized by Linkerd's own annotations): it needs next to nothing.
            containers: [
              {
                name: "pause",
                image: PAUSE_IMAGE,
                securityContext: restrictedContainer(LINKERD_UID),
                resources: structuredClone(PAUSE_RESOURCES),
              },
            ],
            securityContext: { seccompProfile: { type: "RuntimeDefault" } },
            serviceAccountName: GATEWAY_NAME,
          },
        },
      },
    },
  );
  const service = object(
    "v1",
    "Service",
    {
      ...meta({ [L.COMPONENT]: L.COMPONENT_GATEWAY }),
      annotations: {
        [L.GATEWAY_IDENTITY]: gatewayIdentity({
          gateway: GATEWAY_NAME,
          namespace: ns,
          linkerdNamespace: c.linkerdNamespace,
          trustDomain: c.trustDomain,
        }),
        [L.PROBE_PERIOD]: String(gw.probeSeconds),
        [L.PROBE_PATH]: PROBE_PATH,
        [L.MULTICLUSTER_GATEWAY]: "true",
        // Linkerd's chart sets `component: gateway` as an annotation on this Service too (install_default.golden).
        [L.COMPONENT]: L.COMPONENT_GATEWAY,
      },
    },
    {
      spec: {
        type: gw.serviceType,
        selector: pods,
        ports: [
          { name: GATEWAY_PORT_NAME, port: gw.port, protocol: "TCP" },
          { name: PROBE_PORT_NAME, port: gw.probePort, protocol: "TCP" },
        ],
      },
    },
  );
  const out = [deployment, service, object("v1", "ServiceAccount", meta())];
  if (gw.ha) {
    out.push(
      object("policy/v1", "PodDisruptionBudget", meta({ [L.COMPONENT]: L.COMPONENT_GATEWAY }), {
        spec: { maxUnavailable: 1, selector: { matchLabels: pods } },
      }),
    );
  }
  return [...out, ...renderGatewayPolicy(c)];
}

/** Server on the proxy's inbound port, authorised for meshed clients (any identity) from any network. */
function renderGatewayPolicy(c: Context): Manifest[] {
  const ns = c.namespace;
  const labels = { [L.APP]: GATEWAY_NAME };
  const meta = (name: string) => ({ name, namespace: ns, version: c.version, labels });
  return [
    object(`${POLICY}/v1beta3`, "Server", meta(GATEWAY_NAME), { spec: { podSelector: { matchLabels: labels }, port: "linkerd-proxy" } }),
    object(`${POLICY}/v1alpha1`, "AuthorizationPolicy", meta(GATEWAY_NAME), {
      spec: {
        targetRef: { group: POLICY, kind: "Server", name: GATEWAY_NAME },
        requiredAuthenticationRefs: [
          { group: POLICY, kind: "MeshTLSAuthentication", name: "any-meshed", namespace: ns },
          { group: POLICY, kind: "NetworkAuthentication", name: "source-cluster", namespace: ns },
        ],
      },
    }),
    object(`${POLICY}/v1alpha1`, "MeshTLSAuthentication", meta("any-meshed"), { spec: { identities: ["*"] } }),
    // Narrow these to the source clusters' CIDRs where the provider keeps source IPs.
    object(`${POLICY}/v1alpha1`, "NetworkAuthentication", meta("source-cluster"), {
      spec: { networks: [{ cidr: "0.0.0.0/0" }, { cidr: "::/0" }] },
    }),
  ];
}
