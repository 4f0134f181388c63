// mc unlink and the MCS import: the unlinked cluster's EndpointSlice in each import is deleted; an
// import only it held goes with its derived Service, one it shares with other clusters stays (their
// controllers merge it again without it) and is named; another implementation's imports are not ours.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { connectKubeconfigText, type KubeClient } from "../../src/kube/index.ts";
import { describeRef } from "../../src/linker/owned.ts";
import { planUnlink } from "../../src/linker/unlink.ts";
import { renderLinkBundle } from "../../src/manifests/link-bundle.ts";
import { renderLinkCrd, renderMcsCrds } from "../../src/manifests/crd.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { applyObjects } from "../helpers/apply.ts";
import { fakeLinkerd } from "../helpers/linkerd.ts";
import { linkCases } from "../manifests/cases.ts";

let sb: Sandbox;
let client: KubeClient;
const opts = { namespace: "linkerd-multicluster", linkerdNamespace: "linkerd", onlyController: false };

const slice = (name: string, cluster: string) => ({
  apiVersion: "discovery.k8s.io/v1",
  kind: "EndpointSlice",
  metadata: {
    name: `derived-${name}-${cluster}`,
    namespace: "shop",
    labels: {
      "multicluster.kubernetes.io/service-name": name,
      "multicluster.kubernetes.io/source-cluster": cluster,
      "kubernetes.io/service-name": `derived-${name}`,
      "endpointslice.kubernetes.io/managed-by": "mc.multicluster.linkerd.io",
    },
  },
  addressType: "IPv4",
  endpoints: [],
});
const imported = (name: string, mine = true) => [
  {
    apiVersion: "multicluster.x-k8s.io/v1beta1",
    kind: "ServiceImport",
    metadata: { name, namespace: "shop", labels: mine ? { "mc.multicluster.linkerd.io/import": "true" } : {} },
    spec: { type: "ClusterSetIP", ports: [{ port: 80, protocol: "TCP" }] },
  },
  {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: `derived-${name}`, namespace: "shop", labels: { "multicluster.kubernetes.io/service-name": name } },
    spec: { ports: [{ port: 80 }] },
  },
];

beforeEach(async () => {
  sb = await startSandbox({ name: "west" });
  fakeLinkerd(sb);
  applyObjects(sb, [
    renderLinkCrd("test"),
    ...renderMcsCrds("test"),
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "linkerd-multicluster" } },
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } },
  ]);
  applyObjects(sb, [
    ...renderLinkBundle({ ...linkCases["link-ha"]!, clusterName: "east" }),
    ...imported("web"),
    slice("web", "east"),
    ...imported("api"),
    slice("api", "east"),
    slice("api", "north"),
    ...imported("db", false),
    slice("db", "east"),
  ]);
  client = await connectKubeconfigText(sb.kubeconfig, "kubeconfig west", { name: "west" });
});
afterEach(() => sb.stop());

describe("mc unlink and MCS imports", () => {
  test("deletes the cluster's slices, the imports only it held with their derived Service, and names the shared ones", async () => {
    const plan = await planUnlink(client, { clusterName: "east", ...opts });
    const mcs = plan.objects.map(describeRef).filter((r) => r.includes("shop/"));
    expect(mcs.sort()).toEqual(
      [
        "EndpointSlice shop/derived-web-east",
        "EndpointSlice shop/derived-api-east",
        "EndpointSlice shop/derived-db-east",
        "ServiceImport shop/web",
        "Service shop/derived-web",
        // db's import is not labelled as mc's: its slice goes, the import and its Service stay.
      ].sort(),
    );
    expect(plan.objects.find((r) => r.kind === "ServiceImport")?.apiVersion).toBe("multicluster.x-k8s.io/v1beta1");
    expect(plan.membersLeft).toContain(
      "ServiceImport shop/api keeps its other exporting clusters; their controllers merge it again without east",
    );
    // The import goes before the derived Service it owns.
    const kinds = plan.objects.map((r) => r.kind);
    expect(kinds.indexOf("ServiceImport")).toBeLessThan(kinds.lastIndexOf("Service"));
  });
});
