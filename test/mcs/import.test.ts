// What mc's MCS import keeps in a cluster beyond what the conformance suite asks.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectKubeconfigText, resources, type KubeObject } from "../../src/kube/index.ts";
import { mcsResources } from "../../src/mcs/api.ts";
import { McsImporter } from "../../src/mcs/importer.ts";
import { renderLinkCrd, renderMcsCrds } from "../../src/manifests/crd.ts";
import { MirrorController } from "../../src/mirror/controller.ts";
import { parseLink } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import { linkObject } from "../mirror/fixtures.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { BACKEND, realUnavailable } from "../real/backend.ts";
import { eventually, quiet, startSuite, TestDriver, TwoClusterTestDriver, type Suite } from "./conformance-kit.ts";

// What mc's MCS import keeps in a cluster beyond what the conformance suite asks: the derived
// Service (owned by the import, its ClusterIP the import's ips), the per-cluster EndpointSlices at
// the gateway (ready per liveness), status.clusters with every exporting cluster, everything gone
// with the last export, nothing created where the namespace is missing (and that reported), and an
// importer that turns itself off where the target serves no ServiceExports; a gateway-less Link's
// slices at the target's own endpoints.

const skip = realUnavailable;
const named = (name: string) => `${name} [${BACKEND}]${skip ? ` (skipped: ${skip})` : ""}`;

let suite: Suite;
beforeAll(async () => {
  if (!skip) suite = await startSuite();
}, 180_000);
afterAll(async () => {
  await suite?.stop();
}, 60_000);

type Slice = KubeObject & { endpoints: Array<{ addresses: string[]; conditions: { ready: boolean } }>; ports: Array<{ port: number }> };
type Derived = KubeObject & { spec: { clusterIP?: string; clusterIPs?: string[]; ports: Array<{ name?: string; port: number }> } };

