// The sandbox's store and its indexes.
import { describe, expect, test } from "bun:test";
import { matchesLabels, parseLabelSelector } from "../../../src/sandbox/selector.ts";
import { BUILTIN_TYPES } from "../../../src/sandbox/resources.ts";
import { Store } from "../../../src/sandbox/storage/store.ts";
import type { StoreEvent } from "../../../src/sandbox/storage/watch-hub.ts";
import { ApiError, type KubeObject } from "../../../src/sandbox/types.ts";

const services = BUILTIN_TYPES.find((t) => t.plural === "services")!;
const configmaps = BUILTIN_TYPES.find((t) => t.plural === "configmaps")!;
const svc = (namespace: string, name: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { namespace, name, labels },
});

describe("store", () => {
  test("one resourceVersion increases across all types", () => {
    const s = new Store();
    const a = s.insert(services, svc("default", "a"));
    const b = s.insert(configmaps, { apiVersion: "v1", kind: "ConfigMap", metadata: { namespace: "default", name: "b" } });
    const a2 = s.replace(services, { ...a, spec: { x: 1 } });
    expect(Number(b.metadata.resourceVersion)).toBe(Number(a.metadata.resourceVersion) + 1);
    expect(Number(a2.metadata.resourceVersion)).toBe(Number(b.metadata.resourceVersion) + 1);
  });

  test("a label index answers label=value scans from the objects carrying it, kept in step with every change", () => {
    const s = new Store();
    s.insert(services, svc("a", "before", { app: "web" })); // every label is indexed, from the first object on
    for (let i = 0; i < 50; i++) s.insert(services, svc("a", `other-${i}`, { app: "db" }));
    const web = s.insert(services, svc("b", "web", { app: "web", tier: "front" }));
    const names = (selector: string, namespace?: string) =>
      s.list(services, { namespace, labels: parseLabelSelector(selector) }).map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    expect(names("app=web")).toEqual(["a/before", "b/web"]);
    expect(names("app=web", "a")).toEqual(["a/before"]);
    expect(names("app=web,tier=front")).toEqual(["b/web"]);
    s.replace(services, { ...web, metadata: { ...web.metadata, labels: { app: "db" } } });
    expect(names("app=web")).toEqual(["a/before"]);
    expect(names("app=db", "b")).toEqual(["b/web"]);
    s.remove(services, "a", "before");
    expect(names("app=web")).toEqual([]);
    // Other selectors still read the namespace buckets.
    expect(names("app!=db")).toEqual([]);
    expect(names("app in (db)").length).toBe(51);
  });

  test("copies in and out: mutating a returned object does not change the store", () => {
    const s = new Store();
    const input = svc("default", "a", { x: "1" });
    const out = s.insert(services, input);
    input.metadata.labels!.x = "2";
    out.metadata.labels!.x = "3";
    expect(s.get(services, "default", "a")!.metadata.labels).toEqual({ x: "1" });
  });

  test("lists sorted by namespace then name, filtered by namespace and labels", () => {
    const s = new Store();
    for (const [ns, n, l] of [
      ["b", "z", "web"],
      ["a", "y", "db"],
      ["a", "x", "web"],
    ] as const)
      s.insert(services, svc(ns, n, { app: l }));
    expect(s.list(services).map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(["a/x", "a/y", "b/z"]);
    expect(s.list(services, { namespace: "a" }).map((o) => o.metadata.name)).toEqual(["x", "y"]);
    expect(s.list(services, { labels: parseLabelSelector("app=web") }).map((o) => o.metadata.name)).toEqual(["x", "z"]);
    expect(s.list(services, { fields: [{ field: "metadata.name", op: "!=", value: "x" }] }).map((o) => o.metadata.name)).toEqual([
      "y",
      "z",
    ]);
  });

  test("a stale resourceVersion on replace is a 409 Conflict and changes nothing", () => {
    const s = new Store();
    const a = s.insert(services, svc("default", "a"));
    s.replace(services, { ...a, spec: { v: 1 } }, a.metadata.resourceVersion);
    const err = (() => {
      try {
        s.replace(services, { ...a, spec: { v: 2 } }, a.metadata.resourceVersion);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(409);
    expect(s.get(services, "default", "a")!.spec).toEqual({ v: 1 });
  });

  test("creating a duplicate is 409 AlreadyExists; removing a missing object is 404", () => {
    const s = new Store();
    s.insert(services, svc("default", "a"));
    expect(() => s.insert(services, svc("default", "a"))).toThrow(/already exists/);
    expect(() => s.remove(services, "default", "nope")).toThrow(/not found/);
  });

  test("watch replays retained events after a resourceVersion, then streams live ones", () => {
    const s = new Store();
    const a = s.insert(services, svc("default", "a"));
    s.insert(services, svc("default", "b"));
    const seen: StoreEvent[] = [];
    const stop = s.watch({ key: "/services", send: (e) => seen.push(e) }, Number(a.metadata.resourceVersion));
    s.remove(services, "default", "a");
    stop();
    s.insert(services, svc("default", "c"));
    expect(seen.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(["ADDED b", "DELETED a"]);
  });

  test("a resume point older than the kept history is 410 Gone", () => {
    const s = new Store(2);
    const first = s.insert(services, svc("default", "a"));
    for (const n of ["b", "c", "d"]) s.insert(services, svc("default", n));
    expect(() => s.watch({ key: "/services", send: () => {} }, Number(first.metadata.resourceVersion))).toThrow(/too old resource version/);
    const recent = s.resourceVersion;
    s.forgetHistory();
    expect(() => s.watch({ key: "/services", send: () => {} }, Number(recent) - 1)).toThrow(ApiError);
    expect(() => s.watch({ key: "/services", send: () => {} }, Number(recent))).not.toThrow();
  });

  test("holds 20,000 objects and lists one namespace's share from its index", () => {
    const s = new Store(1000);
    for (let i = 0; i < 20_000; i++) s.insert(services, svc(`ns-${i % 100}`, `svc-${i}`));
    expect(s.count(services)).toBe(20_000);
    expect(s.list(services, { namespace: "ns-7" })).toHaveLength(200);
  });
});

describe("store indexes", () => {
  const names = (objs: readonly KubeObject[]) => objs.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
  /** What a list must hold: every stored object tested against the selector, in list order. */
  const byFilter = (s: Store, selector: string, namespace?: string) =>
    names(
      s
        .list(services)
        .filter(
          (o) =>
            (namespace === undefined || o.metadata.namespace === namespace) &&
            matchesLabels(parseLabelSelector(selector), o.metadata.labels),
        ),
    );

  test("label-selected lists from the label index agree with testing every object, across relabels and deletes", () => {
    const s = new Store();
    for (let i = 0; i < 60; i++)
      s.insert(
        services,
        svc(`ns-${i % 3}`, `s-${i}`, { app: `a${i % 4}`, tier: i % 5 === 0 ? "db" : "web", ...(i % 7 === 0 && { canary: "" }) }),
      );
    for (let i = 0; i < 60; i += 6)
      s.replace(services, {
        ...s.get(services, `ns-${i % 3}`, `s-${i}`)!,
        metadata: { ...s.get(services, `ns-${i % 3}`, `s-${i}`)!.metadata, labels: { app: "moved" } },
      });
    for (let i = 1; i < 60; i += 9) s.remove(services, `ns-${i % 3}`, `s-${i}`);
    const selectors = [
      "app=a1",
      "app=moved",
      "app in (a1,a2)",
      "app in (a1,nope)",
      "canary",
      "app=a1,tier=web",
      "tier=db,app!=a0",
      "!canary,tier=db",
      "app notin (a1,a2,a3)",
      "app=none",
      "app in ()",
    ];
    for (const sel of selectors) {
      expect({ sel, got: names(s.list(services, { labels: parseLabelSelector(sel) })) }).toEqual({ sel, got: byFilter(s, sel) });
      expect({ sel, got: names(s.list(services, { namespace: "ns-1", labels: parseLabelSelector(sel) })) }).toEqual({
        sel,
        got: byFilter(s, sel, "ns-1"),
      });
    }
    expect(s.list(services, { labels: parseLabelSelector("app=moved") }).length).toBeGreaterThan(0);
  });

  test("a field selector on metadata.name reads that name; on an indexed field, its index", () => {
    const s = new Store();
    const secrets = BUILTIN_TYPES.find((t) => t.plural === "secrets")!;
    for (const [ns, n, type] of [
      ["a", "x", "Opaque"],
      ["b", "x", "kubernetes.io/tls"],
      ["b", "y", "Opaque"],
    ] as const)
      s.insert(secrets, { apiVersion: "v1", kind: "Secret", metadata: { namespace: ns, name: n }, type });
    expect(names(s.list(secrets, { fields: [{ field: "metadata.name", op: "=", value: "x" }] }))).toEqual(["a/x", "b/x"]);
    expect(names(s.list(secrets, { namespace: "b", fields: [{ field: "metadata.name", op: "=", value: "x" }] }))).toEqual(["b/x"]);
    expect(names(s.list(secrets, { fields: [{ field: "type", op: "=", value: "Opaque" }] }))).toEqual(["a/x", "b/y"]);
    s.replace(secrets, { ...s.get(secrets, "a", "x")!, type: "kubernetes.io/tls" });
    expect(names(s.list(secrets, { fields: [{ field: "type", op: "=", value: "Opaque" }] }))).toEqual(["b/y"]);
    expect(
      names(
        s.list(secrets, {
          fields: [
            { field: "type", op: "=", value: "kubernetes.io/tls" },
            { field: "metadata.namespace", op: "=", value: "b" },
          ],
        }),
      ),
    ).toEqual(["b/x"]);
  });

  test("an index defined by its first use holds what was stored before and follows every change", () => {
    const s = new Store();
    const owner = (o: KubeObject) => (o.metadata.labels?.owner ? [o.metadata.labels.owner] : []);
    s.insert(services, svc("a", "one", { owner: "x" }));
    s.insert(services, svc("b", "two", { owner: "x" }));
    expect(names(s.byIndex(services, "owner", owner, "x"))).toEqual(["a/one", "b/two"]);
    s.insert(services, svc("a", "three", { owner: "x" }));
    s.replace(services, {
      ...s.get(services, "b", "two")!,
      metadata: { ...s.get(services, "b", "two")!.metadata, labels: { owner: "y" } },
    });
    expect(names(s.byIndex(services, "owner", owner, "x"))).toEqual(["a/one", "a/three"]);
    expect(names(s.byIndex(services, "owner", owner, "x", "a"))).toEqual(["a/one", "a/three"]);
    expect(names(s.byIndex(services, "owner", owner, "y"))).toEqual(["b/two"]);
    s.remove(services, "a", "one");
    expect(names(s.byIndex(services, "owner", owner, "x"))).toEqual(["a/three"]);
    expect(s.byIndex(services, "owner", owner, "z")).toEqual([]);
  });

  test("an event reaches the watches of its namespace and of all namespaces, not others", () => {
    const s = new Store();
    const seen: string[] = [];
    const watch = (who: string, namespace?: string) =>
      s.watch({ key: "/services", namespace, send: (e) => seen.push(`${who} ${e.object.metadata.name}`) });
    watch("all");
    watch("a", "a");
    const stopB = watch("b", "b");
    s.insert(services, svc("a", "x"));
    s.insert(services, svc("b", "y"));
    stopB();
    s.insert(services, svc("b", "z"));
    expect(seen).toEqual(["all x", "a x", "all y", "b y", "all z"]);
    expect(s.watcherCount()).toBe(2);
  });

  test("the kept history wraps around: resumes inside it replay in order, older ones are 410 Gone", () => {
    const s = new Store(5);
    const rvs = Array.from({ length: 12 }, (_, i) => Number(s.insert(services, svc("default", `s-${i}`)).metadata.resourceVersion));
    const replay = (from: number) => {
      const seen: string[] = [];
      s.watch({ key: "/services", send: (e) => seen.push(e.object.metadata.name!) }, from)();
      return seen;
    };
    expect(replay(rvs[6]!)).toEqual(["s-7", "s-8", "s-9", "s-10", "s-11"]);
    expect(replay(rvs[9]!)).toEqual(["s-10", "s-11"]);
    expect(replay(rvs[11]!)).toEqual([]);
    expect(() => replay(rvs[5]!)).toThrow(/too old resource version/);
  });
});
