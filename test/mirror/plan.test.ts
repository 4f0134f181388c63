// The plan: the writes that turn what is into what is desired, for mirrors, endpoint mirrors and the gateway mirror.
import { describe, expect, test } from "bun:test";
import { desiredMirror } from "../../src/mirror/reconcile/desired.ts";
import { planEndpointMirrors, planGatewayMirror, planMirror, type MirrorOp } from "../../src/mirror/reconcile/plan.ts";
import type { EndpointsObject, ServiceObject } from "../../src/mirror/types.ts";
import { LINK_UID } from "../../src/model/labels.ts";
import { link, remoteEndpoints, remoteService } from "./fixtures.ts";

const gateway = { addresses: ["192.0.2.127"], port: 888, identity: "gateway-identity" };
const opts = { enableHeadlessServices: true, enableNamespaceCreation: false, namespaceExists: true };
const key = { namespace: "ns1", name: "service-one" };

/** What the API server would hand back for a desired object: defaults filled, uid and resourceVersion set. */
function stored<T extends ServiceObject | EndpointsObject>(obj: T, rv = "100"): T {
  const out = structuredClone(obj);
  out.metadata.uid = `uid-${out.metadata.name}`;
  out.metadata.resourceVersion = rv;
  const spec = (out as ServiceObject).spec;
  if (out.kind === "Service" && spec) {
    spec.type = "ClusterIP";
    spec.clusterIP ??= "10.96.0.10";
    for (const p of spec.ports ?? []) p.targetPort ??= p.port;
  }
  return out;
}

const verbs = (ops: MirrorOp[]) => ops.map((op) => `${op.verb} ${op.kind}`);

function desiredFor(svc = remoteService(), alive = true) {
  return desiredMirror({ link: link(), remote: { service: svc, endpoints: remoteEndpoints() }, gateway, alive, ...opts, key });
}