describe.skipIf(!!skip)(named("an MCS import"), () => {
  test(named(
    "has a derived Service owned by the import whose ClusterIP is the import's ips, one mc slice per exporting cluster at its gateway, and status.clusters listing both",
  ), async () => {
    const t = new TwoClusterTestDriver(suite);
    t.reset();
    try {
      await t.setUp();
      const [c0, c1] = t.clients as [(typeof t.clients)[0], (typeof t.clients)[0]];
      for (const c of [c0, c1]) {
        const si = await t.awaitServiceImport(c, "hello", (si) =>
          expect(si.status?.clusters).toEqual(
            [{ cluster: c0.name }, { cluster: c1.name }].sort((a, b) => a.cluster.localeCompare(b.cluster)),
          ),
        );
        const derived = await c.client.get<Derived>(resources.service, t.namespace, "derived-hello");
        expect(derived.metadata.ownerReferences).toEqual([
          { apiVersion: "multicluster.x-k8s.io/v1beta1", kind: "ServiceImport", name: "hello", uid: si.metadata.uid! },
        ]);
        expect(si.spec.ips).toEqual(derived.spec.clusterIPs!);
        expect(derived.spec.ports.map((p) => [p.name, p.port])).toEqual([
          ["tcp", 42],
          ["udp", 42],
        ]);
        const slices = await eventually(async () => {
          const list = (
            await c.client.list<Slice>(resources.endpointSlice, {
              namespace: t.namespace,
              labelSelector: "multicluster.kubernetes.io/service-name=hello",
            })
          ).items;
          expect(list.map((s) => s.metadata.labels!["multicluster.kubernetes.io/source-cluster"]).sort()).toEqual(
            [c0.name, c1.name].sort(),
          );
          return list;
        }, "a slice per exporting cluster");
        for (const s of slices) {
          expect(s.metadata.labels!["kubernetes.io/service-name"]).toBe("derived-hello");
          expect(s.metadata.labels!["endpointslice.kubernetes.io/managed-by"]).toBe("mc.multicluster.linkerd.io");
        }
        // The other cluster's slice points at its gateway (the Link's address), ready: the gateway is alive.
        const other = c === c0 ? c1 : c0;
        const remote = slices.find((s) => s.metadata.labels!["multicluster.kubernetes.io/source-cluster"] === other.name)!;
        const gateway = (c === c0 ? suite.backend.west : suite.backend.east).gateway.address;
        expect(remote.endpoints).toEqual([
          { addresses: [gateway], conditions: { ready: true, serving: true, terminating: false } },
        ] as never);
        expect(remote.ports.map((p) => p.port)).toEqual([888, 888]);
      }
      // The last export gone: the import, the derived Service and the slices go, in both clusters.
      await t.deleteServiceExport(c0);
      await t.deleteServiceExport(c1);
      for (const c of [c0, c1]) {
        await t.awaitNoServiceImport(c, "hello", `the import stays on ${c.name}`);
        await eventually(async () => {
          const left = (
            await c.client.list(resources.endpointSlice, {
              namespace: t.namespace,
              labelSelector: "multicluster.kubernetes.io/service-name=hello",
            })
          ).items;
          expect(left).toEqual([]);
          let derived = true;
          await c.client.get(resources.service, t.namespace, "derived-hello").catch(() => (derived = false));
          expect(derived).toBe(false);
        }, `slices or the derived Service stay on ${c.name}`);
      }
    } finally {
      await t.tearDown();
    }
  }, 90_000);

  test(named("a gateway that stops answering makes its cluster's slice not ready, and ready again when it answers"), async () => {
    const t = new TestDriver(suite);
    t.reset();
    try {
      await t.setUp();
      const [c0, c1] = t.clients as [(typeof t.clients)[0], (typeof t.clients)[0]];
      const link = suite.importers.findIndex((i) => i.local === c1.name && i.cluster === c0.name);
      const readiness = async () => {
        const list = (
          await c1.client.list<Slice>(resources.endpointSlice, {
            namespace: t.namespace,
            labelSelector: `multicluster.kubernetes.io/source-cluster=${c0.name}`,
          })
        ).items;
        return list.map((s) => s.endpoints.map((e) => e.conditions.ready));
      };
      await eventually(async () => expect(await readiness()).toEqual([[true]]), "the slice is ready");
      suite.controllers[link]!.setAlive(false);
      await eventually(async () => expect(await readiness()).toEqual([[false]]), "the slice is not ready while the gateway is down");
      suite.controllers[link]!.setAlive(true);
      await eventually(async () => expect(await readiness()).toEqual([[true]]), "the slice is ready again");
    } finally {
      await t.tearDown();
    }
  }, 90_000);

  // The documented limit (README's MCS section, docs/decisions.md#d151): per-pod names through a gateway need per-pod endpoint mirrors, not written.
  test(named(
    "a Headless import through a gateway: its cluster's slice holds the gateway alone, without per-pod hostnames, at the gateway's port",
  ), async () => {
    const t = new TestDriver(suite);
    t.reset();
    t.helloService.spec.clusterIP = "None";
    try {
      await t.setUp();
      const [c0, c1] = t.clients as [(typeof t.clients)[0], (typeof t.clients)[0]];
      await t.awaitServiceImport(c1, "hello", (si) => expect(si.spec.type).toBe("Headless"));
      // c1's Link to c0 (east) points at east's gateway.
      const gateway = suite.backend.east.gateway.address;
      const slice = await eventually(async () => {
        const list = (
          await c1.client.list<Slice>(resources.endpointSlice, {
            namespace: t.namespace,
            labelSelector: `multicluster.kubernetes.io/source-cluster=${c0.name}`,
          })
        ).items;
        expect(list).toHaveLength(1);
        return list[0]!;
      }, "the exporting cluster's slice");
      expect(slice.endpoints).toEqual([{ addresses: [gateway], conditions: { ready: true, serving: true, terminating: false } }] as never);
      expect(slice.ports.map((p) => p.port)).toEqual([888, 888]);
    } finally {
      await t.tearDown();
    }
  }, 90_000);

  test(named("a namespace missing in the importing cluster: nothing is created there, and the importer reports it"), async () => {
    const t = new TestDriver(suite);
    t.reset();
    const [c0, c1] = t.clients as [(typeof t.clients)[0], (typeof t.clients)[0]];
    // Only clients[0] gets the namespace.
    await c0.client.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: t.namespace } });
    try {
      await t.deployHelloService(c0, t.helloService);
      await t.createServiceExport(c0, t.helloServiceExport);
      await t.awaitServiceImport(c0, "hello"); // imported where the namespace exists
      const importer = suite.importers.find((i) => i.local === c1.name && i.cluster === c0.name)!.importer;
      await eventually(
        async () =>
          expect(importer.missingNamespaces.get(`${t.namespace}/hello`)).toContain(`namespace ${t.namespace} does not exist in ${c1.name}`),
        "the missing namespace is reported",
      );
      expect((await c1.client.list(mcsResources.serviceImport, {})).items.filter((i) => i.metadata.namespace === t.namespace)).toEqual([]);
      // The namespace appears: the import follows.
      await c1.client.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: t.namespace } });
      await t.awaitServiceImport(c1, "hello");
      expect(importer.missingNamespaces.has(`${t.namespace}/hello`)).toBe(false);
    } finally {
      await t.tearDown();
    }
  }, 90_000);
});

