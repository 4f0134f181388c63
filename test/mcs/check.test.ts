// mc check's Multi-Cluster Services checks: an import mc keeps with no EndpointSlice warns (and
// passes once a cluster's slice exists), an export that is not valid or in conflict warns with its
// condition's words, and a cluster that does not serve the MCS API passes both.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mcsExports, mcsImports } from "../../src/checker/checks/mcs.ts";
import { createCheckContext } from "../../src/checker/context.ts";
import { runChecks } from "../../src/checker/runner.ts";
import { connectKubeconfigText, resources, type KubeClient, type KubeObject } from "../../src/kube/index.ts";
import { renderMcsCrds } from "../../src/manifests/crd.ts";
import { mcsResources } from "../../src/mcs/api.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";

let sb: Sandbox;
let client: KubeClient;
beforeAll(async () => {
  sb = await startSandbox({ name: "west" });
  client = await connectKubeconfigText(sb.kubeconfig, "kubeconfig west", { name: "west" });
});
afterAll(() => sb?.stop());

const check = async () => {
  const report = await runChecks([mcsImports, mcsExports], createCheckContext({ local: client, linkerdNamespace: "linkerd" }));
  return report.results.map((r) => ({ id: r.id, status: r.status, message: r.message, details: r.details }));
};

describe("mc check's MCS checks", () => {
  test("pass where the MCS API is not served", async () => {
    expect((await check()).map((r) => [r.id, r.status, r.message])).toEqual([
      ["mcs-imports", "success", "the Multi-Cluster Services API is not served here"],
      ["mcs-exports", "success", "the Multi-Cluster Services API is not served here"],
    ]);
  });

  test("warn on an import without slices and on an export in conflict or not valid, naming them", async () => {
    for (const crd of renderMcsCrds("mc/test")) await client.create(resources.customResourceDefinition, crd as unknown as KubeObject);
    await client.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } });
    await client.create(mcsResources.serviceImport, {
      apiVersion: mcsResources.serviceImport.apiVersion,
      kind: "ServiceImport",
      metadata: { name: "web", namespace: "shop", labels: { "mc.multicluster.linkerd.io/import": "true" } },
      spec: { type: "ClusterSetIP", ports: [{ port: 80, protocol: "TCP" }] },
    });
    for (const name of ["web", "db"])
      await client.create(mcsResources.serviceExport, {
        apiVersion: mcsResources.serviceExport.apiVersion,
        kind: "ServiceExport",
        metadata: { name, namespace: "shop" },
      });
    const at = "2026-01-01T00:00:00Z";
    await client.patch(
      mcsResources.serviceExport,
      "shop",
      "web",
      {
        status: {
          conditions: [
            { type: "Valid", status: "True", reason: "Valid", message: "", lastTransitionTime: at },
            {
              type: "Conflict",
              status: "True",
              reason: "PortConflict",
              message: '1/2 clusters disagree, using ports http:80/TCP from the oldest export in cluster "east"',
              lastTransitionTime: at,
            },
          ],
        },
      },
      { type: "merge", subresource: "status" },
    );
    await client.patch(
      mcsResources.serviceExport,
      "shop",
      "db",
      {
        status: {
          conditions: [
            { type: "Valid", status: "False", reason: "NoService", message: "Service shop/db not found", lastTransitionTime: at },
          ],
        },
      },
      { type: "merge", subresource: "status" },
    );
    expect(await check()).toEqual([
      { id: "mcs-imports", status: "warning", message: "1 of 1 ServiceImports has no EndpointSlice: shop/web", details: [] },
      {
        id: "mcs-exports",
        status: "warning",
        message: "ServiceExports with problems:",
        details: [
          "shop/db: not valid (NoService): Service shop/db not found",
          'shop/web: in conflict (PortConflict): 1/2 clusters disagree, using ports http:80/TCP from the oldest export in cluster "east"',
        ],
      },
    ]);
    await client.create(resources.endpointSlice, {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: {
        name: "derived-web-east",
        namespace: "shop",
        labels: {
          "multicluster.kubernetes.io/service-name": "web",
          "multicluster.kubernetes.io/source-cluster": "east",
          "endpointslice.kubernetes.io/managed-by": "mc.multicluster.linkerd.io",
        },
      },
      addressType: "IPv4",
      endpoints: [],
    } as KubeObject);
    expect((await check())[0]).toEqual({
      id: "mcs-imports",
      status: "success",
      message: "1 ServiceImport from 1 cluster checked",
      details: [],
    });
  });

  test("warn on slices from a cluster whose Link is gone; the cluster's own (its import exported here) are not", async () => {
    const slice = (name: string, cluster: string) =>
      ({
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: {
          name: `derived-${name}-${cluster}`,
          namespace: "shop",
          labels: {
            "multicluster.kubernetes.io/service-name": name,
            "multicluster.kubernetes.io/source-cluster": cluster,
            "endpointslice.kubernetes.io/managed-by": "mc.multicluster.linkerd.io",
          },
        },
        addressType: "IPv4",
        endpoints: [],
      }) as KubeObject;
    await client.create(mcsResources.serviceImport, {
      apiVersion: mcsResources.serviceImport.apiVersion,
      kind: "ServiceImport",
      metadata: { name: "api", namespace: "shop", labels: { "mc.multicluster.linkerd.io/import": "true" } },
      spec: { type: "ClusterSetIP", ports: [{ port: 80, protocol: "TCP" }] },
    });
    // west's own slice of web (its local mirror's), north's of api: neither has a Link.
    await client.create(resources.endpointSlice, slice("web", "west"));
    await client.create(resources.endpointSlice, slice("api", "north"));
    const ctx = createCheckContext({ local: client, linkerdNamespace: "linkerd" });
    ctx.links = [{ targetClusterName: "east" } as (typeof ctx.links)[number]];
    const run = async () => (await runChecks([mcsImports], ctx)).results[0];
    // web is exported here (the earlier test's ServiceExport): west's slice is this cluster's own.
    expect(await run()).toMatchObject({
      id: "mcs-imports",
      status: "warning",
      message: "ServiceImports with EndpointSlices from clusters without a Link:",
      details: ['cluster "north" has no Link: shop/api'],
    });
    await client.delete(mcsResources.serviceExport, "shop", "web");
    expect(await run()).toMatchObject({
      status: "warning",
      details: ['cluster "north" has no Link: shop/api', 'cluster "west" has no Link: shop/web'],
    });
    for (const name of ["derived-api-north", "derived-web-west"]) await client.delete(resources.endpointSlice, "shop", name);
    await client.create(resources.endpointSlice, slice("api", "east"));
    expect(await run()).toMatchObject({ id: "mcs-imports", status: "success", message: "2 ServiceImports from 1 cluster checked" });
  });
});
