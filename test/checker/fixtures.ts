// Fixture factories for the checker's pure tests: Links as `mc link` writes them, mirrors as the
// controller labels them, target Services and Endpoints.
import * as L from "../../src/model/labels.ts";
import { parseLink, type GatewayStatus, type Link } from "../../src/model/link.ts";

export function link(o: { cluster?: string; gateway?: boolean; status?: GatewayStatus; period?: string } = {}): Link {
  const c = o.cluster ?? "east";
  const spec: Record<string, unknown> = {
    targetClusterName: c,
    targetClusterDomain: "cluster.local",
    targetClusterLinkerdNamespace: "linkerd",
    clusterCredentialsSecret: `cluster-credentials-${c}`,
    remoteDiscoverySelector: { matchLabels: { [L.EXPORTED]: "remote-discovery" } },
  };
  if (o.gateway !== false) {
    Object.assign(spec, {
      gatewayAddress: "192.0.2.10",
      gatewayPort: "4143",
      gatewayIdentity: "linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.cluster.local",
      probeSpec: { path: "/ready", port: "4191", period: o.period ?? "3s" },
      selector: { matchLabels: { [L.EXPORTED]: "true" } },
    });
  }
  return parseLink({
    apiVersion: "multicluster.linkerd.io/v1alpha3",
    kind: "Link",
    metadata: { name: c, namespace: "linkerd-multicluster" },
    spec,
    status: o.status ? { gateway: o.status } : {},
  });
}

type Labels = Record<string, string>;

export function service(ns: string, name: string, o: { labels?: Labels; annotations?: Labels; rv?: string } = {}) {
  return {
    metadata: {
      name,
      namespace: ns,
      labels: o.labels ?? {},
      annotations: o.annotations ?? {},
      ...(o.rv !== undefined && { resourceVersion: o.rv }),
    },
  };
}

/** A mirror of `svc` from `cluster`, annotated with the target resourceVersion it copied. */
export function mirror(ns: string, svc: string, cluster: string, o: { rv?: string; labels?: Labels } = {}) {
  return service(ns, `${svc}-${cluster}`, {
    labels: { [L.MIRRORED_SERVICE]: "true", [L.CLUSTER_NAME]: cluster, ...o.labels },
    // Every mirror says which target it stands for (Linkerd's annotation); its name need not.
    annotations: { [L.REMOTE_RESOURCE_VERSION]: o.rv ?? "1", [L.REMOTE_SVC_FQ_NAME]: `${svc}.${ns}.svc.cluster.local` },
  });
}

export function endpoints(ns: string, name: string, subsets: { addresses?: unknown[]; notReadyAddresses?: unknown[] }[] | null) {
  return { metadata: { name, namespace: ns, labels: { [L.MIRRORED_SERVICE]: "true" } }, subsets };
}

export const NOW = Date.parse("2026-12-02T12:00:00Z");
export const ago = (ms: number) => new Date(NOW - ms).toISOString();