describe("a gateway-less Link (remote discovery)", () => {
  test("imports into slices at the target's own endpoints, ready as they are ready there, with the pods' hostnames", async () => {
    const [east, west] = await Promise.all([startSandbox({ name: "east" }), startSandbox({ name: "west" })]);
    try {
      const eastClient = await connectKubeconfigText(east.kubeconfig, "kubeconfig east", { name: "east" });
      const westClient = await connectKubeconfigText(west.kubeconfig, "kubeconfig west", { name: "west" });
      for (const c of [eastClient, westClient]) {
        for (const crd of [renderLinkCrd("mc/test"), ...renderMcsCrds("mc/test")])
          await c.create(resources.customResourceDefinition, crd as unknown as KubeObject);
        for (const ns of ["shop", DEFAULT_NAMESPACE])
          await c.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
      }
      // A Service without a selector and its Endpoints as east's endpoints controller would write them.
      await eastClient.create(resources.service, {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "web", namespace: "shop" },
        spec: { ports: [{ name: "http", port: 80, protocol: "TCP" }] },
      } as KubeObject);
      await eastClient.create(resources.endpoints, {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: { name: "web", namespace: "shop" },
        subsets: [
          {
            addresses: [{ ip: "10.244.1.5", hostname: "web-0" }],
            notReadyAddresses: [{ ip: "10.244.1.6" }],
            ports: [{ name: "http", port: 8080, protocol: "TCP" }],
          },
        ],
      } as KubeObject);
      await eastClient.create(mcsResources.serviceExport, {
        apiVersion: mcsResources.serviceExport.apiVersion,
        kind: "ServiceExport",
        metadata: { name: "web", namespace: "shop" },
      });
      const link = parseLink(linkObject({ cluster: "east", gatewayAddress: "", probe: null }));
      const ctl = new MirrorController({ link, namespace: DEFAULT_NAMESPACE, local: westClient, remote: eastClient, log: quiet });
      ctl.start();
      try {
        const slice = await eventually(async () => {
          const [s] = (
            await westClient.list<Slice>(resources.endpointSlice, {
              namespace: "shop",
              labelSelector: "multicluster.kubernetes.io/source-cluster=east",
            })
          ).items;
          if (!s) throw new Error("no slice yet");
          return s;
        }, "east's slice in west");
        expect(slice.endpoints).toEqual([
          { addresses: ["10.244.1.5"], hostname: "web-0", conditions: { ready: true, serving: true, terminating: false } },
          { addresses: ["10.244.1.6"], conditions: { ready: false, serving: false, terminating: false } },
        ] as never);
        expect(slice.ports.map((p) => p.port)).toEqual([8080]);
      } finally {
        await ctl.stop();
      }
    } finally {
      await Promise.all([east.stop(), west.stop()]);
    }
  }, 60_000);
});

describe("an importer whose target serves no ServiceExports", () => {
  let east: Sandbox;
  let west: Sandbox;
  beforeAll(async () => {
    [east, west] = await Promise.all([startSandbox({ name: "east" }), startSandbox({ name: "west" })]);
  });
  afterAll(async () => {
    await Promise.all([east?.stop(), west?.stop()]);
  });

  test("is off, says why, and writes nothing", async () => {
    const eastClient = await connectKubeconfigText(east.kubeconfig, "kubeconfig east", { name: "east" });
    const westClient = await connectKubeconfigText(west.kubeconfig, "kubeconfig west", { name: "west" });
    const importer = new McsImporter({
      cluster: "east",
      remote: eastClient,
      local: westClient,
      source: { kind: "endpoints" },
      log: quiet,
    }).start();
    await importer.ready;
    expect(importer.state).toEqual({ on: false, why: "east serves no serviceexports (mc install renders the MCS CRDs)" });
    await importer.stop();
  });
});
