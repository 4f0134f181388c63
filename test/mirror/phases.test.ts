// The plan and record steps of reconcile, pure: ordered phases (the headless mirror's Endpoints
// from what the endpoint-mirror phase wrote) and outcomeOf (status entry, Events, log lines).
import { describe, expect, test } from "bun:test";
import { desiredMirror, type DesiredOptions } from "../../src/mirror/reconcile/desired.ts";
import type { OpResult } from "../../src/mirror/reconcile/execute.ts";
import { outcomeOf, type Reconciled } from "../../src/mirror/reconcile/outcomes.ts";
import { conflictOf, PHASES } from "../../src/mirror/reconcile/phases.ts";
import type { MirrorOp } from "../../src/mirror/reconcile/plan.ts";
import type { Snapshot, Svc } from "../../src/mirror/reconcile/read.ts";
import type { ServiceObject } from "../../src/mirror/types.ts";
import { link, remoteEndpoints, remoteService } from "./fixtures.ts";

const gateway = { addresses: ["192.0.2.127"], port: 888, identity: "" };
const opts: DesiredOptions = { enableHeadlessServices: true, enableNamespaceCreation: false, namespaceExists: true };
const NOW = Date.parse("2026-12-03T10:00:00Z");

function snapshot(over: Partial<Snapshot> = {}): Snapshot {
  return {
    key: "ns1/service-one",
    namespace: "ns1",
    name: "service-one",
    localNamespace: "ns1",
    mirrorName: "service-one-east",
    remote: { service: remoteService(), endpoints: remoteEndpoints() },
    mirror: {},
    foreign: false,
    renamed: [],
    endpointMirrors: { services: [], endpoints: new Map() },
    namespaceExists: true,
    namespaceSelected: true,
    ...over,
  };
}

const desiredFor = (s: Snapshot, o: Partial<DesiredOptions> = {}) =>
  desiredMirror({ link: link(), key: s, remote: s.remote, gateway, alive: true, ...opts, namespaceExists: s.namespaceExists, ...o });

/** What the API server answers for a Service write: a cluster IP assigned. */
const withIP = (svc: ServiceObject, ip: string): Svc => ({
  ...structuredClone(svc),
  metadata: { ...svc.metadata, uid: `uid-${svc.metadata.name}`, resourceVersion: "5" },
  spec: { ...svc.spec, clusterIP: ip },
});
const answered = (ops: MirrorOp[], ip: string): OpResult[] =>
  ops.map((op) =>
    op.verb === "delete" ? { op } : { op, object: (op.kind === "Service" ? withIP(op.object as ServiceObject, ip) : op.object) as Svc },
  );

/** The phases bound to one reconcile's input, and its conflict. */
function phasesFor(snapshot: Snapshot, desired: ReturnType<typeof desiredFor>) {
  const input = { snapshot, desired, cluster: "east" };
  return {
    phases: PHASES.map((p) => ({ name: p.name, plan: (written: OpResult[]) => p.plan(input, written) })),
    conflict: conflictOf(input),
  };
}

