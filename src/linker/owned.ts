// What mc's renderers make, as the object identities unlink, uninstall and check look for. Derived by rendering — the same functions `mc
// link` and `mc install` print from — with every optional part switched on, so a new object in a renderer shows up here without a second
// hand-kept list. Pure.
import { renderInstall } from "../manifests/install.ts";
import { renderLinkBundle } from "../manifests/link-bundle.ts";
import type { Manifest } from "../manifests/meta.ts";
import { noLinkSpecOptions } from "../model/link.ts";
import { leaseName, probeGatewayName } from "../model/names.ts";

/** An object as `kubectl delete -f -` needs it: apiVersion, kind, name and namespace only. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  /** Absent for cluster-scoped objects. */
  namespace?: string;
}

export const refOf = (m: { apiVersion?: string; kind?: string; metadata: { name?: string; namespace?: string } }): ObjectRef => ({
  apiVersion: m.apiVersion ?? "",
  kind: m.kind ?? "",
  name: m.metadata.name ?? "",
  ...(m.metadata.namespace ? { namespace: m.metadata.namespace } : {}),
});

export const refKey = (r: ObjectRef): string => `${r.apiVersion}|${r.kind}|${r.namespace ?? ""}|${r.name}`;

/** `Deployment linkerd-multicluster/linkerd-service-mirror-east` */
export const describeRef = (r: ObjectRef): string => `${r.kind} ${r.namespace ? `${r.namespace}/` : ""}${r.name}`;

/** Which part of `mc link`'s output an object is: the controller, or the credentials and Link. */
type LinkPart = "controller" | "link";

export interface LinkObject {
  part: LinkPart;
  /** As rendered (labels and, for RBAC, rules and subjects), to verify ownership against. */
  manifest: Manifest;
}

export interface LinkObjectsOptions {
  clusterName: string;
  namespace: string;
  linkerdNamespace: string;
  /** Render the controller as run with --enable-namespace-creation (its ClusterRole grants namespaces create). */
  namespaceCreation?: boolean;
  /** Render the controller as run with --mirror-endpoint-slices (its ClusterRole grants endpointslices). */
  endpointSlices?: boolean;
}

/**
 * Everything `mc link --cluster-name <c>` can put in the source cluster (HA and a gateway on, so
 * the PodDisruptionBudget and the probe Service are included), plus the two objects its
 * controller makes there: the Lease and the probe Service's Endpoints.
 */
export function linkObjects(o: LinkObjectsOptions): LinkObject[] {
  const rendered = renderLinkBundle({
    clusterName: o.clusterName,
    namespace: o.namespace,
    linkerdNamespace: o.linkerdNamespace,
    kubeconfig: "",
    clusterDomain: "cluster.local",
    trustDomain: "cluster.local",
    gateway: { addresses: ["192.0.2.1"], port: 4143, identity: "", probe: { path: "/ready", port: 4191, periodMs: 3000 } },
    spec: noLinkSpecOptions(),
    controller: {
      image: "",
      logLevel: "info",
      logFormat: "plain",
      ha: true,
      settings: { ...(o.namespaceCreation && { enableNamespaceCreation: true }), ...(o.endpointSlices && { mirrorEndpointSlices: true }) },
    },
    version: "0",
  });
  const out: LinkObject[] = rendered.map((manifest) => ({
    part: manifest.kind === "Secret" || manifest.kind === "Link" ? "link" : "controller",
    manifest,
  }));
  const probe = rendered.find((m) => m.kind === "Service");
  if (probe) {
    out.push({
      part: "controller",
      manifest: { apiVersion: "v1", kind: "Endpoints", metadata: { ...probe.metadata, name: probeGatewayName(o.clusterName) } },
    });
  }
  // Linkerd keeps the Lease with --only-controller: a controller deployed another way takes it over.
  out.push({
    part: "link",
    manifest: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: leaseName(o.clusterName), namespace: o.namespace } },
  });
  return out;
}

export interface KindRef {
  apiVersion: string;
  kind: string;
  namespaced: boolean;
}

/**
 * Every kind `mc install` and `mc link` render (everything on: gateway, HA, remote access, the
 * local mirror, the shared controller, a link's controller), with its scope as rendered — where `mc uninstall` looks for labelled objects.
 */
export function renderedKinds(): KindRef[] {
  const install = renderInstall({
    namespace: "ns",
    linkerdNamespace: "linkerd",
    trustDomain: "cluster.local",
    gateway: { serviceType: "LoadBalancer", port: 4143, probePort: 4191, probeSeconds: 3, replicas: 3, ha: true },
    remoteAccessAccounts: ["sa"],
    localMirror: { controller: { image: "", logLevel: "info", logFormat: "plain", ha: true } },
    sharedController: { image: "", logLevel: "info", logFormat: "plain", ha: true },
    version: "0",
  });
  const link = linkObjects({ clusterName: "c", namespace: "ns", linkerdNamespace: "linkerd" }).map((o) => o.manifest);
  const kinds = new Map<string, KindRef>();
  for (const m of [...install, ...link]) {
    const k = `${m.apiVersion}|${m.kind}`;
    if (!kinds.has(k)) kinds.set(k, { apiVersion: m.apiVersion, kind: m.kind, namespaced: m.metadata.namespace !== undefined });
  }
  return [...kinds.values()];
}

/** kubectl's guess from kind to resource (UnsafeGuessKindToResource): lower case, then -s, -es or -ies. */
export function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower === "endpoints") return lower;
  if (lower.endsWith("s")) return `${lower}es`;
  if (lower.endsWith("y")) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

/** The resource type of a rendered object (shaped like src/kube's ResourceType), its scope taken from whether it has a namespace. */
export function resourceOf(m: { apiVersion: string; kind: string; namespaced: boolean }): {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
} {
  return { apiVersion: m.apiVersion, kind: m.kind, plural: pluralOf(m.kind), namespaced: m.namespaced };
}
