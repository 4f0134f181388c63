// The Link CRD: Linkerd's names and versions, structural schemas, CRD defaults, and what mc adds
// (status subresource on every version, status.gateway, printer columns).
import { describe, expect, test } from "bun:test";
import { linkSchema, renderLinkCrd } from "../../src/manifests/crd.ts";

type Node = Record<string, unknown>;
const crd = renderLinkCrd("mc/cli test");
const spec = crd.spec as {
  group: string;
  scope: string;
  names: Node;
  versions: Array<Node & { name: string; served: boolean; storage: boolean }>;
};

/** Every node of a structural schema states its type (or keeps unknown fields on purpose). */
function untyped(node: Node, path: string): string[] {
  const here = node.type === undefined && node["x-kubernetes-preserve-unknown-fields"] !== true ? [path] : [];
  const props = Object.entries((node.properties ?? {}) as Record<string, Node>).flatMap(([k, child]) => untyped(child, `${path}.${k}`));
  const items = node.items ? untyped(node.items as Node, `${path}[]`) : [];
  return [...here, ...props, ...items];
}

describe("the Link CRD", () => {
  test("uses Linkerd's group, names and scope, with v1alpha3 as the only storage version", () => {
    expect(crd.metadata.name).toBe("links.multicluster.linkerd.io");
    expect(crd.metadata.labels).toEqual({ "linkerd.io/extension": "multicluster" });
    expect(crd.metadata.annotations).toEqual({ "linkerd.io/created-by": "mc/cli test" });
    expect([spec.group, spec.scope, spec.names]).toEqual([
      "multicluster.linkerd.io",
      "Namespaced",
      { plural: "links", singular: "link", kind: "Link", listKind: "LinkList" },
    ]);
    expect(spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([
      ["v1alpha1", true, false],
      ["v1alpha2", true, false],
      ["v1alpha3", true, true],
    ]);
  });

  test.each(["v1alpha1", "v1alpha2", "v1alpha3"] as const)("%s is structural, has a status subresource and the printer columns", (name) => {
    const version = spec.versions.find((v) => v.name === name)!;
    expect(untyped(linkSchema(name), "")).toEqual([]);
    expect(version.subresources).toEqual({ status: {} });
    expect((version.additionalPrinterColumns as Node[]).map((c) => [c.name, c.jsonPath])).toEqual([
      ["Cluster", ".spec.targetClusterName"],
      ["Alive", ".status.gateway.alive"],
      ["Latency", ".status.gateway.latency.p50"],
      ["Age", ".metadata.creationTimestamp"],
    ]);
  });

  test.each(["v1alpha1", "v1alpha2", "v1alpha3"] as const)('%s defaults the probe timeout to 30s and failureThreshold to "3"', (name) => {
    const probe = ((linkSchema(name).properties as Node).spec as { properties: { probeSpec: { properties: Record<string, Node> } } })
      .properties.probeSpec.properties;
    expect([probe.timeout!.default, probe.failureThreshold!.default]).toEqual(["30s", "3"]);
  });

  test("fields arrive with the versions that introduced them", () => {
    const fields = (name: "v1alpha1" | "v1alpha2" | "v1alpha3") =>
      Object.keys(((linkSchema(name).properties as Node).spec as { properties: Node }).properties).sort();
    expect(fields("v1alpha2").filter((f) => !fields("v1alpha1").includes(f))).toEqual(["federatedServiceSelector"]);
    expect(fields("v1alpha3").filter((f) => !fields("v1alpha2").includes(f))).toEqual(["excludedAnnotations", "excludedLabels"]);
  });

  test("status.gateway holds alive, latency percentiles, probe time, failures and transition time", () => {
    const gateway = ((linkSchema("v1alpha3").properties as Node).status as { properties: { gateway: { properties: Node } } }).properties
      .gateway.properties;
    expect(Object.keys(gateway)).toEqual(["alive", "latency", "lastProbeTime", "consecutiveFailures", "lastTransitionTime"]);
    expect(Object.keys((gateway.latency as { properties: Node }).properties)).toEqual(["p50", "p95", "p99"]);
  });

  test("every call returns an unshared copy", () => {
    const a = renderLinkCrd("x");
    a.metadata.name = "changed";
    expect(renderLinkCrd("x").metadata.name).toBe("links.multicluster.linkerd.io");
  });
});