describe("plan for a mirror", () => {
  test("a new mirror is two creates: the Service, then its Endpoints, sent together", () => {
    const d = desiredFor();
    const { ops } = planMirror(d, {}, "east");
    expect(verbs(ops)).toEqual(["create Service", "create Endpoints"]);
    expect(ops.map((op) => op.concurrent ?? false)).toEqual([false, true]);
  });

  test("a mirror that matches, with server defaults filled in, needs no write", () => {
    const d = desiredFor();
    const actual = { service: stored(d.service!), endpoints: stored(d.endpoints!) };
    expect(planMirror(d, actual, "east")).toEqual({ ops: [], conflict: null });
  });

  test("changed ports update both the Service and the Endpoints (Linkerd: updates service ports on both service and endpoints)", () => {
    const before = desiredFor();
    const actual = { service: stored(before.service!), endpoints: stored(before.endpoints!) };
    const after = desiredFor(
      remoteService({
        ports: [
          { name: "port1", port: 111 },
          { name: "port3", port: 333 },
        ],
        resourceVersion: "8",
      }),
    );
    const { ops } = planMirror(after, actual, "east");
    expect(verbs(ops)).toEqual(["update Service", "update Endpoints"]);
    expect(ops.map((op) => op.concurrent ?? false)).toEqual([false, true]); // two updates: sent together
    const svc = ops[0]!.verb === "update" ? (ops[0]!.object as ServiceObject) : undefined;
    expect(svc?.spec?.ports).toEqual([
      { name: "port1", protocol: "TCP", port: 111 },
      { name: "port3", protocol: "TCP", port: 333 },
    ]);
    expect(svc?.spec?.clusterIP).toBe("10.96.0.10");
    expect(svc?.metadata.resourceVersion).toBe("100");
    expect(svc?.metadata.annotations?.["mirror.linkerd.io/remote-resource-version"]).toBe("8");
    expect(ops[0]!.verb === "update" && ops[0]!.changed).toEqual(["annotations", "ports"]);
  });

  test("a liveness change rewrites only the Endpoints", () => {
    const d = desiredFor();
    const actual = { service: stored(d.service!), endpoints: stored(d.endpoints!) };
    expect(verbs(planMirror(desiredFor(remoteService(), false), actual, "east").ops)).toEqual(["update Endpoints"]);
  });

  test("Endpoints subsets compare as sets with defaults filled: order, an empty subset and an explicit TCP change nothing; an address, a hostname, readiness or a port does", () => {
    const d = desiredFor();
    const subsets = [{ addresses: [{ ip: "192.0.2.2" }, { ip: "192.0.2.1", hostname: "a" }], ports: [{ name: "p", port: 80 }] }];
    const plan = (actual: unknown[]) =>
      verbs(
        planMirror(
          { ...d, endpoints: { ...d.endpoints!, subsets } },
          { service: stored(d.service!), endpoints: { ...stored(d.endpoints!), subsets: actual as never } },
          "east",
        ).ops,
      );
    expect(
      plan([
        { addresses: [{ ip: "192.0.2.1", hostname: "a" }, { ip: "192.0.2.2" }], ports: [{ name: "p", protocol: "TCP", port: 80 }] },
        { addresses: [], ports: [] },
      ]),
    ).toEqual([]);
    expect(plan([{ addresses: [{ ip: "192.0.2.1", hostname: "b" }, { ip: "192.0.2.2" }], ports: [{ name: "p", port: 80 }] }])).toEqual([
      "update Endpoints",
    ]);
    expect(plan([{ addresses: [{ ip: "192.0.2.1", hostname: "a" }, { ip: "192.0.2.3" }], ports: [{ name: "p", port: 80 }] }])).toEqual([
      "update Endpoints",
    ]);
    expect(
      plan([
        { addresses: [{ ip: "192.0.2.1", hostname: "a" }], notReadyAddresses: [{ ip: "192.0.2.2" }], ports: [{ name: "p", port: 80 }] },
      ]),
    ).toEqual(["update Endpoints"]);
    expect(plan([{ addresses: [{ ip: "192.0.2.1", hostname: "a" }, { ip: "192.0.2.2" }], ports: [{ name: "p", port: 81 }] }])).toEqual([
      "update Endpoints",
    ]);
    // As many ready and not-ready addresses on both sides, but not the same ones.
    const split = (ready: unknown[], notReady: unknown[]) => [
      { addresses: ready, notReadyAddresses: notReady, ports: [{ name: "p", port: 80 }] },
    ];
    const both = (x: unknown[]) =>
      verbs(
        planMirror(
          { ...d, endpoints: { ...d.endpoints!, subsets: split([{ ip: "192.0.2.1" }], [{ ip: "192.0.2.2" }]) as never } },
          { service: stored(d.service!), endpoints: { ...stored(d.endpoints!), subsets: x as never } },
          "east",
        ).ops,
      );
    expect(both(split([{ ip: "192.0.2.2" }], [{ ip: "192.0.2.1" }]))).toEqual(["update Endpoints"]);
    expect(both(split([{ ip: "192.0.2.1" }], [{ ip: "192.0.2.2" }]))).toEqual([]);
  });

  test("a mirror Service's labels, annotations and ports compare by value, the Link-uid label aside", () => {
    const d = desiredFor();
    const same = stored(d.service!);
    same.metadata.labels = { ...same.metadata.labels, [LINK_UID]: "other" };
    same.spec!.ports = same.spec!.ports!.map((p) => ({ ...p, protocol: "TCP" }));
    expect(planMirror(d, { service: same, endpoints: stored(d.endpoints!) }, "east").ops).toEqual([]);
    const extra = stored(d.service!);
    extra.metadata.labels = { ...extra.metadata.labels, extra: "x" };
    const op = planMirror(d, { service: extra, endpoints: stored(d.endpoints!) }, "east").ops[0];
    expect(op?.verb === "update" && op.changed).toEqual(["labels"]);
    const fewer = stored(d.service!);
    const { [Object.keys(fewer.metadata.annotations!)[0]!]: _gone, ...rest } = fewer.metadata.annotations!;
    fewer.metadata.annotations = rest;
    const op2 = planMirror(d, { service: fewer, endpoints: stored(d.endpoints!) }, "east").ops[0];
    expect(op2?.verb === "update" && op2.changed).toEqual(["annotations"]);
  });

  test("a frozen (cached) mirror Service planned again against the same frozen desired parts gives the same answer; a changed one is compared anew", () => {
    const freeze = <T>(v: T): T => {
      if (v && typeof v === "object") {
        for (const x of Object.values(v)) freeze(x);
        Object.freeze(v);
      }
      return v;
    };
    const d = freeze(desiredFor());
    const svc = freeze(stored(d.service!));
    const eps = freeze(stored(d.endpoints!));
    expect(planMirror(d, { service: svc, endpoints: eps }, "east").ops).toEqual([]);
    expect(planMirror(d, { service: svc, endpoints: eps }, "east").ops).toEqual([]);
    const selected = stored(d.service!);
    selected.spec!.selector = { app: "x" };
    const op = planMirror(d, { service: freeze(selected), endpoints: eps }, "east").ops[0];
    expect(op?.verb === "update" && op.changed).toEqual(["selector"]);
    const labelled = stored(d.service!);
    labelled.metadata.labels = { ...labelled.metadata.labels, extra: "x" };
    const op2 = planMirror(d, { service: freeze(labelled), endpoints: eps }, "east").ops[0];
    expect(op2?.verb === "update" && op2.changed).toEqual(["labels"]);
  });

  test("an Endpoints update carries the stored object's metadata and the desired subsets, not its managedFields, and leaves the stored object as it was", () => {
    const d = desiredFor();
    const endpoints = stored(d.endpoints!);
    (endpoints.metadata as Record<string, unknown>).managedFields = [{ manager: "mc", operation: "Update", apiVersion: "v1" }];
    (endpoints.metadata as Record<string, unknown>).creationTimestamp = "2026-01-01T00:00:00Z";
    const before = structuredClone(endpoints);
    const down = desiredFor(remoteService(), false);
    const op = planMirror(down, { service: stored(d.service!), endpoints }, "east").ops[0]!;
    const written = op.verb === "update" ? (op.object as EndpointsObject) : undefined;
    expect(written?.metadata).toEqual({
      ...d.endpoints!.metadata,
      uid: endpoints.metadata.uid,
      resourceVersion: "100",
      creationTimestamp: "2026-01-01T00:00:00Z",
    } as never);
    expect("managedFields" in (written?.metadata ?? {})).toBe(false);
    expect(written?.subsets).toEqual(down.endpoints!.subsets);
    expect(written?.subsets?.[0]?.notReadyAddresses?.length).toBeGreaterThan(0);
    expect(endpoints).toEqual(before);
  });

  test("a selector someone added to the mirror is removed", () => {
    const d = desiredFor();
    const svc = stored(d.service!);
    svc.spec!.selector = { app: "x" };
    const { ops } = planMirror(d, { service: svc, endpoints: stored(d.endpoints!) }, "east");
    expect(ops[0]?.verb === "update" && ops[0].changed).toEqual(["selector"]);
    expect(ops[0]?.verb === "update" && (ops[0].object as ServiceObject).spec?.selector).toBeUndefined();
  });

  test("no mirror wanted: our Endpoints then our Service are deleted, each conditional on its uid", () => {
    const d = desiredFor();
    const actual = { service: stored(d.service!), endpoints: stored(d.endpoints!) };
    const gone = desiredMirror({ link: link(), remote: { service: undefined, endpoints: undefined }, gateway, alive: true, ...opts, key });
    expect(planMirror(gone, actual, "east").ops).toEqual([
      { verb: "delete", kind: "Endpoints", namespace: "ns1", name: "service-one-east", uid: "uid-service-one-east" },
      { verb: "delete", kind: "Service", namespace: "ns1", name: "service-one-east", uid: "uid-service-one-east" },
    ]);
  });

  test("a same-named Service that is not ours is never written or deleted, and is reported as a conflict", () => {
    const foreign: ServiceObject = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "service-one-east", namespace: "ns1", labels: { app: "mine" } },
      spec: { ports: [{ port: 80 }] },
    };
    const p = planMirror(desiredFor(), { service: foreign }, "east");
    expect(p.ops).toEqual([]);
    expect(p.conflict).toEqual({
      reason: "Error",
      message: "Service ns1/service-one-east exists and is not a mirror of east; left alone",
      localRef: { namespace: "ns1", name: "service-one-east" },
    });
    const gone = desiredMirror({ link: link(), remote: { service: undefined, endpoints: undefined }, gateway, alive: true, ...opts, key });
    expect(planMirror(gone, { service: foreign }, "east")).toEqual({ ops: [], conflict: null });
  });

  test("a mirror of another cluster with the same name is foreign too", () => {
    const other = stored(
      desiredMirror({
        link: link({ cluster: "west2" }),
        remote: { service: remoteService(), endpoints: remoteEndpoints() },
        gateway,
        alive: true,
        ...opts,
        key,
      }).service!,
    );
    other.metadata.name = "service-one-east";
    expect(planMirror(desiredFor(), { service: other }, "east").conflict?.reason).toBe("Error");
  });

  test("switching between headless and ClusterIP re-creates the Service (clusterIP is immutable)", () => {
    const d = desiredFor();
    const headless = stored(d.service!);
    headless.spec!.clusterIP = "None";
    expect(verbs(planMirror(d, { service: headless, endpoints: stored(d.endpoints!) }, "east").ops)).toEqual([
      "delete Endpoints",
      "delete Service",
      "create Service",
      "create Endpoints",
    ]);
  });

  test("missing Endpoints of an existing mirror are created", () => {
    const d = desiredFor();
    const eps = planMirror(d, { service: stored(d.service!) }, "east").ops;
    expect(verbs(eps)).toEqual(["create Endpoints"]);
    expect(eps[0]!.concurrent).toBeUndefined(); // nothing before it to go with
  });
});

