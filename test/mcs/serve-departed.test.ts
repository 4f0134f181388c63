// `mc serve --all` and a Link deleted without `mc unlink` when no importer is left in the process:
// serve() itself sweeps the cluster out of the MCS imports (its slices, and an import only it held
// with its derived Service), which its controller, stopped with the Link, no longer can.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { isNotFound, resources, type KubeObject } from "../../src/kube/index.ts";
import { renderMcsCrds } from "../../src/manifests/crd.ts";
import { mcsResources, type ServiceImportObject } from "../../src/mcs/api.ts";
import { linkResource } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import { serve, type Serving } from "../../src/serve/serve.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { quiet } from "../mirror/harness.ts";
import { credentialsSecret, fakeResolver, linkObject, remoteService } from "../mirror/fixtures.ts";
import { eventually } from "./conformance-kit.ts";

let pair: Pair;
let serving: Serving | undefined;
beforeEach(async () => {
  pair = await startPair();
  for (const c of [pair.eastClient, pair.westClient])
    for (const crd of renderMcsCrds("mc/test")) await c.create(resources.customResourceDefinition, crd as unknown as KubeObject);
});
afterEach(async () => {
  await serving?.stop();
  await pair.stop();
});

const absent = async (read: Promise<unknown>) => {
  try {
    await read;
    return false;
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
};

describe("mc serve --all and MCS imports", () => {
  test("the only Link deleted without mc unlink: its slice, its import and the derived Service go", async () => {
    await pair.eastClient.create(resources.service, remoteService({ name: "web", namespace: "ns1" }));
    await pair.eastClient.create(mcsResources.serviceExport, {
      apiVersion: mcsResources.serviceExport.apiVersion,
      kind: "ServiceExport",
      metadata: { name: "web", namespace: "ns1" },
    });
    await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
    await pair.westClient.create(linkResource, linkObject({ cluster: "east", probe: null, selector: { matchLabels: { none: "true" } } }));
    serving = await serve({
      local: pair.westClient,
      namespace: DEFAULT_NAMESPACE,
      all: true,
      adminAddr: "127.0.0.1:0",
      lease: { leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 100 },
      identity: "shared",
      log: quiet,
      settings: { probeDirect: true },
      controller: {
        resolver: fakeResolver({}),
        log: quiet,
        informerBackoff: { initialMs: 20, maxMs: 100 },
        queueBackoff: { initialMs: 5, maxMs: 20 },
      },
    });
    await eventually(async () => {
      const si = await pair.westClient.get<ServiceImportObject>(mcsResources.serviceImport, "ns1", "web");
      expect(si.status?.clusters).toEqual([{ cluster: "east" }]);
    }, "the import from east");
    expect(await absent(pair.westClient.get(resources.endpointSlice, "ns1", "derived-web-east"))).toBe(false);

    await pair.westClient.delete(linkResource, DEFAULT_NAMESPACE, "east");
    await eventually(async () => {
      expect(await absent(pair.westClient.get(mcsResources.serviceImport, "ns1", "web"))).toBe(true);
      expect(await absent(pair.westClient.get(resources.service, "ns1", "derived-web"))).toBe(true);
      expect(await absent(pair.westClient.get(resources.endpointSlice, "ns1", "derived-web-east"))).toBe(true);
    }, "east's import gone with its Link");
    expect(serving.all!.units.size).toBe(0);
  }, 60_000);
});
