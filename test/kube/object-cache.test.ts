// The informer's cache: list() answers objects sorted by key whatever the order they came in, only those a selector matches.
import { describe, expect, test } from "bun:test";
import { FREEZE_CACHE, ObjectCache } from "../../src/kube/cache.ts";
import type { KubeObject } from "../../src/kube/index.ts";

const obj = (namespace: string, name: string, labels?: Record<string, string>): KubeObject =>
  ({ apiVersion: "v1", kind: "Service", metadata: { namespace, name, labels } }) as KubeObject;

describe("ObjectCache.list", () => {
  test("sorted by key, filtered by a selector (parsed or a string), whatever the order of puts", () => {
    const cache = new ObjectCache<KubeObject>();
    for (const o of [
      obj("b", "web", { tier: "web", mirrored: "true" }),
      obj("a", "web-federated", { mirrored: "true" }),
      obj("a", "api", { tier: "api", mirrored: "true" }),
      obj("a", "Z"),
      obj("a", "web", { tier: "web", mirrored: "true" }),
    ])
      cache.put(o);
    const names = (xs: KubeObject[]) => xs.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    expect(names(cache.list())).toEqual(["a/Z", "a/api", "a/web", "a/web-federated", "b/web"]);
    expect(cache.keys()).toEqual(["a/Z", "a/api", "a/web", "a/web-federated", "b/web"]);
    expect(names(cache.list("tier=web"))).toEqual(["a/web", "b/web"]);
    expect(
      names(
        cache.list([
          { key: "mirrored", op: "=", value: "true" },
          { key: "tier", op: "!" },
        ]),
      ),
    ).toEqual(["a/web-federated"]);
    cache.remove("a/web");
    expect(names(cache.list("tier=web"))).toEqual(["b/web"]);
  });
});

describe("ObjectCache freezing", () => {
  test("under tests (FREEZE_CACHE) what is put or swapped in is frozen all the way down", () => {
    expect(FREEZE_CACHE).toBe(true);
    const cache = new ObjectCache<KubeObject>();
    cache.put(obj("a", "web", { tier: "web" }));
    cache.replace(new Map([["a/api", obj("a", "api", { tier: "api" })]]));
    const put = obj("b", "web", { tier: "web" });
    cache.put(put);
    for (const o of [put, cache.get("a", "api")!]) {
      expect(() => {
        (o.metadata.labels as Record<string, string>).tier = "changed";
      }).toThrow();
      expect(o.metadata.labels?.tier).not.toBe("changed");
    }
  });
});
