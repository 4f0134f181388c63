// planUnlink against one sandbox holding what `mc link` renders for two clusters: it finds each
// rendered object of one link that is really there and ours, plus that cluster's mirrors, and
// leaves same-named foreign objects and the other link alone.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { connect, type KubeClient } from "../../src/kube/index.ts";
import { describeRef, linkObjects, refOf, type ObjectRef } from "../../src/linker/owned.ts";
import { federatedVerdict, planUnlink, sortForDeletion } from "../../src/linker/unlink.ts";
import { renderLinkBundle } from "../../src/manifests/link-bundle.ts";
import { renderLinkCrd } from "../../src/manifests/crd.ts";
import * as L from "../../src/model/labels.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { applyObjects } from "../helpers/apply.ts";
import { fakeLinkerd } from "../helpers/linkerd.ts";
import { linkCases } from "../manifests/cases.ts";

let sb: Sandbox;
let client: KubeClient;
const bundle = (cluster: string) => renderLinkBundle({ ...linkCases["link-ha"]!, clusterName: cluster });
const opts = { namespace: "linkerd-multicluster", linkerdNamespace: "linkerd", onlyController: false };
const names = (refs: ObjectRef[]) => refs.map(describeRef).sort();

function mirrorOf(ns: string, svc: string, cluster: string) {
  const labels = { [L.MIRRORED_SERVICE]: "true", [L.CLUSTER_NAME]: cluster };
  return [
    { apiVersion: "v1", kind: "Service", metadata: { name: `${svc}-${cluster}`, namespace: ns, labels }, spec: { ports: [{ port: 80 }] } },
    { apiVersion: "v1", kind: "Endpoints", metadata: { name: `${svc}-${cluster}`, namespace: ns, labels }, subsets: [] },
  ];
}

beforeEach(async () => {
  sb = await startSandbox({ name: "west" });
  fakeLinkerd(sb);
  applyObjects(sb, [
    renderLinkCrd("test"),
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "linkerd-multicluster" } },
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } },
  ]);
  applyObjects(sb, [
    ...bundle("east"),
    ...bundle("north"),
    ...mirrorOf("default", "web", "east"),
    ...mirrorOf("shop", "cart", "east"),
    ...mirrorOf("default", "web", "north"),
  ]);
  const path = `${process.env.TMPDIR ?? "/tmp"}/mc-unlink-${crypto.randomUUID()}.kubeconfig`;
  await Bun.write(path, sb.kubeconfig);
  client = await connect({ kubeconfig: path, name: "west" });
});
afterEach(() => sb.stop());

describe("what unlink looks for", () => {
  test("comes from the link renderer: every object mc link renders (HA, gateway) is a candidate", () => {
    const candidates = names(linkObjects({ clusterName: "east", ...opts }).map((o) => refOf(o.manifest)));
    for (const m of bundle("east")) expect(candidates).toContain(describeRef(refOf(m)));
    expect(candidates).toContain("Lease linkerd-multicluster/service-mirror-write-east");
    expect(candidates).toContain("Endpoints linkerd-multicluster/probe-gateway-east");
  });

  test("deletes the controller first, then the Link, Endpoints before their Service, Secrets last", () => {
    const sorted = sortForDeletion(bundle("east").map(refOf)).map((r) => r.kind);
    expect(sorted[0]).toBe("Deployment");
    expect(sorted.indexOf("Link")).toBeLessThan(sorted.indexOf("Service"));
    expect(sorted.at(-1)).toBe("Secret");
  });
});

