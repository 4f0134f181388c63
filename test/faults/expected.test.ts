// The fault suite's judge (expected.ts) finds what it must: a missing mirror, an extra one, a
// wrong port, a stale label, Endpoints not pointing at the gateway, and a write to a Service mc
// does not own — so the suite cannot pass by checking nothing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { applyObjects } from "../../src/demo/apply.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { CLUSTER, diffMirrors, EXPORTED, expectedLabels, isClean, MIRRORED, ownershipMonitor } from "./expected.ts";

let east: Sandbox;
let west: Sandbox;
beforeAll(async () => {
  [east, west] = await Promise.all([startSandbox({ name: "east" }), startSandbox({ name: "west" })]);
});
afterAll(async () => {
  await Promise.all([east?.stop(), west?.stop()]);
});

const own = { [MIRRORED]: "true", [CLUSTER]: "east" };
const target = (name: string, ports: { name: string; port: number }[], labels: Record<string, string> = {}) => [
  {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "default", labels: { [EXPORTED]: "true", ...labels } },
    spec: { ports },
  },
  { apiVersion: "v1", kind: "Endpoints", metadata: { name, namespace: "default" }, subsets: [{ addresses: [{ ip: "10.0.0.1" }], ports }] },
];
const mirror = (
  name: string,
  ports: { name: string; port: number }[],
  labels: Record<string, string>,
  gatewayPorts = ports.map((p) => ({ name: p.name, port: 4143 })),
) => [
  {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "default", labels },
    spec: { ports: ports.map((p) => ({ ...p, protocol: "TCP", targetPort: p.port })) },
  },
  {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: { name, namespace: "default", labels },
    subsets: [{ addresses: [{ ip: "192.0.2.10" }], ports: gatewayPorts.map((p) => ({ ...p, protocol: "TCP" })) }],
  },
];
const diff = () =>
  diffMirrors(east, west, {
    cluster: "east",
    gatewayIp: "192.0.2.10",
    gatewayPort: 4143,
    alive: true,
    foreign: new Set(["default/taken-east"]),
  });

test("clean when every export has its mirror; each kind of difference is named", () => {
  applyObjects(east, target("web", [{ name: "http", port: 80 }], { tier: "web" }));
  applyObjects(west, mirror("web-east", [{ name: "http", port: 80 }], expectedLabels({ [EXPORTED]: "true", tier: "web" }, "east")));
  applyObjects(east, [
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "taken", namespace: "default", labels: { [EXPORTED]: "true" } },
      spec: { ports: [{ port: 1 }] },
    },
  ]);
  expect(isClean(diff())).toBe(true);

  applyObjects(east, target("api", [{ name: "grpc", port: 9090 }]));
  expect(diff().missing).toEqual(["default/api-east"]);
  applyObjects(west, mirror("api-east", [{ name: "grpc", port: 9091 }], own));
  expect(diff().wrong).toEqual(["default/api-east: ports grpc/TCP/9091/9091, want grpc/TCP/9090/9090"]);
  applyObjects(west, mirror("api-east", [{ name: "grpc", port: 9090 }], { ...own, stale: "yes" }));
  expect(diff().wrong[0]).toStartWith("default/api-east: labels");
  applyObjects(west, mirror("api-east", [{ name: "grpc", port: 9090 }], own, [{ name: "grpc", port: 1 }]));
  expect(diff().wrong).toEqual(["default/api-east: Endpoints ports grpc/TCP/1, want grpc/TCP/4143"]);
  applyObjects(west, mirror("api-east", [{ name: "grpc", port: 9090 }], own));
  expect(isClean(diff())).toBe(true);

  applyObjects(west, mirror("gone-east", [{ name: "http", port: 80 }], own));
  expect(diff().extra).toEqual(["default/gone-east"]);
});

test("the ownership monitor reports a write to a Service without mc's label", () => {
  const monitor = ownershipMonitor(west, new Set(["east"]));
  applyObjects(west, mirror("web-east", [{ name: "http", port: 80 }], expectedLabels({ [EXPORTED]: "true", tier: "web", v: "2" }, "east")));
  expect(monitor.violations).toEqual([]);
  applyObjects(west, [
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "someone-elses", namespace: "default", labels: { app: "x" } },
      spec: { ports: [{ port: 1 }] },
    },
  ]);
  expect(monitor.violations).toEqual(["ADDED services default/someone-elses"]);
  monitor.stop();
});