describe("reconcile phases", () => {
  const pods = remoteEndpoints({
    ready: [
      { ip: "10.1.0.1", hostname: "pod-0" },
      { ip: "10.1.0.2", hostname: "pod-1" },
    ],
    headless: true,
  });

  test("namespace, endpoint mirrors, mirror — the headless Endpoints take the endpoint mirrors' IPs from this reconcile's writes, else from the read", () => {
    const first = snapshot({ remote: { service: remoteService({ headless: true }), endpoints: pods } });
    const desired = desiredFor(first);
    // pod-1's endpoint mirror exists (read) as desired; pod-0's does not yet.
    const pod1 = withIP(desired.headless!.endpointMirrors[1]!.service, "10.96.0.6");
    const s = {
      ...first,
      endpointMirrors: { services: [pod1], endpoints: new Map([["pod-1-east", desired.headless!.endpointMirrors[1]!.endpoints as never]]) },
    };
    const { phases, conflict } = phasesFor(s, desired);
    expect(phases.map((p) => p.name)).toEqual([
      "namespace",
      "endpoint mirrors",
      "mirror",
      "endpoint slices",
      "retired endpoints",
      "old names",
    ]);
    expect(conflict).toBeNull();
    expect(phases[0]!.plan([])).toEqual([]);
    const epOps = phases[1]!.plan([]);
    expect(epOps.map((op) => `${op.verb} ${op.kind}`)).toEqual(["create Service", "create Endpoints"]);
    const written = answered(epOps, "10.96.0.5");
    const mirrorOps = phases[2]!.plan(written);
    expect(mirrorOps.map((op) => `${op.verb} ${op.kind}`)).toEqual(["create Service", "create Endpoints"]);
    const endpoints = mirrorOps[1]!.verb === "create" ? mirrorOps[1]!.object : undefined;
    expect((endpoints as { subsets: unknown }).subsets).toEqual([
      {
        addresses: [
          { hostname: "pod-0", ip: "10.96.0.5" },
          { hostname: "pod-1", ip: "10.96.0.6" },
        ],
        ports: [
          { name: "port1", protocol: "TCP", port: 555 },
          { name: "port2", protocol: "TCP", port: 666 },
        ],
      },
    ]);
    // Planned without pod-0's write, its pod is left out: the phase is a function of what was written.
    const alone = phases[2]!.plan([]);
    expect(
      (alone[1]!.verb === "create" ? (alone[1]!.object as { subsets: Array<{ addresses: unknown[] }> }) : undefined)?.subsets[0]?.addresses,
    ).toEqual([{ hostname: "pod-1", ip: "10.96.0.6" }]);
    // Without --mirror-endpoint-slices (no slices read) the slice phases plan nothing.
    expect([phases[3]!.plan(written), phases[4]!.plan(written), phases[5]!.plan(written)]).toEqual([[], [], []]);
  });

  test("with slices: no Endpoints are written; each mirror's slices come from the Endpoints it would have had, and Endpoints from before go last", () => {
    const first = snapshot({ remote: { service: remoteService({ headless: true }), endpoints: pods } });
    const desired = desiredFor(first);
    // pod-1's endpoint mirror exists with its Endpoints (made before the setting was on).
    const pod1 = withIP(desired.headless!.endpointMirrors[1]!.service, "10.96.0.6");
    const oldEp = {
      ...desired.headless!.endpointMirrors[1]!.endpoints,
      metadata: { ...desired.headless!.endpointMirrors[1]!.endpoints.metadata, uid: "ep-uid" },
    };
    const s = {
      ...first,
      endpointMirrors: { services: [pod1], endpoints: new Map([["pod-1-east", oldEp as never]]) },
      slices: new Map([
        ["service-one-east", []],
        ["pod-1-east", []],
      ]),
    };
    const { phases } = phasesFor(s, desired);
    const epOps = phases[1]!.plan([]);
    expect(epOps.map((op) => `${op.verb} ${op.kind}`)).toEqual(["create Service"]);
    const written = answered(epOps, "10.96.0.5");
    const mirrorOps = phases[2]!.plan(written);
    expect(mirrorOps.map((op) => `${op.verb} ${op.kind}`)).toEqual(["create Service"]);
    const sliceOps = phases[3]!.plan(written);
    expect(sliceOps.map((op) => `${op.verb} ${op.kind} ${op.verb === "create" ? op.object.metadata.name : ""}`)).toEqual([
      "create EndpointSlice pod-0-east",
      "create EndpointSlice pod-1-east",
      "create EndpointSlice service-one-east",
    ]);
    const headless = sliceOps[2]!.verb === "create" ? (sliceOps[2]!.object as unknown as { endpoints: unknown[] }) : undefined;
    expect(headless?.endpoints).toEqual([
      { addresses: ["10.96.0.5"], conditions: { ready: true, serving: true }, hostname: "pod-0" },
      { addresses: ["10.96.0.6"], conditions: { ready: true, serving: true }, hostname: "pod-1" },
    ]);
    expect(phases[4]!.plan([...written, ...answered(sliceOps, "")])).toEqual([
      { verb: "delete", kind: "Endpoints", namespace: "ns1", name: "pod-1-east", uid: "ep-uid" },
    ]);
  });

  test("a foreign Service holding the mirror's name: our endpoint mirrors are removed, the mirror phase plans nothing, and the conflict is reported", () => {
    const base = snapshot({ remote: { service: remoteService({ headless: true }), endpoints: pods } });
    const desired = desiredFor(base);
    const ours = withIP(desired.headless!.endpointMirrors[0]!.service, "10.96.0.5");
    const foreign: Svc = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "service-one-east", namespace: "ns1", labels: { app: "mine" } },
      spec: { ports: [{ port: 80 }] },
    };
    const s = { ...base, mirror: { service: foreign }, foreign: true, endpointMirrors: { services: [ours], endpoints: new Map() } };
    const { phases, conflict } = phasesFor(s, desired);
    expect(phases[1]!.plan([])).toEqual([{ verb: "delete", kind: "Service", namespace: "ns1", name: "pod-0-east", uid: "uid-pod-0-east" }]);
    expect(phases[2]!.plan([])).toEqual([]);
    expect(conflict?.localRef).toEqual({ namespace: "ns1", name: "service-one-east" });
  });

  test("a namespace to create is the first phase's one write", () => {
    const s = snapshot({ namespaceExists: false });
    const { phases } = phasesFor(s, desiredFor(s, { enableNamespaceCreation: true }));
    expect(phases[0]!.plan([]).map((op) => `${op.verb} ${op.kind}`)).toEqual(["create Namespace"]);
  });
});

