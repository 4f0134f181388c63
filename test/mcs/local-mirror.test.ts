// mc serve --local --cluster-name: the local mirror imports the cluster's own ServiceExports (the
// KEP wants an import in every cluster whose namespace exists, exporters included) and writes their
// conditions; without a name it leaves the MCS API alone.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectKubeconfigText, resources, type KubeClient, type KubeObject } from "../../src/kube/index.ts";
import { renderLinkCrd, renderMcsCrds } from "../../src/manifests/crd.ts";
import { mcsResources, type ServiceExportObject, type ServiceImportObject } from "../../src/mcs/api.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { serve } from "../../src/serve/serve.ts";
import { eventually, quiet } from "./conformance-kit.ts";

let sb: Sandbox;
let client: KubeClient;
beforeAll(async () => {
  sb = await startSandbox({ name: "west" });
  client = await connectKubeconfigText(sb.kubeconfig, "kubeconfig west", { name: "west" });
  for (const crd of [renderLinkCrd("mc/test"), ...renderMcsCrds("mc/test")])
    await client.create(resources.customResourceDefinition, crd as unknown as KubeObject);
  for (const ns of [DEFAULT_NAMESPACE, "shop"])
    await client.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
  await client.create(resources.service, {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web", namespace: "shop" },
    spec: { ports: [{ name: "http", port: 80, protocol: "TCP" }] },
  } as KubeObject);
  await client.create(mcsResources.serviceExport, {
    apiVersion: mcsResources.serviceExport.apiVersion,
    kind: "ServiceExport",
    metadata: { name: "web", namespace: "shop" },
  });
});
afterAll(() => sb?.stop());

const spec = (clusterName?: string) => ({
  federatedServiceSelector: [],
  excludedLabels: [],
  excludedAnnotations: [],
  ...(clusterName ? { clusterName } : {}),
});

describe("the local mirror", () => {
  test("with --cluster-name: imports the cluster's own export and marks it Valid, Ready and without conflict", async () => {
    const serving = await serve({
      local: client,
      namespace: DEFAULT_NAMESPACE,
      localMirror: spec("west"),
      adminAddr: "127.0.0.1:0",
      leaderElect: false,
      log: quiet,
    });
    try {
      const si = await eventually(async () => {
        const s = await client.get<ServiceImportObject>(mcsResources.serviceImport, "shop", "web");
        expect(s.status?.clusters).toEqual([{ cluster: "west" }]);
        return s;
      }, "west's own import");
      expect(si.spec.type).toBe("ClusterSetIP");
      await eventually(async () => {
        const se = await client.get<ServiceExportObject>(mcsResources.serviceExport, "shop", "web");
        expect(se.status?.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
          ["Valid", "True", "Valid"],
          ["Ready", "True", "Ready"],
          ["Conflict", "False", "NoConflicts"],
        ]);
      }, "the export's conditions");
    } finally {
      await serving.stop();
    }
  }, 30_000);

  test("without a name: no MCS import (a cluster does not know its ClusterSet name)", async () => {
    const serving = await serve({
      local: client,
      namespace: DEFAULT_NAMESPACE,
      localMirror: spec(),
      adminAddr: "127.0.0.1:0",
      leaderElect: false,
      log: quiet,
    });
    try {
      await eventually(async () => expect(serving.localMirror?.controller?.isSynced).toBe(true), "the local mirror to sync");
      expect(serving.localMirror?.controller?.mcs).toBeUndefined();
    } finally {
      await serving.stop();
    }
  }, 30_000);
});
