// Fixtures for `mc gateways`: Link objects with a status.gateway, mirror Services, and a sandbox
// with the Link CRD applied and the extension namespace created.
import { connectKubeconfigText } from "../../src/kube/connect.ts";
import type { KubeClient } from "../../src/kube/client.ts";
import { resources } from "../../src/kube/resources.ts";
import type { KubeObject } from "../../src/kube/types.ts";
import { renderLinkCrd } from "../../src/manifests/crd.ts";
import { CLUSTER_NAME, HEADLESS_MIRROR_SVC_NAME, MIRRORED_GATEWAY, MIRRORED_SERVICE } from "../../src/model/labels.ts";
import { linkResource, parseLink, type GatewayStatus, type Link } from "../../src/model/link.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";

export const NS = "linkerd-multicluster";
/** The reader's "now" in pure tests. */
export const NOW = Date.parse("2026-12-02T10:00:30Z");
export const ago = (ms: number, now = NOW) => new Date(now - ms).toISOString();

export function linkObject(cluster: string, o: { period?: string; probe?: boolean; status?: GatewayStatus } = {}): KubeObject {
  return {
    apiVersion: "multicluster.linkerd.io/v1alpha3",
    kind: "Link",
    metadata: { name: cluster, namespace: NS },
    spec: {
      targetClusterName: cluster,
      clusterCredentialsSecret: `cluster-credentials-${cluster}`,
      gatewayAddress: o.probe === false ? "" : "203.0.113.10",
      gatewayPort: o.probe === false ? "" : "4143",
      gatewayIdentity: "linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.cluster.local",
      probeSpec: o.probe === false ? {} : { path: "/ready", port: "4191", period: o.period ?? "3s" },
      selector: { matchLabels: { "mirror.linkerd.io/exported": "true" } },
    },
    ...(o.status && { status: { gateway: o.status } }),
  };
}

export const link = (cluster: string, o: Parameters<typeof linkObject>[1] = {}): Link => parseLink(linkObject(cluster, o));

export function alive(o: Partial<GatewayStatus> & { at: string }): GatewayStatus {
  const { at, ...rest } = o;
  return {
    alive: true,
    latency: { p50: "3ms", p95: "9ms", p99: "14ms" },
    lastProbeTime: at,
    consecutiveFailures: 0,
    lastTransitionTime: "2026-12-02T09:00:00Z",
    ...rest,
  };
}

export function dead(o: Partial<GatewayStatus> & { at: string }): GatewayStatus {
  const { at, ...rest } = o;
  return { alive: false, lastProbeTime: at, consecutiveFailures: 7, lastTransitionTime: "2026-12-02T10:00:00Z", ...rest };
}

export function mirrorService(name: string, namespace: string, cluster: string, extra: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: `${name}-${cluster}`, namespace, labels: { [MIRRORED_SERVICE]: "true", [CLUSTER_NAME]: cluster, ...extra } },
    spec: { ports: [{ name: "http", port: 80 }] },
  };
}

export const gatewayMirror = (cluster: string) => mirrorService("probe-gateway", NS, cluster, { [MIRRORED_GATEWAY]: "true" });
export const endpointMirror = (pod: string, namespace: string, cluster: string) =>
  mirrorService(pod, namespace, cluster, { [HEADLESS_MIRROR_SVC_NAME]: `db-${cluster}` });

export interface GatewaysSandbox {
  sb: Sandbox;
  client: KubeClient;
  /** Creates a Link, then writes its status.gateway through the status subresource. */
  addLink(cluster: string, o?: Parameters<typeof linkObject>[1]): Promise<void>;
  setStatus(cluster: string, status: GatewayStatus): Promise<void>;
  add(obj: KubeObject): Promise<void>;
}

export async function gatewaysSandbox(o: { crd?: boolean; namespace?: boolean } = {}): Promise<GatewaysSandbox> {
  const sb = await startSandbox({ name: "west", port: 0 });
  const client = await connectKubeconfigText(sb.kubeconfig, "kubeconfig west", { timeoutMs: 5000 });
  if (o.crd !== false) await client.create(resources.customResourceDefinition, renderLinkCrd("mc/test") as unknown as KubeObject);
  if (o.namespace !== false) await client.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
  const setStatus = async (cluster: string, status: GatewayStatus) => {
    await client.patch(linkResource, NS, cluster, { status: { gateway: status } }, { type: "merge", subresource: "status" });
  };
  return {
    sb,
    client,
    async addLink(cluster, lo = {}) {
      const { status, ...rest } = lo;
      await client.create(linkResource, linkObject(cluster, rest));
      if (status) await setStatus(cluster, status);
    },
    setStatus,
    async add(obj) {
      const ns = obj.metadata.namespace;
      if (ns && ns !== NS) {
        try {
          await client.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
        } catch {
          // already there
        }
      }
      await client.create(resources.service, obj);
    },
  };
}
