// planFederated: one controller's membership in `<svc>-federated`, decided against what the Service holds (Linkerd's federated cases in
// TestRemoteServiceCreatedMirroring, docs/linkerd-compatibility.md#linkerd-tests), plus the oldest-Link rule, headless refusal, the last
// one out, dropped members, and the retry of a conflicting write (reconcileFederated).
import { describe, expect, test } from "bun:test";
import { ConflictError } from "../../src/kube/kube-error.ts";
import type { Logger } from "../../src/log.ts";
import { planFederated, type FederatedInput, type KnownLinks } from "../../src/mirror/federated/federated.ts";
import { reconcileFederated } from "../../src/mirror/federated/federated-reconcile.ts";
import { FederatedOutcomes, federatedServicesStatus } from "../../src/mirror/federated/federated-status.ts";
import type { MirrorOp } from "../../src/mirror/reconcile/plan.ts";
import type { Svc } from "../../src/mirror/reconcile/read.ts";
import type { ServiceObject } from "../../src/mirror/types.ts";
import type { LocalView } from "../../src/mirror/reconcile/view.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { link, MEMBER, remoteService } from "./fixtures.ts";

const quiet: Logger = { error() {}, warn() {}, info() {}, debug() {} };
const AGES: Record<string, string> = { other: "2026-01-01T00:00:00Z", remote: "2026-02-01T00:00:00Z", third: "2026-03-01T00:00:00Z" };
const known = (gone: string[] = []): KnownLinks => ({ createdAt: (c) => AGES[c], isGone: (c) => gone.includes(c) });

function linkFor(cluster: string) {
  const l = link({ cluster: cluster || "x", federatedServiceSelector: { matchLabels: MEMBER } });
  return { ...l, targetClusterName: cluster, creationTimestamp: AGES[cluster] ?? "2026-06-01T00:00:00Z" };
}

const member = (o: Parameters<typeof remoteService>[0] = {}) =>
  remoteService({ labels: { ...MEMBER, lk: "lv" }, annotations: { note: "from-target" }, ...o });

function federated(annotations: Record<string, string>, o: { labels?: Record<string, string>; ports?: number[] } = {}): ServiceObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "service-one-federated",
      namespace: "ns1",
      uid: "u1",
      resourceVersion: "10",
      labels: o.labels ?? { "mirror.linkerd.io/mirrored-service": "true" },
      annotations,
    },
    spec: { ports: (o.ports ?? [555, 666]).map((port, i) => ({ name: `port${i + 1}`, protocol: "TCP", port })) },
  };
}

function plan(cluster: string, current: ServiceObject | undefined, o: Partial<FederatedInput> = {}) {
  return planFederated({
    link: linkFor(cluster),
    key: { namespace: "ns1", name: "service-one" },
    target: "target" in o ? o.target : member(),
    current,
    namespaceExists: true,
    enableNamespaceCreation: false,
    links: known(),
    ...o,
  });
}

const written = (ops: MirrorOp[]) =>
  ops.map((op) =>
    op.verb === "delete"
      ? { verb: op.verb }
      : { verb: op.verb, annotations: op.object.metadata.annotations, labels: op.object.metadata.labels },
  );

