// The merge of exports into one ServiceImport (KEP-1645's conflict resolution: the oldest export
// wins, ports are the union by name) and the conditions a ServiceExport gets from it.
import { describe, expect, test } from "bun:test";
import { exportConditions } from "../../src/mcs/export-status.ts";
import { conflictCondition, judgeExport, mergeViews, type ExportView } from "../../src/mcs/merge.ts";
import { derivedServiceName, desiredImport, desiredSlice, sliceName, viewOfSlice } from "../../src/mcs/desired.ts";

const view = (cluster: string, created: string, o: Partial<ExportView> = {}): ExportView => ({
  cluster,
  created,
  type: "ClusterSetIP",
  ports: [{ name: "http", protocol: "TCP", port: 80 }],
  sessionAffinity: "None",
  labels: {},
  annotations: {},
  ...o,
});

describe("judgeExport", () => {
  const exp = {
    metadata: { name: "web", namespace: "shop", creationTimestamp: "2026-01-01T00:00:00Z" },
    spec: { exportedLabels: { a: "1" } },
  };
  test("no Service: NoService; an ExternalName Service: InvalidServiceType", () => {
    expect(judgeExport("east", exp, undefined)).toEqual({ invalid: { reason: "NoService", message: "Service shop/web not found" } });
    expect(judgeExport("east", exp, { metadata: {}, spec: { type: "ExternalName" } })).toMatchObject({
      invalid: { reason: "InvalidServiceType" },
    });
  });
  test("a headless Service is Headless; ports default to TCP; the export's labels are the view's", () => {
    const j = judgeExport("east", exp, {
      metadata: {},
      spec: { clusterIP: "None", ports: [{ port: 53 }], internalTrafficPolicy: "Local" },
    });
    expect(j).toEqual({
      view: {
        cluster: "east",
        created: "2026-01-01T00:00:00Z",
        type: "Headless",
        ports: [{ protocol: "TCP", port: 53 }],
        sessionAffinity: "None",
        internalTrafficPolicy: "Local",
        labels: { a: "1" },
        annotations: {},
      },
    });
  });
});

describe("mergeViews", () => {
  test("no views: no import", () => {
    expect(mergeViews([])).toBeUndefined();
  });

  test("the oldest export's properties win, whatever order the views come in; every cluster is listed", () => {
    const older = view("west", "2026-01-01T00:00:00Z", { sessionAffinity: "ClientIP", labels: { tier: "a" } });
    const newer = view("east", "2026-01-01T00:00:05Z", { sessionAffinity: "None", labels: { tier: "b" } });
    for (const views of [
      [older, newer],
      [newer, older],
    ]) {
      const m = mergeViews(views)!;
      expect(m.oldest).toBe("west");
      expect(m.spec.sessionAffinity).toBe("ClientIP");
      expect(m.labels).toEqual({ tier: "a" });
      expect(m.clusters).toEqual(["east", "west"]);
      expect(m.conflicts.map((c) => [c.reason, c.disagree])).toEqual([
        ["SessionAffinityConflict", ["east"]],
        ["LabelsConflict", ["east"]],
      ]);
    }
  });

  test("same creation second: the cluster name decides", () => {
    expect(mergeViews([view("b", "2026-01-01T00:00:00Z"), view("a", "2026-01-01T00:00:00Z")])!.oldest).toBe("a");
  });

  test("ports: the union by name; a name used for another port keeps the oldest's; both are conflicts", () => {
    const a = view("a", "1", { ports: [{ name: "tcp", protocol: "TCP", port: 42 }] });
    const b = view("b", "2", {
      ports: [
        { name: "tcp", protocol: "TCP", port: 43 },
        { name: "stcp", protocol: "SCTP", port: 142 },
      ],
    });
    const m = mergeViews([a, b])!;
    expect(m.spec.ports).toEqual([
      { name: "stcp", protocol: "SCTP", port: 142 },
      { name: "tcp", protocol: "TCP", port: 42 },
    ]);
    expect(m.conflicts).toEqual([{ reason: "PortConflict", what: "ports", used: "stcp:142/SCTP,tcp:42/TCP", disagree: ["a", "b"] }]);
  });

  test("type: the oldest's; the other type's ports do not join", () => {
    const m = mergeViews([view("a", "1"), view("b", "2", { type: "Headless", ports: [{ name: "dns", protocol: "UDP", port: 53 }] })])!;
    expect(m.spec.type).toBe("ClusterSetIP");
    expect(m.spec.ports).toEqual([{ name: "http", protocol: "TCP", port: 80 }]);
    expect(m.conflicts.map((c) => c.reason)).toEqual(["TypeConflict"]);
  });

  test("agreeing exports: no conflict, Conflict=False NoConflicts", () => {
    const m = mergeViews([view("a", "1"), view("b", "2")])!;
    expect(m.conflicts).toEqual([]);
    expect(conflictCondition(m)).toEqual({ status: "False", reason: "NoConflicts", message: "" });
  });

  test("the Conflict message: n/m clusters disagree, using … from the oldest export in cluster …", () => {
    const m = mergeViews([view("a", "1", { trafficDistribution: "PreferClose" }), view("b", "2"), view("c", "3")])!;
    expect(conflictCondition(m)).toEqual({
      status: "True",
      reason: "TrafficDistributionConflict",
      message: '2/3 clusters disagree, using trafficDistribution "PreferClose" from the oldest export in cluster "a"',
    });
  });
});