describe("outcomeOf", () => {
  function reconciled(s: Snapshot, o: Partial<DesiredOptions> = {}, written: MirrorOp[] = []): Reconciled {
    const desired = desiredFor(s, o);
    const { conflict } = phasesFor(s, desired);
    return { snapshot: s, desired, conflict, done: answered(written, "10.96.0.9") };
  }

  test("a new mirror: one info line, no Event, no status entry", () => {
    const s = snapshot();
    const r = reconciled(s);
    const { phases } = phasesFor(s, r.desired);
    const v = outcomeOf({ ...r, done: answered(phases[2]!.plan([]), "10.96.0.9") }, "east", undefined, NOW);
    expect(v.outcome).toEqual({ state: "mirrored" });
    expect([v.state, v.failure, v.failuresChanged, v.events]).toEqual(["mirrored", null, false, []]);
    expect(v.logs).toEqual([{ level: "info", message: "mirrored ns1/service-one as ns1/service-one-east" }]);
  });

  test("a missing namespace: a status entry since now, a warning and the skip Event on the target, once", () => {
    const s = snapshot({ namespaceExists: false });
    const v = outcomeOf(reconciled(s), "east", undefined, NOW);
    expect(v.state).toBe("skipped");
    expect(v.failure).toEqual({
      namespace: "ns1",
      name: "service-one",
      reason: "MissingNamespace",
      message: "namespace ns1 does not exist in the source cluster",
      since: "2026-12-03T10:00:00.000Z",
    });
    expect(v.failuresChanged).toBe(true);
    expect(v.logs).toEqual([
      { level: "warn", message: "not mirroring ns1/service-one: namespace ns1 does not exist in the source cluster" },
    ]);
    expect(v.events).toEqual([
      {
        cluster: "remote",
        on: s.remote.service!,
        type: "Normal",
        reason: "ServiceMirroringSkipped",
        message: "Skipped mirroring service: namespace does not exist",
      },
    ]);
    const again = outcomeOf(reconciled(s), "east", v.failure!, NOW + 60_000);
    expect([again.failure, again.failuresChanged, again.newProblem, again.events, again.logs]).toEqual([v.failure, false, null, [], []]);
  });

  test("a foreign name holder: a failed entry with its localRef and a Warning Event on the local Service", () => {
    const foreign: Svc = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "service-one-east", namespace: "ns1" },
      spec: { ports: [{ port: 80 }] },
    };
    const v = outcomeOf(reconciled(snapshot({ mirror: { service: foreign }, foreign: true })), "east", undefined, NOW);
    expect(v.state).toBe("failed");
    expect(v.failure?.localRef).toEqual({ namespace: "ns1", name: "service-one-east" });
    expect(v.events).toEqual([
      {
        cluster: "local",
        on: foreign,
        type: "Warning",
        reason: "ServiceMirroringSkipped",
        message: "Skipped mirroring ns1/service-one from east: this Service is not a mirror of east",
      },
    ]);
  });

  test("a failure that mirrors now: its entry goes and the status changes; a headless target without endpoints is waiting", () => {
    const failed = outcomeOf(reconciled(snapshot({ namespaceExists: false })), "east", undefined, NOW).failure!;
    const fixed = outcomeOf(reconciled(snapshot()), "east", failed, NOW);
    expect([fixed.failure, fixed.failuresChanged]).toEqual([null, true]);
    const waiting = outcomeOf(
      reconciled(snapshot({ remote: { service: remoteService({ headless: true }), endpoints: remoteEndpoints({ ready: [] }) } })),
      "east",
      undefined,
      NOW,
    );
    expect([waiting.outcome, waiting.state, waiting.logs]).toEqual([{ state: "waiting" }, "skipped", []]);
  });
});
