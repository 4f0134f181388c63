// The Multi-Cluster Services API's CRDs as `mc install` renders them (mcs-api v0.5's structure:
// v1alpha1 served, v1beta1 served and stored, status subresources, short names, printer columns),
// removed by `mc uninstall`, and served by the sandbox like any CRD (driven with the real kubectl).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { renderMcsCrds } from "../../src/manifests/crd.ts";
import { renderInstall } from "../../src/manifests/install.ts";
import { planUninstall } from "../../src/linker/uninstall.ts";
import { connectKubeconfigText, type KubeClient } from "../../src/kube/index.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { hasKubectl, kubectlFor, needsKubectl, type Kubectl } from "../helpers/kubectl.ts";

type Node = Record<string, unknown>;
type Version = Node & {
  name: string;
  served: boolean;
  storage: boolean;
  subresources: Node;
  additionalPrinterColumns: Node[];
  schema: { openAPIV3Schema: Node };
};
const [exportCrd, importCrd] = renderMcsCrds("mc/test");
const specOf = (crd: typeof exportCrd) => crd!.spec as { group: string; scope: string; names: Node; versions: Version[] };

/** Every node of a structural schema states its type. */
function untyped(node: Node, path: string): string[] {
  const here = node.type === undefined ? [path] : [];
  const props = Object.entries((node.properties ?? {}) as Record<string, Node>).flatMap(([k, child]) => untyped(child, `${path}.${k}`));
  const items = node.items ? untyped(node.items as Node, `${path}[]`) : [];
  const extra = typeof node.additionalProperties === "object" ? untyped(node.additionalProperties as Node, `${path}{}`) : [];
  return [...here, ...props, ...items, ...extra];
}

describe("the MCS API's CRDs", () => {
  test("ServiceExport: group, names, short names, v1alpha1 served and v1beta1 stored, status subresource, the Age column", () => {
    const s = specOf(exportCrd);
    expect(exportCrd!.metadata.name).toBe("serviceexports.multicluster.x-k8s.io");
    expect([s.group, s.scope]).toEqual(["multicluster.x-k8s.io", "Namespaced"]);
    expect(s.names).toEqual({
      categories: ["multicluster"],
      plural: "serviceexports",
      singular: "serviceexport",
      kind: "ServiceExport",
      shortNames: ["svcex", "svcexport"],
    });
    expect(s.versions.map((v) => [v.name, v.served, v.storage])).toEqual([
      ["v1alpha1", true, false],
      ["v1beta1", true, true],
    ]);
    for (const v of s.versions) {
      expect(v.subresources).toEqual({ status: {} });
      expect(v.additionalPrinterColumns.map((c) => [c.name, c.jsonPath])).toEqual([["Age", ".metadata.creationTimestamp"]]);
      expect(untyped(v.schema.openAPIV3Schema, "")).toEqual([]);
      const props = v.schema.openAPIV3Schema.properties as Record<string, Node & { properties: Record<string, Node> }>;
      expect(Object.keys(props.spec!.properties)).toEqual(["exportedAnnotations", "exportedLabels"]);
      expect(Object.keys(props.status!.properties)).toEqual(["clusters", "conditions"]);
    }
  });

  test("ServiceImport: names, short names, both versions, status subresource, Type/IP/Age columns, the v0.5 spec fields", () => {
    const s = specOf(importCrd);
    expect(importCrd!.metadata.name).toBe("serviceimports.multicluster.x-k8s.io");
    expect(s.names).toEqual({
      categories: ["multicluster"],
      plural: "serviceimports",
      singular: "serviceimport",
      kind: "ServiceImport",
      shortNames: ["svcim", "svcimport"],
    });
    expect(s.versions.map((v) => [v.name, v.served, v.storage])).toEqual([
      ["v1alpha1", true, false],
      ["v1beta1", true, true],
    ]);
    for (const v of s.versions) {
      expect(v.subresources).toEqual({ status: {} });
      expect(v.additionalPrinterColumns.map((c) => [c.name, c.jsonPath])).toEqual([
        ["Type", ".spec.type"],
        ["IP", ".spec.ips"],
        ["Age", ".metadata.creationTimestamp"],
      ]);
      expect(untyped(v.schema.openAPIV3Schema, "")).toEqual([]);
      const spec = (v.schema.openAPIV3Schema.properties as Record<string, Node & { properties: Record<string, Node>; required: string[] }>)
        .spec!;
      expect(spec.required).toEqual(["ports", "type"]);
      expect(Object.keys(spec.properties).sort()).toEqual(
        [
          "internalTrafficPolicy",
          "ipFamilies",
          "ips",
          "ports",
          "sessionAffinity",
          "sessionAffinityConfig",
          "trafficDistribution",
          "type",
        ].sort(),
      );
      expect(spec.properties.type!.enum).toEqual(["ClusterSetIP", "Headless"]);
    }
  });

  test("mc install renders them by default, labelled as mc's; --mcs=false leaves them out", () => {
    const base = {
      namespace: "linkerd-multicluster",
      linkerdNamespace: "linkerd",
      trustDomain: "cluster.local",
      gateway: null,
      remoteAccessAccounts: [],
      version: "0.0.0",
    };
    const names = (mcs?: boolean) =>
      renderInstall({ ...base, mcs })
        .filter((m) => m.kind === "CustomResourceDefinition")
        .map((m) => m.metadata.name);
    expect(names()).toEqual([
      "links.multicluster.linkerd.io",
      "serviceexports.multicluster.x-k8s.io",
      "serviceimports.multicluster.x-k8s.io",
    ]);
    expect(names(false)).toEqual(["links.multicluster.linkerd.io"]);
    expect(exportCrd!.metadata.labels).toEqual({ "linkerd.io/extension": "multicluster" });
  });
});

