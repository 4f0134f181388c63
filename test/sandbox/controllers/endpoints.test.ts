// The endpoints and EndpointSlice controllers' pure parts (Service + Pods → subsets, slices), and
// that the sandbox's controller writes are not counted as client requests.
import { describe, expect, test } from "bun:test";
import { desiredSubsets } from "../../../src/sandbox/controllers/endpoints.ts";
import { desiredSlices } from "../../../src/sandbox/controllers/endpointslices.ts";
import { startedStatus, readinessStatus } from "../../../src/sandbox/controllers/kubelet.ts";
import { startSandbox } from "../../../src/sandbox/index.ts";
import type { KubeObject } from "../../../src/sandbox/types.ts";

const svc = (spec: Record<string, unknown>, name = "web"): KubeObject => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name, namespace: "t", uid: "svc-uid", labels: { app: name } },
  spec: { selector: { app: name }, ...spec },
});
function pod(
  name: string,
  ip: string,
  o: {
    ready?: boolean;
    ports?: Array<{ name: string; containerPort: number; protocol?: string }>;
    hostname?: string;
    subdomain?: string;
    phase?: string;
  } = {},
): KubeObject {
  const p: KubeObject = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "t", uid: `${name}-uid`, labels: { app: "web" } },
    spec: {
      nodeName: "n1",
      containers: [{ name: "c", image: "i", ports: o.ports ?? [] }],
      ...(o.hostname && { hostname: o.hostname }),
      ...(o.subdomain && { subdomain: o.subdomain }),
    },
  };
  p.status = startedStatus(p, ip);
  if (o.ready === false) p.status = readinessStatus(p, false);
  if (o.phase) (p.status as Record<string, unknown>).phase = o.phase;
  return p;
}
const ref = (name: string) => ({ kind: "Pod", namespace: "t", name, uid: `${name}-uid` });

describe("Service + Pods → Endpoints subsets (kube's syncService)", () => {
  test("ready Pods are addresses, not-ready ones notReadyAddresses, finished ones left out; ports keep their names", () => {
    const subsets = desiredSubsets(svc({ ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }] }), [
      pod("b", "10.244.0.3"),
      pod("a", "10.244.0.2"),
      pod("c", "10.244.0.4", { ready: false }),
      pod("d", "10.244.0.5", { phase: "Succeeded" }),
    ]);
    expect(subsets).toEqual([
      {
        addresses: [
          { ip: "10.244.0.2", nodeName: "n1", targetRef: ref("a") },
          { ip: "10.244.0.3", nodeName: "n1", targetRef: ref("b") },
        ],
        notReadyAddresses: [{ ip: "10.244.0.4", nodeName: "n1", targetRef: ref("c") }],
        ports: [{ name: "http", port: 8080, protocol: "TCP" }],
      },
    ]);
  });

  test("a named targetPort resolves per Pod; a Pod without it is left out of that port only (subsets group ports by their address sets)", () => {
    const service = svc({
      ports: [
        { name: "http", port: 80, targetPort: "web", protocol: "TCP" },
        { name: "admin", port: 9990, targetPort: 9990, protocol: "TCP" },
      ],
    });
    const subsets = desiredSubsets(service, [
      pod("a", "10.244.0.2", { ports: [{ name: "web", containerPort: 8080 }] }),
      pod("b", "10.244.0.3", { ports: [{ name: "other", containerPort: 7070 }] }),
    ]);
    expect(subsets.map((s) => [s.addresses!.map((a) => a.ip), s.ports])).toEqual([
      [["10.244.0.2"], [{ name: "http", port: 8080, protocol: "TCP" }]],
      [["10.244.0.2", "10.244.0.3"], [{ name: "admin", port: 9990, protocol: "TCP" }]],
    ]);
  });

  test("publishNotReadyAddresses lists every Pod as ready; hostnames only for Pods whose subdomain is the Service", () => {
    const service = svc({ clusterIP: "None", publishNotReadyAddresses: true, ports: [{ port: 5432, protocol: "TCP", targetPort: 5432 }] });
    const subsets = desiredSubsets(service, [
      pod("a", "10.244.0.2", { ready: false, hostname: "a", subdomain: "web" }),
      pod("b", "10.244.0.3", { hostname: "b", subdomain: "elsewhere" }),
    ]);
    expect(subsets).toEqual([
      {
        addresses: [
          { ip: "10.244.0.2", hostname: "a", nodeName: "n1", targetRef: ref("a") },
          { ip: "10.244.0.3", nodeName: "n1", targetRef: ref("b") },
        ],
        ports: [{ port: 5432, protocol: "TCP" }],
      },
    ]);
  });

  test("a headless Service without ports still lists its Pods, with no ports", () => {
    expect(desiredSubsets(svc({ clusterIP: "None" }), [pod("a", "10.244.0.2")])).toEqual([
      { addresses: [{ ip: "10.244.0.2", nodeName: "n1", targetRef: ref("a") }] },
    ]);
    expect(desiredSubsets(svc({}), [pod("a", "10.244.0.2")])).toEqual([]);
  });
});

