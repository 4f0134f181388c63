// `mc check`'s verdicts on mirrors: endpoints, orphans, sync, missing mirrors, blocked names and dangling federated members.
import { describe, expect, test } from "bun:test";
import {
  blockedMirrorNames,
  danglingMembers,
  listFew,
  missingMirrors,
  mirrorsWithoutEndpoints,
  orphanMirrors,
  outOfSync,
} from "../../src/checker/mirrors.ts";
import * as L from "../../src/model/labels.ts";
import { endpoints, link, mirror, service } from "./fixtures.ts";

const ready = [{ addresses: [{ ip: "192.0.2.10" }] }];

describe("mirror endpoints", () => {
  test("mirrors with ready or not-ready addresses have endpoints; missing or empty ones are listed", () => {
    const services = [
      mirror("default", "a", "east"),
      mirror("default", "b", "east"),
      mirror("default", "c", "east"),
      mirror("default", "d", "east"),
    ];
    const eps = [
      endpoints("default", "a-east", ready),
      endpoints("default", "b-east", [{ notReadyAddresses: [{ ip: "x" }] }]),
      endpoints("default", "c-east", null),
    ];
    expect(mirrorsWithoutEndpoints(services, eps)).toEqual(["default/c-east", "default/d-east"]);
  });

  test("a mirror in slice form (--mirror-endpoint-slices) has endpoints when mc's slice of it has any; an empty slice, or a slice not mc's, is none", () => {
    const services = [mirror("default", "a", "east"), mirror("default", "b", "east"), mirror("default", "c", "east")];
    const slice = (service: string, endpoints: unknown[], managedBy = L.MC_SLICE_MANAGER) => ({
      metadata: { name: service, namespace: "default", labels: { [L.SLICE_SERVICE_NAME]: service, [L.SLICE_MANAGED_BY]: managedBy } },
      endpoints,
    });
    const one = [{ addresses: ["192.0.2.10"], conditions: { ready: false } }];
    expect(
      mirrorsWithoutEndpoints(services, [], [slice("a-east", one), slice("b-east", []), slice("c-east", one, "someone-else")]),
    ).toEqual(["default/b-east", "default/c-east"]);
  });

  test("remote-discovery mirrors, probe Services and foreign Services are not expected to have endpoints", () => {
    const services = [
      mirror("default", "rd", "east", { labels: { [L.MC_REMOTE_DISCOVERY]: "east" } }),
      service("linkerd-multicluster", "probe-gateway-east", { labels: { [L.MIRRORED_GATEWAY]: "true", [L.CLUSTER_NAME]: "east" } }),
      service("default", "plain"),
    ];
    expect(mirrorsWithoutEndpoints(services, [])).toEqual([]);
  });
});

describe("orphan mirrors", () => {
  test("mirrors whose cluster has no Link are grouped by that cluster", () => {
    const services = [mirror("default", "a", "east"), mirror("default", "a", "gone"), mirror("other", "b", "gone")];
    expect(orphanMirrors(services, new Set(["east"]))).toEqual(new Map([["gone", ["default/a-gone", "other/b-gone"]]]));
  });
});

describe("mirror sync", () => {
  test("a mirror whose annotation differs from the target's resourceVersion is stale; a missing target is gone", () => {
    const mirrors = [
      mirror("default", "a", "east", { rv: "5" }),
      mirror("default", "b", "east", { rv: "5" }),
      mirror("default", "c", "east"),
      mirror("default", "x", "north"),
    ];
    const targets = [service("default", "a", { rv: "5" }), service("default", "b", { rv: "6" })];
    expect(outOfSync(mirrors, "east", targets)).toEqual([
      { mirror: "default/b-east", problem: "stale" },
      { mirror: "default/c-east", problem: "target-gone" },
    ]);
  });

  test("remote-discovery mirrors find their target by label; endpoint mirrors are not compared", () => {
    const mirrors = [
      { ...mirror("default", "renamed", "east", { rv: "7", labels: { [L.MC_REMOTE_SERVICE]: "web" } }) },
      mirror("default", "pod-0", "east", { rv: "99", labels: { [L.HEADLESS_MIRROR_SVC_NAME]: "db-east" } }),
    ];
    expect(outOfSync(mirrors, "east", [service("default", "web", { rv: "7" })])).toEqual([]);
  });
});