describe("planFederated (Linkerd's federated cases)", () => {
  test("federated service created: label mirrored-service only, annotation service-one@remote, copied metadata and ports", () => {
    const p = plan("remote", undefined);
    expect(p.ops).toEqual([
      {
        verb: "create",
        kind: "Service",
        object: {
          apiVersion: "v1",
          kind: "Service",
          metadata: {
            name: "service-one-federated",
            namespace: "ns1",
            labels: { lk: "lv", "mirror.linkerd.io/mirrored-service": "true" },
            annotations: { note: "from-target", "multicluster.linkerd.io/remote-discovery": "service-one@remote" },
          },
          spec: {
            ports: [
              { name: "port1", protocol: "TCP", port: 555 },
              { name: "port2", protocol: "TCP", port: 666 },
            ],
          },
        },
      },
    ]);
    expect(p.member).toBe(true);
  });

  test("federated service joined: service-one@other,service-one@remote, metadata left to the older Link", () => {
    const p = plan(
      "remote",
      federated(
        { "multicluster.linkerd.io/remote-discovery": "service-one@other" },
        { labels: { "mirror.linkerd.io/mirrored-service": "true", from: "other" } },
      ),
    );
    expect(written(p.ops)).toEqual([
      {
        verb: "update",
        labels: { "mirror.linkerd.io/mirrored-service": "true", from: "other" },
        annotations: { "multicluster.linkerd.io/remote-discovery": "service-one@other,service-one@remote" },
      },
    ]);
    expect((p.ops[0] as { object: { metadata: { resourceVersion?: string } } }).object.metadata.resourceVersion).toBe("10");
  });

  test("federated service left: back to service-one@other", () => {
    const p = plan("remote", federated({ "multicluster.linkerd.io/remote-discovery": "service-one@other,service-one@remote" }), {
      target: undefined,
    });
    expect(written(p.ops)).toEqual([
      { verb: "update", labels: expect.any(Object), annotations: { "multicluster.linkerd.io/remote-discovery": "service-one@other" } },
    ]);
    expect(p.member).toBe(false);
  });

  test("local federated service created: local-discovery service-one", () => {
    const p = plan("", undefined);
    expect(written(p.ops)[0]?.annotations).toEqual({ note: "from-target", "multicluster.linkerd.io/local-discovery": "service-one" });
  });

  test("local federated service joined: both annotations, and the local member's metadata (it counts as oldest)", () => {
    const p = plan(
      "",
      federated(
        { "multicluster.linkerd.io/remote-discovery": "service-one@other" },
        { labels: { "mirror.linkerd.io/mirrored-service": "true", from: "other" } },
      ),
    );
    expect(written(p.ops)).toEqual([
      {
        verb: "update",
        labels: { lk: "lv", "mirror.linkerd.io/mirrored-service": "true" },
        annotations: {
          note: "from-target",
          "multicluster.linkerd.io/remote-discovery": "service-one@other",
          "multicluster.linkerd.io/local-discovery": "service-one",
        },
      },
    ]);
  });

  test("local federated service left: only remote-discovery service-one@other remains", () => {
    const p = plan(
      "",
      federated({
        "multicluster.linkerd.io/remote-discovery": "service-one@other",
        "multicluster.linkerd.io/local-discovery": "service-one",
      }),
      { target: undefined },
    );
    expect(written(p.ops)[0]?.annotations).toEqual({ "multicluster.linkerd.io/remote-discovery": "service-one@other" });
  });
});

describe("planFederated (mc's rules)", () => {
  test("the last member out deletes the Service, conditional on the uid and resourceVersion it read", () => {
    const p = plan("remote", federated({ "multicluster.linkerd.io/remote-discovery": "service-one@remote" }), { target: undefined });
    expect(p.ops).toEqual([
      { verb: "delete", kind: "Service", namespace: "ns1", name: "service-one-federated", uid: "u1", resourceVersion: "10" },
    ]);
  });

  test("a member already listed with the metadata it would write costs no write (as Linkerd since linkerd/linkerd2#13783)", () => {
    const current = plan("remote", undefined).ops[0]!;
    const existing = { ...(current as { object: ServiceObject }).object };
    existing.metadata = { ...existing.metadata, resourceVersion: "3", uid: "u" };
    expect(plan("remote", existing).ops).toEqual([]);
  });

  test("the oldest Link's member rewrites labels, annotations and ports; a younger one never does", () => {
    const stale = federated(
      { "multicluster.linkerd.io/remote-discovery": "service-one@remote,service-one@third", old: "x" },
      { labels: { "mirror.linkerd.io/mirrored-service": "true", old: "x" }, ports: [1] },
    );
    const older = plan("remote", stale);
    expect(written(older.ops)).toEqual([
      {
        verb: "update",
        labels: { lk: "lv", "mirror.linkerd.io/mirrored-service": "true" },
        annotations: { note: "from-target", "multicluster.linkerd.io/remote-discovery": "service-one@remote,service-one@third" },
      },
    ]);
    expect(
      plan("third", stale, { target: member({ labels: { ...MEMBER, other: "labels" }, ports: [{ name: "p", port: 9 }] }) }).ops,
    ).toEqual([]);
  });

  test("when the oldest member leaves, the next oldest takes over the metadata", () => {
    const left = federated(
      { "multicluster.linkerd.io/remote-discovery": "service-one@third" },
      { labels: { "mirror.linkerd.io/mirrored-service": "true", from: "remote" } },
    );
    const p = plan("third", left, { target: member({ labels: { ...MEMBER, from: "third" } }) });
    expect(written(p.ops)[0]?.labels).toEqual({ from: "third", "mirror.linkerd.io/mirrored-service": "true" });
  });

  test("a member whose Link is unknown does not count as older; one whose Link was seen deleted is dropped", () => {
    const withStranger = federated({ "multicluster.linkerd.io/remote-discovery": "service-one@stranger" });
    expect(written(plan("third", withStranger).ops)[0]?.annotations).toMatchObject({
      note: "from-target",
      "multicluster.linkerd.io/remote-discovery": "service-one@stranger,service-one@third",
    });
    const p = plan("third", federated({ "multicluster.linkerd.io/remote-discovery": "service-one@other,service-one@third" }), {
      links: known(["other"]),
    });
    expect(written(p.ops)[0]?.annotations?.["multicluster.linkerd.io/remote-discovery"]).toBe("service-one@third");
    expect(
      plan("third", federated({ "multicluster.linkerd.io/remote-discovery": "service-one@other" }), {
        target: undefined,
        links: known(["other"]),
      }).ops.map((o) => o.verb),
    ).toEqual(["delete"]);
  });

  test("a headless member is refused with InvalidService (and leaves if it was listed)", () => {
    const p = plan("remote", federated({ "multicluster.linkerd.io/remote-discovery": "service-one@other,service-one@remote" }), {
      target: member({ headless: true }),
    });
    expect(p.problem).toEqual({ reason: "InvalidService", message: "Headless service cannot join federated service" });
    expect(written(p.ops)[0]?.annotations?.["multicluster.linkerd.io/remote-discovery"]).toBe("service-one@other");
    expect(plan("remote", undefined, { target: member({ headless: true }) }).ops).toEqual([]);
  });

  test("a missing namespace is MissingNamespace, or created with --enable-namespace-creation", () => {
    expect(plan("remote", undefined, { namespaceExists: false }).problem?.reason).toBe("MissingNamespace");
    expect(
      plan("remote", undefined, { namespaceExists: false, enableNamespaceCreation: true }).ops.map((o) => `${o.verb} ${o.kind}`),
    ).toEqual(["create Namespace", "create Service"]);
  });

  test("a Service on the name that is not a federated Service (a mirror, or a stranger) is left alone and reported", () => {
    const stranger = { ...federated({}), metadata: { name: "service-one-federated", namespace: "ns1", labels: { app: "x" } } };
    const p = plan("remote", stranger);
    expect(p.ops).toEqual([]);
    expect(p.problem).toMatchObject({ reason: "Error", localRef: { namespace: "ns1", name: "service-one-federated" } });
  });

  test("a target the selector does not select is no member (a Link without a federated selector has none)", () => {
    expect(plan("remote", undefined, { target: remoteService() }).ops).toEqual([]);
  });
});

