// The compact form the controller keeps of a target's Endpoints: only what a mirror decision
// reads, and the same decisions as from the whole object.
import { describe, expect, test } from "bun:test";
import { desiredMirror } from "../../src/mirror/reconcile/desired.ts";
import { compactSubsets, endpointsCompactor } from "../../src/mirror/sources/remote-endpoints.ts";
import type { EndpointsObject } from "../../src/mirror/types.ts";
import { link, remoteEndpoints, remoteService, type EndpointsFixture } from "./fixtures.ts";

const gateway = { addresses: ["192.0.2.127"], port: 888, identity: "gateway-identity" };
const pod = (name: string) => ({ ip: `10.0.0.${name.length}`, hostname: name });

describe("compact target Endpoints", () => {
  test("ready hostnames and ports stay; IPs, labels, targetRefs go; plain addresses collapse to one per readiness", () => {
    const ep = remoteEndpoints({
      ready: ["10.0.0.1", "10.0.0.2", pod("db-0"), pod("db-1")],
      notReady: ["10.0.0.9", pod("db-2"), pod("db-3")],
      headless: true,
    });
    (ep.subsets![0]!.addresses![0] as Record<string, unknown>).targetRef = { kind: "Pod", name: "x", uid: "u" };
    const compact = endpointsCompactor<EndpointsObject>()({
      ...ep,
      metadata: { ...ep.metadata, resourceVersion: "42", uid: "uid", annotations: { a: "b" } },
    });
    expect(compact).toEqual({
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name: "service-one", namespace: "ns1", resourceVersion: "42" },
      subsets: [
        {
          addresses: [{ ip: "" }, { ip: "", hostname: "db-0" }, { ip: "", hostname: "db-1" }],
          notReadyAddresses: [{ ip: "" }, { ip: "", hostname: "db-2" }],
          ports: [
            { name: "port1", protocol: "TCP", port: 555 },
            { name: "port2", protocol: "TCP", port: 666 },
          ],
        },
      ],
    });
  });

  test("Endpoints of the same shape share one subsets value, however many pods they list", () => {
    const compact = endpointsCompactor<EndpointsObject>();
    const a = compact(remoteEndpoints({ name: "a", ready: ["10.0.0.1"] }));
    const b = compact(remoteEndpoints({ name: "b", ready: Array.from({ length: 500 }, (_, i) => `10.1.${i >> 8}.${i & 255}`) }));
    expect(b.subsets).toBe(a.subsets!);
    expect(Object.isFrozen(a.subsets)).toBe(true);
    const headless = compact(remoteEndpoints({ name: "c", ready: [pod("db-0")] }));
    expect(headless.subsets).not.toBe(a.subsets!);
  });

  const cases: Array<[string, EndpointsFixture, boolean]> = [
    ["ready addresses", { ready: ["10.0.0.1", "10.0.0.2"] }, false],
    ["only not-ready addresses", { ready: [], notReady: ["10.0.0.1"] }, false],
    ["no subsets", { ready: [] }, false],
    ["headless, ready hostnames", { ready: [pod("db-0"), pod("db-1")], headless: true }, true],
    ["headless, not-ready hostnames only", { ready: [], notReady: [pod("db-0")], headless: true }, true],
    [
      "headless, mixed hostnames and plain addresses",
      { ready: [pod("db-0"), "10.0.0.3"], notReady: ["10.0.0.4", pod("db-1")], headless: true },
      true,
    ],
    ["headless Service whose Endpoints have no hostnames", { ready: ["10.0.0.1"], headless: true }, true],
  ];
  for (const [name, fixture, headless] of cases) {
    test(`the mirror decided from the compact form equals the one from the whole object: ${name}`, () => {
      const whole = remoteEndpoints({ ...fixture, resourceVersion: "7" });
      const decide = (endpoints: EndpointsObject, current?: "headless" | "clusterIP") =>
        desiredMirror({
          link: link(),
          key: { namespace: "ns1", name: "service-one" },
          remote: { service: remoteService({ headless, resourceVersion: "3" }), endpoints },
          gateway,
          alive: true,
          enableHeadlessServices: true,
          enableNamespaceCreation: false,
          namespaceExists: true,
          currentMirror: current,
        });
      const compact = endpointsCompactor<EndpointsObject>()(whole);
      for (const current of [undefined, "headless", "clusterIP"] as const) expect(decide(compact, current)).toEqual(decide(whole, current));
    });
  }

  test("compactSubsets of nothing is nothing", () => {
    expect(compactSubsets(undefined)).toEqual([]);
    expect(compactSubsets(null)).toEqual([]);
  });
});