describe("planUnlink", () => {
  test("finds every object of the link that exists and every mirror of its cluster, and nothing of another link", async () => {
    const plan = await planUnlink(client, { clusterName: "east", ...opts });
    const expected = [
      ...bundle("east").map(refOf),
      ...mirrorOf("default", "web", "east").map(refOf),
      ...mirrorOf("shop", "cart", "east").map(refOf),
    ];
    expect(names(plan.objects)).toEqual(names(expected));
    expect(plan.objects.some((r) => r.name.includes("north"))).toBe(false);
    expect(plan.leftAlone).toEqual([]);
  });

  test("mirrors in slice form (--mirror-endpoint-slices): mc's slices of the cluster go, the gateway mirror's included; other slices stay", async () => {
    const slice = (ns: string, service: string, cluster: string, managedBy = L.MC_SLICE_MANAGER) => ({
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: {
        name: service,
        namespace: ns,
        labels: { [L.SLICE_SERVICE_NAME]: service, [L.SLICE_MANAGED_BY]: managedBy, [L.CLUSTER_NAME]: cluster },
      },
      addressType: "IPv4",
      endpoints: [{ addresses: ["192.0.2.10"], conditions: { ready: true } }],
      ports: [],
    });
    applyObjects(sb, [
      slice("default", "web-east", "east"),
      slice("linkerd-multicluster", "probe-gateway-east", "east"),
      slice("default", "web-north", "north"),
      { ...slice("default", "web-east-x", "east", "endpointslicemirroring-controller.k8s.io") },
    ]);
    const plan = await planUnlink(client, { clusterName: "east", ...opts });
    expect(names(plan.objects.filter((r) => r.kind === "EndpointSlice"))).toEqual([
      "EndpointSlice default/web-east",
      "EndpointSlice linkerd-multicluster/probe-gateway-east",
    ]);
    const kinds = plan.objects.map((r) => r.kind);
    expect(kinds.lastIndexOf("EndpointSlice")).toBeLessThan(kinds.indexOf("Service"));
  });

  test("with --only-controller keeps the Link, Secrets and mirrors", async () => {
    const plan = await planUnlink(client, { clusterName: "east", ...opts, onlyController: true });
    expect([...new Set(plan.objects.map((r) => r.kind))].sort()).toEqual([
      "ClusterRole",
      "ClusterRoleBinding",
      "Deployment",
      "PodDisruptionBudget",
      "Role",
      "RoleBinding",
      "Service",
      "ServiceAccount",
    ]);
    expect(plan.objects.filter((r) => r.kind === "Service").map((r) => r.name)).toEqual(["probe-gateway-east"]);
  });

  test("a same-named object without our labels, or a Secret of another type, is left alone and reported", async () => {
    applyObjects(sb, [
      {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: "linkerd-service-mirror-east", namespace: "linkerd-multicluster", labels: {} },
      },
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "cluster-credentials-east", namespace: "linkerd-multicluster" },
        type: "Opaque",
        data: {},
      },
    ]);
    const plan = await planUnlink(client, { clusterName: "east", ...opts });
    expect(names(plan.objects)).not.toContain("ServiceAccount linkerd-multicluster/linkerd-service-mirror-east");
    expect(names(plan.objects)).not.toContain("Secret linkerd-multicluster/cluster-credentials-east");
    expect(plan.leftAlone).toEqual([
      'Secret linkerd-multicluster/cluster-credentials-east has type "Opaque", not mirror.linkerd.io/remote-kubeconfig: left alone',
      "ServiceAccount linkerd-multicluster/linkerd-service-mirror-east is not labelled linkerd.io/extension=multicluster: left alone",
    ]);
  });

  test("an unknown link is a one-line error listing the Links that exist", async () => {
    await expect(planUnlink(client, { clusterName: "south", ...opts })).rejects.toThrow(
      "--cluster-name: no Link linkerd-multicluster/south; Links on west: linkerd-multicluster/east, linkerd-multicluster/north (pass one of their names, or --namespace)",
    );
  });

  test("remote-discovery mirrors go; a federated Service whose only member is the cluster goes; one with other members is kept and said so", async () => {
    const fed = (name: string, annotations: Record<string, string>) => ({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, namespace: "default", labels: { [L.MIRRORED_SERVICE]: "true" }, annotations },
      spec: { ports: [{ port: 80 }] },
    });
    const rdLabels = {
      [L.MIRRORED_SERVICE]: "true",
      [L.CLUSTER_NAME]: "east",
      [L.MC_REMOTE_DISCOVERY]: "east",
      [L.MC_REMOTE_SERVICE]: "api",
    };
    applyObjects(sb, [
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "api-east", namespace: "default", labels: rdLabels },
        spec: { ports: [{ port: 80 }] },
      },
      fed("solo-federated", { [L.MC_REMOTE_DISCOVERY]: "solo@east" }),
      fed("shared-federated", { [L.MC_REMOTE_DISCOVERY]: "shared@north,shared@east" }),
      fed("withlocal-federated", { [L.MC_REMOTE_DISCOVERY]: "withlocal@east", [L.MC_LOCAL_DISCOVERY]: "withlocal" }),
      fed("other-federated", { [L.MC_REMOTE_DISCOVERY]: "other@north" }),
    ]);
    const plan = await planUnlink(client, { clusterName: "east", ...opts });
    const services = names(plan.objects).filter((n) => n.startsWith("Service default/"));
    expect(services).toEqual(["Service default/api-east", "Service default/solo-federated", "Service default/web-east"]);
    expect(plan.membersLeft).toEqual([
      "default/shared-federated keeps its other members; their controllers drop east's once the Link is deleted",
      "default/withlocal-federated keeps its other members; their controllers drop east's once the Link is deleted",
    ]);
    const north = await planUnlink(client, { clusterName: "north", ...opts });
    expect(names(north.objects)).toContain("Service default/other-federated");
    expect(names(north.objects)).not.toContain("Service default/solo-federated");
  });
});

describe("federatedVerdict", () => {
  const svc = (name: string, annotations: Record<string, string>) => ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, annotations },
  });
  test.each<[string, Record<string, string>, string]>([
    ["web-federated", { [L.MC_REMOTE_DISCOVERY]: "web@east" }, "delete"],
    ["web-federated", { [L.MC_REMOTE_DISCOVERY]: "web@east,web@north" }, "keep"],
    ["web-federated", { [L.MC_REMOTE_DISCOVERY]: "web@east", [L.MC_LOCAL_DISCOVERY]: "web" }, "keep"],
    ["web-federated", { [L.MC_REMOTE_DISCOVERY]: "web@north" }, "none"],
    ["web-federated", { [L.MC_REMOTE_DISCOVERY]: "other@east" }, "none"],
    ["web-east", { [L.MC_REMOTE_DISCOVERY]: "web@east" }, "none"],
  ])("%s %p → %s", (name, annotations, verdict) => {
    expect(federatedVerdict(svc(name, annotations), "east")).toBe(verdict as never);
  });
});
