// Makes a sandbox look like a cluster that runs Linkerd's control plane: namespace `linkerd`, the `linkerd-config` ConfigMap (Helm values
// under data.values, as Linkerd writes it), and minimal policy.linkerd.io CRDs (k8s/sandbox/linkerd-policy-crds.yaml). In-process, through
// the sandbox's API. Calling it again updates linkerd-config. For tests and `mc demo`.
import YAML from "yaml";
import policyCrds from "../../k8s/sandbox/linkerd-policy-crds.yaml" with { type: "text" };
import { applyObjects } from "./apply.ts";
import type { Sandbox } from "../sandbox/index.ts";

export interface FakeLinkerdOptions {
  trustDomain?: string;
  clusterDomain?: string;
  /** PEM of the identity trust anchors. */
  anchors?: string;
  linkerdNamespace?: string;
  /** Leave out linkerd-config (to test what happens without it). */
  withoutConfig?: boolean;
}

export const FAKE_ANCHORS = "-----BEGIN CERTIFICATE-----\nMIIBfake-trust-anchor-for-tests\n-----END CERTIFICATE-----\n";

/** What fakeLinkerd creates, as manifests (for a real test cluster, applied with kubectl): the CRDs, the namespace, linkerd-config. */
export function fakeLinkerdObjects(
  o: FakeLinkerdOptions = {},
): { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }[] {
  const ns = o.linkerdNamespace ?? "linkerd";
  const crds = YAML.parseAllDocuments(policyCrds as string).map((d) => d.toJS());
  const namespace = { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } };
  return o.withoutConfig ? [...crds, namespace] : [...crds, namespace, linkerdConfig(ns, o)];
}

function linkerdConfig(ns: string, o: FakeLinkerdOptions) {
  const values = {
    clusterDomain: o.clusterDomain ?? "cluster.local",
    identityTrustDomain: o.trustDomain ?? "cluster.local",
    identityTrustAnchorsPEM: o.anchors ?? FAKE_ANCHORS,
    linkerdVersion: "edge-26.8.1",
  };
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "linkerd-config", namespace: ns, labels: { "linkerd.io/control-plane-component": "controller" } },
    data: { values: YAML.stringify(values) },
  };
}

export function fakeLinkerd(sb: Pick<Sandbox, "api" | "store">, o: FakeLinkerdOptions = {}): void {
  const ns = o.linkerdNamespace ?? "linkerd";
  const write = { fieldManager: "fake-linkerd" };
  const type = (group: string, version: string, plural: string) => {
    const t = sb.api.registry.find(group, version, plural);
    if (!t) throw new Error(`sandbox serves no ${group}/${version} ${plural}`);
    return t;
  };
  const crds = type("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  for (const crd of YAML.parseAllDocuments(policyCrds as string).map((d) => d.toJS())) {
    if (!sb.store.get(crds, undefined, crd.metadata.name)) sb.api.create(crds, undefined, crd, write);
  }
  const namespaces = type("", "v1", "namespaces");
  if (!sb.store.get(namespaces, undefined, ns))
    sb.api.create(namespaces, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }, write);
  if (o.withoutConfig) return;
  applyObjects(sb, [linkerdConfig(ns, o)], "fake-linkerd");
}