describe("Service + Pods → EndpointSlices", () => {
  test("one endpoint per Pod with ready/serving conditions, grouped by resolved ports, 100 per slice", () => {
    const service = svc({ ports: [{ name: "http", port: 80, targetPort: "web", protocol: "TCP" }] });
    const pods = Array.from({ length: 150 }, (_, i) =>
      pod(`p${String(i).padStart(3, "0")}`, `10.244.1.${i}`, {
        ports: [{ name: "web", containerPort: i < 120 ? 8080 : 9090 }],
        ready: i !== 0,
      }),
    );
    const slices = desiredSlices(service, pods);
    expect(slices.map((s) => [s.ports, s.endpoints.length])).toEqual([
      [[{ name: "http", port: 8080, protocol: "TCP" }], 100],
      [[{ name: "http", port: 8080, protocol: "TCP" }], 20],
      [[{ name: "http", port: 9090, protocol: "TCP" }], 30],
    ]);
    expect(slices[0]!.endpoints[0]).toEqual({
      addresses: ["10.244.1.0"],
      conditions: { ready: false, serving: false, terminating: false },
      nodeName: "n1",
      targetRef: ref("p000"),
    });
  });

  test("no Pods: one placeholder slice", () => {
    expect(desiredSlices(svc({ ports: [{ port: 80, protocol: "TCP", targetPort: 80 }] }), [])).toEqual([
      { addressType: "IPv4", ports: [], endpoints: [] },
    ]);
  });
});

describe("controller writes are not client requests", () => {
  test("a Deployment's ReplicaSet, Pods, status and its Service's Endpoints and slices count nothing in store.writes", async () => {
    const sb = await startSandbox({ name: "counting" });
    try {
      const type = (group: string, plural: string) => sb.api.registry.find(group, "v1", plural)!;
      const write = { fieldManager: "test" };
      sb.api.create(type("", "namespaces"), undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: "t" } }, write);
      const before = { ...sb.store.writes };
      sb.api.create(type("", "services"), "t", svc({ ports: [{ port: 80 }] }), write);
      const template = { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "i" }] } };
      sb.api.create(
        type("apps", "deployments"),
        "t",
        {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: "web", namespace: "t" },
          spec: { replicas: 3, selector: { matchLabels: { app: "web" } }, template },
        },
        write,
      );
      expect(sb.store.list(type("", "pods"), { namespace: "t" })).toHaveLength(3);
      expect((sb.store.get(type("", "endpoints"), "t", "web")!.subsets as unknown[]).length).toBe(1);
      expect(sb.store.writes).toEqual({ ...before, create: before.create + 2 });
    } finally {
      await sb.stop();
    }
  });
});