describe("reconcileFederated: a conflicting write is planned again from the server's copy", () => {
  test("north's join that lost the race to east re-reads and keeps east's member", async () => {
    const seenByNorth = federated({ "multicluster.linkerd.io/remote-discovery": "service-one@other" });
    const onServer = federated({ "multicluster.linkerd.io/remote-discovery": "service-one@other,service-one@remote" });
    onServer.metadata.resourceVersion = "11";
    const writes: MirrorOp[] = [];
    const outcomes = new FederatedOutcomes(new ManualClock(0));
    const p = await reconcileFederated(
      {
        link: linkFor("third"),
        enableNamespaceCreation: false,
        target: () => member() as Svc,
        namespaceExists: () => true,
        services: { get: () => seenByNorth } as unknown as LocalView<Svc>,
        readLive: async () => onServer as Svc,
        execute: async (ops) => {
          writes.push(...ops);
          const op = ops[0]!;
          if (op.verb === "update" && op.object.metadata.resourceVersion === "10")
            throw new ConflictError({
              verb: "update",
              target: "services ns1/service-one-federated",
              code: 409,
              reason: "Conflict",
              detail: "the object has been modified",
            });
          return [];
        },
        links: known(),
        outcomes,
        log: quiet,
      },
      "ns1/service-one",
    );
    expect(
      writes.map((op) => (op.verb === "update" ? op.object.metadata.annotations?.["multicluster.linkerd.io/remote-discovery"] : op.verb)),
    ).toEqual(["service-one@other,service-one@third", "service-one@other,service-one@remote,service-one@third"]);
    expect(p.member).toBe(true);
    expect(federatedServicesStatus(outcomes.all())).toEqual([
      {
        controllerName: "linkerd.io/service-mirror",
        remoteRef: { group: "", kind: "Service", name: "service-one", namespace: "ns1" },
        conditions: [
          {
            type: "Mirrored",
            status: "True",
            reason: "Mirrored",
            message: "",
            lastTransitionTime: "1970-01-01T00:00:00.000Z",
            localRef: { group: "", kind: "Service", name: "service-one-federated", namespace: "ns1" },
          },
        ],
      },
    ]);
  });
});