describe("missing mirrors", () => {
  const exported = (ns: string, name: string, o: { labels?: Record<string, string>; clusterIP?: string; ports?: unknown[] } = {}) => ({
    ...service(ns, name, { labels: o.labels ?? { [L.EXPORTED]: "true" } }),
    spec: { ports: o.ports ?? [{ port: 80 }], ...(o.clusterIP && { clusterIP: o.clusterIP }) },
  });

  test("an exported target whose mirror the server lacks is listed; targets not exported, without ports, or headless are not", () => {
    const targets = [
      exported("default", "a"),
      exported("default", "gone"), // its mirror was deleted
      exported("default", "rd", { labels: { [L.EXPORTED]: "remote-discovery" } }),
      exported("default", "plain", { labels: {} }),
      exported("default", "noports", { ports: [] }),
      exported("default", "db", { clusterIP: "None" }),
    ];
    const mirrors = [mirror("default", "a", "east"), mirror("default", "gone", "north")];
    expect(missingMirrors(link(), mirrors, targets)).toEqual(["default/gone-east", "default/rd-east"]);
  });

  test("a Link without a gateway only expects remote-discovery mirrors; targets its status lists as skipped are not expected", () => {
    const targets = [exported("default", "a"), exported("default", "rd", { labels: { [L.EXPORTED]: "remote-discovery" } })];
    expect(missingMirrors(link({ gateway: false }), [], targets)).toEqual(["default/rd-east"]);
    const l = link();
    l.status.mirrorServices = [
      {
        remoteRef: { namespace: "default", name: "a" },
        conditions: [{ type: "Mirrored", status: "False", reason: "MissingNamespace", message: "m" }],
      },
      {
        remoteRef: { namespace: "default", name: "rd" },
        conditions: [{ type: "Mirrored", status: "False", reason: "Error", message: "404 not retried" }],
      },
    ];
    // A failure that is an error (not a deliberate skip) still counts as missing.
    expect(missingMirrors(l, [], targets)).toEqual(["default/rd-east"]);
  });
});

describe("foreign services on mirror names", () => {
  test("an exported target whose mirror name is held by a Service that is not its mirror is listed", () => {
    const exported = { [L.EXPORTED]: "true" };
    const targets = [
      service("default", "a", { labels: exported }),
      service("default", "b", { labels: exported }),
      service("default", "c", { labels: exported }),
      service("default", "d"),
    ];
    const local = [
      mirror("default", "a", "east"), // our mirror: fine
      service("default", "b-east"), // a foreign Service
      service("default", "c-east", { labels: { [L.MIRRORED_SERVICE]: "true", [L.CLUSTER_NAME]: "north" } }), // another link's
      service("default", "d-east"), // d is not exported: no conflict
    ];
    expect(blockedMirrorNames(link(), targets, local)).toEqual(["default/b-east", "default/c-east"]);
  });

  test("names come from the controller's template and the target's annotation; this Link's mirror of another target blocks too", () => {
    const exported = { [L.EXPORTED]: "true" };
    const targets = [
      service("default", "a", { labels: exported }),
      service("default", "b", { labels: exported, annotations: { "mc-project.io/mirror-name": "shop" } }),
      service("default", "c", { labels: exported, annotations: { "mc-project.io/mirror-name": "east-a" } }),
    ];
    // east-a is the mirror of a (its annotation says so): a's own name, c's wanted one.
    const ofA = { ...mirror("default", "a", "east"), metadata: { ...mirror("default", "a", "east").metadata, name: "east-a" } };
    const local = [ofA, service("default", "shop")];
    expect(blockedMirrorNames(link(), targets, local, { template: "{cluster}-{service}", namespaceMap: {} })).toEqual([
      "default/shop",
      "default/east-a (the mirror of default/a)",
    ]);
    // With Linkerd's template, a's mirror would be a-east: nothing holds it.
    expect(blockedMirrorNames(link(), targets.slice(0, 1), local)).toEqual([]);
  });
});