describe("the MCS API's CRDs on a sandbox", () => {
  let sb: Sandbox;
  let kubectl: Kubectl;
  let client: KubeClient;
  beforeAll(async () => {
    sb = await startSandbox({ name: "west" });
    kubectl = kubectlFor(sb.kubeconfig);
    client = await connectKubeconfigText(sb.kubeconfig, "sandbox west", { name: "west" });
  });
  afterAll(() => sb?.stop());

  const ok = async (args: string[], stdin?: string): Promise<string> => {
    const r = await kubectl(args, stdin === undefined ? {} : { stdin });
    if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} → ${r.code}: ${r.stderr}`);
    return r.stdout;
  };

  test.skipIf(!hasKubectl)(
    needsKubectl(
      "are served like any CRD: both versions, short names, the status subresource, the printer columns; mc uninstall lists them",
    ),
    async () => {
      await ok(
        ["apply", "-f", "-"],
        renderMcsCrds("mc/test")
          .map((m) => JSON.stringify(m))
          .join("\n"),
      );
      await ok(["create", "namespace", "shop"]);
      await ok(
        ["apply", "-f", "-"],
        JSON.stringify({
          apiVersion: "multicluster.x-k8s.io/v1alpha1",
          kind: "ServiceExport",
          metadata: { name: "web", namespace: "shop" },
          spec: { exportedLabels: { tier: "front" } },
        }),
      );
      // Written as v1alpha1, read as v1beta1 (the stored version) through its short name.
      const read = JSON.parse(await ok(["get", "serviceexports.v1beta1.multicluster.x-k8s.io", "web", "-n", "shop", "-o", "json"]));
      expect(read.apiVersion).toBe("multicluster.x-k8s.io/v1beta1");
      expect(read.spec).toEqual({ exportedLabels: { tier: "front" } });
      expect(await ok(["get", "svcex", "-n", "shop", "-o", "name"])).toBe("serviceexport.multicluster.x-k8s.io/web\n");
      // The status subresource: a status written through the main resource is dropped, through /status kept.
      const condition = { type: "Valid", status: "True", reason: "Valid", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" };
      await ok([
        "patch",
        "svcexport",
        "web",
        "-n",
        "shop",
        "--type",
        "merge",
        "-p",
        JSON.stringify({ status: { conditions: [condition] } }),
      ]);
      expect(JSON.parse(await ok(["get", "svcex", "web", "-n", "shop", "-o", "json"])).status).toBeUndefined();
      await ok([
        "patch",
        "svcex",
        "web",
        "-n",
        "shop",
        "--subresource",
        "status",
        "--type",
        "merge",
        "-p",
        JSON.stringify({ status: { conditions: [condition] } }),
      ]);
      expect(JSON.parse(await ok(["get", "svcex", "web", "-n", "shop", "-o", "json"])).status.conditions[0].reason).toBe("Valid");
      // The schema holds: an unknown import type is refused, naming the field.
      const bad = await kubectl(["apply", "-f", "-"], {
        stdin: JSON.stringify({
          apiVersion: "multicluster.x-k8s.io/v1beta1",
          kind: "ServiceImport",
          metadata: { name: "web", namespace: "shop" },
          spec: { type: "ClusterIP", ports: [] },
        }),
      });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("spec.type");
      await ok(
        ["apply", "-f", "-"],
        JSON.stringify({
          apiVersion: "multicluster.x-k8s.io/v1beta1",
          kind: "ServiceImport",
          metadata: { name: "web", namespace: "shop" },
          spec: { type: "ClusterSetIP", ips: ["10.96.0.9"], ports: [{ port: 80, protocol: "TCP" }] },
        }),
      );
      const table = await ok(["get", "svcim", "-n", "shop"]);
      expect(table.split("\n")[0]).toMatch(/^NAME\s+TYPE\s+IP\s+AGE$/);
      expect(table).toContain('ClusterSetIP   ["10.96.0.9"]');
      // mc uninstall finds them by mc's label, after the namespaced objects.
      const plan = (await planUninstall(client)).map((r) => `${r.kind} ${r.name}`);
      expect(plan).toContain("CustomResourceDefinition serviceexports.multicluster.x-k8s.io");
      expect(plan).toContain("CustomResourceDefinition serviceimports.multicluster.x-k8s.io");
    },
  );
});