describe("the objects of an import", () => {
  test("the slice carries the MCS labels, mc as its manager, the gateway's ready addresses and its view", () => {
    const v = view("east", "1");
    const s = desiredSlice("shop", "web", v, { ready: ["192.0.2.1"], notReady: [], portOf: () => 4143 });
    expect(s.metadata.name).toBe("derived-web-east");
    expect(s.metadata.labels).toEqual({
      "multicluster.kubernetes.io/service-name": "web",
      "multicluster.kubernetes.io/source-cluster": "east",
      "kubernetes.io/service-name": "derived-web",
      "endpointslice.kubernetes.io/managed-by": "mc.multicluster.linkerd.io",
    });
    expect(s.endpoints).toEqual([{ addresses: ["192.0.2.1"], conditions: { ready: true, serving: true, terminating: false } }]);
    expect(s.ports).toEqual([{ name: "http", protocol: "TCP", port: 4143 }]);
    expect(viewOfSlice(s)).toEqual(v);
  });

  test("a gateway that is not alive: the slice's endpoints are not ready", () => {
    const s = desiredSlice("shop", "web", view("east", "1"), { ready: [], notReady: ["192.0.2.1"], portOf: () => 4143 });
    expect(s.endpoints[0]!.conditions.ready).toBe(false);
  });

  test("names longer than a DNS label are cut with a hash, stable and distinct", () => {
    const long = "x".repeat(60);
    expect(derivedServiceName(long).length).toBeLessThanOrEqual(63);
    expect(sliceName(long, "east")).not.toBe(sliceName(long, "west"));
    expect(sliceName(long, "east")).toBe(sliceName(long, "east"));
  });

  test("the import's ips and ipFamilies come from the derived Service; a Headless import has none", () => {
    const m = mergeViews([view("a", "1")])!;
    expect(desiredImport("shop", "web", m, { clusterIPs: ["10.96.0.7"], ipFamilies: ["IPv4"] }).spec).toMatchObject({
      ips: ["10.96.0.7"],
      ipFamilies: ["IPv4"],
    });
    const h = mergeViews([view("a", "1", { type: "Headless" })])!;
    expect(desiredImport("shop", "web", h, { clusterIPs: ["None"], ipFamilies: ["IPv4"] }).spec.ips).toBeUndefined();
  });
});

describe("a ServiceExport's conditions", () => {
  const exp = {
    metadata: { name: "web", namespace: "shop", generation: 2 },
    status: {
      conditions: [{ type: "Valid", status: "True" as const, reason: "Valid", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }],
    },
  };
  test("valid, imported, no conflict: Valid and Ready True, Conflict False; an unchanged status keeps its transition time", () => {
    const merged = mergeViews([view("east", "1")]);
    const c = exportConditions(
      exp,
      { judged: { view: view("east", "1") }, merged, imported: true, cluster: "east" },
      "2026-02-02T00:00:00Z",
    );
    expect(c.map((x) => [x.type, x.status, x.reason, x.lastTransitionTime])).toEqual([
      ["Valid", "True", "Valid", "2026-01-01T00:00:00Z"],
      ["Ready", "True", "Ready", "2026-02-02T00:00:00Z"],
      ["Conflict", "False", "NoConflicts", "2026-02-02T00:00:00Z"],
    ]);
    expect(c[0]!.observedGeneration).toBe(2);
  });
  test("no Service: Valid False NoService, Ready False", () => {
    const c = exportConditions(
      exp,
      {
        judged: { invalid: { reason: "NoService", message: "Service shop/web not found" } },
        merged: undefined,
        imported: false,
        cluster: "east",
      },
      "2026-02-02T00:00:00Z",
    );
    expect(c.map((x) => [x.type, x.status, x.reason])).toEqual([
      ["Valid", "False", "NoService"],
      ["Ready", "False", "Pending"],
    ]);
  });
});