describe("mirrors named by a template", () => {
  test("are found by the target their annotation names, never by parsing their name: not missing, in sync, not gone", () => {
    const m = mirror("default", "web", "east", { rv: "3" });
    const named = { ...m, metadata: { ...m.metadata, name: "east-web" } };
    const target = { ...service("default", "web", { labels: { [L.EXPORTED]: "true" }, rv: "3" }), spec: { ports: [{ port: 80 }] } };
    expect(missingMirrors(link(), [named], [target], new Set(), { template: "{cluster}-{service}", namespaceMap: {} })).toEqual([]);
    expect(outOfSync([named], "east", [target])).toEqual([]);
    expect(outOfSync([named], "east", [])).toEqual([{ mirror: "default/east-web", problem: "target-gone" }]);
    expect(missingMirrors(link(), [], [target], new Set(), { template: "{cluster}-{service}", namespaceMap: {} })).toEqual([
      "default/east-web",
    ]);
  });
});

describe("mirrors in another local namespace (--namespace-map)", () => {
  test("are found by the target namespace their annotation names: not missing, in sync, gone when the target is; a missing one and a blocked name are named in the mapped namespace", () => {
    const m = mirror("shop", "web", "east", { rv: "3" });
    const mapped = { ...m, metadata: { ...m.metadata, namespace: "shop-east" } };
    const target = { ...service("shop", "web", { labels: { [L.EXPORTED]: "true" }, rv: "3" }), spec: { ports: [{ port: 80 }] } };
    const naming = { template: "{service}-{cluster}", namespaceMap: { shop: "shop-east" } };
    expect(missingMirrors(link(), [mapped], [target], new Set(), naming)).toEqual([]);
    expect(outOfSync([mapped], "east", [target])).toEqual([]);
    expect(outOfSync([mapped], "east", [])).toEqual([{ mirror: "shop-east/web-east", problem: "target-gone" }]);
    expect(missingMirrors(link(), [], [target], new Set(), naming)).toEqual(["shop-east/web-east"]);
    expect(blockedMirrorNames(link(), [target], [service("shop-east", "web-east")], naming)).toEqual(["shop-east/web-east"]);
    expect(blockedMirrorNames(link(), [target], [mapped], naming)).toEqual([]);
  });
});

describe("listFew", () => {
  test("lists at most five, sorted, and counts the rest", () => {
    expect(listFew(["c", "a", "b"])).toBe("a, b, c");
    expect(listFew(["g", "f", "e", "d", "c", "b", "a"])).toBe("a, b, c, d, e and 2 more");
  });
});

describe("federated members", () => {
  const federated = (ns: string, name: string, annotations: Record<string, string>) =>
    service(ns, name, { labels: { [L.MIRRORED_SERVICE]: "true" }, annotations });
  test("remote members of clusters without a Link are listed per federated Service; local members and other Services are not", () => {
    const services = [
      federated("default", "web-federated", { [L.MC_REMOTE_DISCOVERY]: "web@east,web@gone", [L.MC_LOCAL_DISCOVERY]: "web" }),
      federated("default", "api-federated", { [L.MC_REMOTE_DISCOVERY]: "api@east" }),
      federated("shop", "cart-federated", { [L.MC_REMOTE_DISCOVERY]: "cart@gone,cart@lost" }),
      mirror("default", "web", "gone"),
    ];
    expect(danglingMembers(services, new Set(["east"]))).toEqual(
      new Map([
        ["default/web-federated", ["web@gone"]],
        ["shop/cart-federated", ["cart@gone", "cart@lost"]],
      ]),
    );
  });
});