describe("plan for endpoint mirrors and the gateway mirror", () => {
  const svc = remoteService({ headless: true });
  const eps = (hosts: string[], rv = "1") =>
    remoteEndpoints({ ready: hosts.map((h, i) => ({ ip: `10.0.0.${i + 1}`, hostname: h })), resourceVersion: rv });

  test("endpoint mirrors are created for new pods and deleted for gone ones; a new target resourceVersion alone writes nothing", () => {
    const first = desiredMirror({
      link: link(),
      remote: { service: svc, endpoints: eps(["pod-0", "pod-1"]) },
      gateway,
      alive: true,
      ...opts,
      key,
    });
    const mirrors = first.headless!.endpointMirrors;
    expect(verbs(planEndpointMirrors(mirrors, { services: [], endpoints: new Map() }, "east"))).toEqual([
      "create Service",
      "create Endpoints",
      "create Service",
      "create Endpoints",
    ]);
    const actual = {
      services: mirrors.map((m) => stored(m.service)),
      endpoints: new Map(mirrors.map((m) => [m.service.metadata.name!, stored(m.endpoints)])),
    };
    const same = desiredMirror({
      link: link(),
      remote: { service: svc, endpoints: eps(["pod-0", "pod-1"], "2") },
      gateway,
      alive: true,
      ...opts,
      key,
    });
    expect(planEndpointMirrors(same.headless!.endpointMirrors, actual, "east")).toEqual([]);
    const shrunk = desiredMirror({
      link: link(),
      remote: { service: svc, endpoints: eps(["pod-1"], "3") },
      gateway,
      alive: true,
      ...opts,
      key,
    });
    expect(planEndpointMirrors(shrunk.headless!.endpointMirrors, actual, "east")).toEqual([
      { verb: "delete", kind: "Endpoints", namespace: "ns1", name: "pod-0-east", uid: "uid-pod-0-east" },
      { verb: "delete", kind: "Service", namespace: "ns1", name: "pod-0-east", uid: "uid-pod-0-east" },
    ]);
  });

  test("the gateway mirror is ours by its cluster-name label; anyone else's is left alone", () => {
    const desired: EndpointsObject = {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name: "probe-gateway-east", namespace: "lm", labels: { "mirror.linkerd.io/cluster-name": "east" } },
      subsets: [],
    };
    expect(verbs(planGatewayMirror(desired, undefined, "east"))).toEqual(["create Endpoints"]);
    expect(planGatewayMirror(desired, stored(desired), "east")).toEqual([]);
    const foreign = stored({ ...desired, metadata: { ...desired.metadata, labels: {} } });
    expect(planGatewayMirror({ ...desired, subsets: [{ addresses: [{ ip: "1.2.3.4" }] }] }, foreign, "east")).toEqual([]);
    expect(planGatewayMirror(null, foreign, "east")).toEqual([]);
    expect(verbs(planGatewayMirror(null, stored(desired), "east"))).toEqual(["delete Endpoints"]);
  });
});
