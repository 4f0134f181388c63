// A Link deleted without `mc unlink`: its cluster leaves every MCS import of the source. The
// importers left (another Link's, the local mirror's) delete its EndpointSlices and merge each
// import again without it; an import it alone held goes with its derived Service. Two-backend kit.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isNotFound, resources, type KubeObject } from "../../src/kube/index.ts";
import { mcsResources, type ServiceImportObject } from "../../src/mcs/api.ts";
import { linkResource } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import {
  eventually,
  helloServiceName,
  newHelloService,
  newHelloServiceExport,
  startSuite,
  TwoClusterTestDriver,
  type Suite,
} from "./conformance-kit.ts";

let suite: Suite;
beforeAll(async () => {
  suite = await startSuite();
}, 120_000);
afterAll(() => suite?.stop());

const absent = async (read: Promise<unknown>) => {
  try {
    await read;
    return false;
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
};

describe("MCS import and a Link deleted without mc unlink", () => {
  test("the deleted Link's cluster leaves each import: its slices go, a shared import keeps the others, one it alone held goes with its derived Service", async () => {
    const t = new TwoClusterTestDriver(suite);
    t.reset();
    await t.setUp();
    const [east, west] = t.clients as [(typeof t.clients)[0], (typeof t.clients)[0]];
    const ns = t.namespace;
    // "solo" is exported by east only.
    const solo = { ...newHelloService(), metadata: { name: "solo" } };
    await east.client.create(resources.service, { ...solo, metadata: { name: "solo", namespace: ns } } as unknown as KubeObject);
    await east.client.create(mcsResources.serviceExport, { ...newHelloServiceExport(), metadata: { name: "solo", namespace: ns } });
    await t.awaitServiceImport(west, helloServiceName, (si) =>
      expect(si.status?.clusters?.map((c) => c.cluster)).toEqual([east.name, west.name].sort()),
    );
    await t.awaitServiceImport(west, "solo", (si) => expect(si.status?.clusters).toEqual([{ cluster: east.name }]));
    expect(await absent(west.client.get(resources.service, ns, "derived-solo"))).toBe(false);

    // west's Link to east is deleted (its controller stops, as its supervisor stops it) — no mc unlink.
    const i = suite.importers.findIndex((x) => x.local === west.name && x.cluster === east.name);
    await suite.controllers[i]!.stop();
    await west.client.delete(linkResource, DEFAULT_NAMESPACE, east.name);

    // The shared import: east's slice gone, status.clusters [west] (the local mirror merged it again).
    await eventually(async () => {
      const si = await west.client.get<ServiceImportObject>(mcsResources.serviceImport, ns, helloServiceName);
      expect(si.status?.clusters).toEqual([{ cluster: west.name }]);
      expect(await absent(west.client.get(resources.endpointSlice, ns, `derived-${helloServiceName}-${east.name}`))).toBe(true);
    }, "the shared import without the deleted Link's cluster");
    expect(await absent(west.client.get(resources.endpointSlice, ns, `derived-${helloServiceName}-${west.name}`))).toBe(false);
    // The import east alone held: gone, with its derived Service and slice.
    await eventually(async () => {
      expect(await absent(west.client.get(mcsResources.serviceImport, ns, "solo"))).toBe(true);
      expect(await absent(west.client.get(resources.service, ns, "derived-solo"))).toBe(true);
      expect(await absent(west.client.get(resources.endpointSlice, ns, `derived-solo-${east.name}`))).toBe(true);
    }, "the import only the deleted Link's cluster held");
    // east's own side is untouched: its import of hello still lists both clusters.
    const eastImport = await east.client.get<ServiceImportObject>(mcsResources.serviceImport, ns, helloServiceName);
    expect(eastImport.status?.clusters?.map((c) => c.cluster)).toEqual([east.name, west.name].sort());
    await t.tearDown();
  }, 90_000);
});
