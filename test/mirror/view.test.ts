// LocalView's knowledge of the controller's own writes, with a fake informer delivering events in any order against the write's result: the
// echo is known whether it comes before or after the response; anything else held meanwhile is handed on to be requeued; and the view never
// outlives the truth (a deletion after our write, a 404/409, a refresh).
import { describe, expect, test } from "bun:test";
import type { Informer, InformerEvent, KubeObject } from "../../src/kube/index.ts";
import { LocalView } from "../../src/mirror/reconcile/view.ts";

function fakeInformer() {
  const listeners: Array<(e: InformerEvent<KubeObject>) => void> = [];
  const items = new Map<string, KubeObject>();
  const informer = {
    on: (l: (e: InformerEvent<KubeObject>) => void) => (listeners.push(l), () => {}),
    cache: { get: (ns: string | undefined, name: string) => items.get(`${ns}/${name}`), getByKey: (k: string) => items.get(k) },
  } as unknown as Informer<KubeObject>;
  /** Delivers an event as the informer would: cache first, then every listener in order. */
  const deliver = (type: "added" | "updated" | "deleted", rv: string): InformerEvent<KubeObject> => {
    const object: KubeObject = {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { namespace: "ns1", name: "web-east", resourceVersion: rv },
    };
    const old = items.get("ns1/web-east");
    if (type === "deleted") items.delete("ns1/web-east");
    else items.set("ns1/web-east", object);
    const e = (
      type === "updated" ? { type, key: "ns1/web-east", object, old: old! } : { type, key: "ns1/web-east", object }
    ) as InformerEvent<KubeObject>;
    for (const l of listeners) l(e);
    return e;
  };
  return { informer, deliver };
}

const obj = (rv: string): KubeObject => ({
  apiVersion: "v1",
  kind: "Endpoints",
  metadata: { namespace: "ns1", name: "web-east", resourceVersion: rv },
});

function rig() {
  const { informer, deliver } = fakeInformer();
  const view = new LocalView(informer);
  const missed: string[] = [];
  view.onMissed((e) => void missed.push(e.object.metadata.resourceVersion!));
  return { view, deliver, missed };
}

describe("LocalView and the controller's own writes", () => {
  test("the echo after the response is an echo; nothing is missed", () => {
    const r = rig();
    r.view.writing("ns1", "web-east");
    r.view.wrote(obj("5"));
    expect(r.view.isEcho(r.deliver("added", "5"))).toBe(true);
    expect(r.missed).toEqual([]);
  });

  test("the echo before the response is held as one, and confirmed by the response", () => {
    const r = rig();
    r.view.writing("ns1", "web-east");
    expect(r.view.isEcho(r.deliver("added", "5"))).toBe(true);
    r.view.wrote(obj("5"));
    expect(r.missed).toEqual([]);
  });

  test("someone else's change while our write is in flight is handed on once the response tells it apart", () => {
    const r = rig();
    r.deliver("added", "3");
    r.view.writing("ns1", "web-east");
    r.deliver("updated", "4"); // a foreign update, before ours lands
    r.deliver("updated", "5"); // our update's echo
    r.view.wrote(obj("5"), "4");
    expect(r.missed).toEqual([]); // 4 is what our update replaced: the reconcile saw it
    r.view.writing("ns1", "web-east");
    r.deliver("updated", "6"); // foreign
    r.deliver("updated", "7"); // ours
    r.view.wrote(obj("7"), "5");
    expect(r.missed).toEqual(["6"]);
  });

  test("a failed write hands on everything it held; a delete's echo is the deletion", () => {
    const r = rig();
    r.deliver("added", "3");
    r.view.writing("ns1", "web-east");
    r.deliver("updated", "4");
    r.view.failed("ns1", "web-east");
    expect(r.missed).toEqual(["4"]);
    r.view.writing("ns1", "web-east");
    expect(r.view.isEcho(r.deliver("deleted", "5"))).toBe(true);
    r.view.deleted("ns1", "web-east", "4");
    expect(r.missed).toEqual(["4"]);
  });

  test("with no write in flight, events are no echoes", () => {
    const r = rig();
    expect(r.view.isEcho(r.deliver("added", "1"))).toBe(false);
    expect(r.view.isEcho(r.deliver("updated", "2"))).toBe(false);
  });
});

describe("the view never outlives the truth", () => {
  test("our update's echo and then a deletion, both before the response: the view shows the deletion, which is handed on", () => {
    const r = rig();
    r.deliver("added", "3");
    r.view.writing("ns1", "web-east");
    r.deliver("updated", "5"); // our echo
    r.deliver("deleted", "6"); // someone deleted the mirror right after our write
    r.view.wrote(obj("5"), "3");
    expect(r.view.get("ns1", "web-east")).toBeUndefined();
    expect(r.missed).toEqual(["6"]);
  });

  test("our delete's echo and then a re-creation, both before the response: the view shows the new object", () => {
    const r = rig();
    r.deliver("added", "3");
    r.view.writing("ns1", "web-east");
    r.deliver("deleted", "4"); // our echo
    r.deliver("added", "5"); // re-created by someone
    r.view.deleted("ns1", "web-east", "3");
    expect(r.view.get("ns1", "web-east")?.metadata.resourceVersion).toBe("5");
    expect(r.missed).toEqual(["5"]);
  });

  test("our create's echo and then a deletion, before the response: nothing is shown", () => {
    const r = rig();
    r.view.writing("ns1", "web-east");
    r.deliver("added", "5");
    r.deliver("deleted", "6");
    r.view.wrote(obj("5"));
    expect(r.view.get("ns1", "web-east")).toBeUndefined();
  });

  test("a write answered 404/409 drops the overlay: the cache is read again", () => {
    const r = rig();
    r.deliver("added", "3");
    r.view.writing("ns1", "web-east");
    r.view.wrote(obj("5"), "3"); // the echo has not come
    expect(r.view.get("ns1", "web-east")?.metadata.resourceVersion).toBe("5");
    r.view.stale("ns1", "web-east");
    expect(r.view.get("ns1", "web-east")?.metadata.resourceVersion).toBe("3");
  });

  test("an overlay whose echo never came goes at the second refresh after it, not the first", () => {
    const r = rig();
    r.deliver("added", "3");
    r.view.writing("ns1", "web-east");
    r.view.wrote(obj("5"), "3");
    r.view.expire();
    expect(r.view.get("ns1", "web-east")?.metadata.resourceVersion).toBe("5");
    r.view.expire();
    expect(r.view.get("ns1", "web-east")?.metadata.resourceVersion).toBe("3");
  });
});

describe("LocalView's index and the writes not yet seen", () => {
  test("a lookup by index finds our writes by their index key without going through every write in flight", () => {
    const { informer } = fakeInformer();
    let asked = 0;
    const view = new LocalView<KubeObject>(informer, (o) => (asked++, o.metadata.labels?.group));
    const svc = (name: string, group: string): KubeObject => ({
      apiVersion: "v1",
      kind: "Service",
      metadata: { namespace: "ns1", name, resourceVersion: "1", labels: { group } },
    });
    for (let i = 0; i < 1000; i++) view.wrote(svc(`s${i}`, `g${i}`)); // a sync's writes, their echoes not come yet
    view.wrote(svc("s1000", "g7"));
    view.wrote(svc("s7", "elsewhere")); // moved out of g7 by a later write
    asked = 0;
    expect(view.indexed("g7").map((o) => o.metadata.name)).toEqual(["s1000"]);
    expect(view.indexed("g3").map((o) => o.metadata.name)).toEqual(["s3"]);
    expect(asked).toBe(0);
    view.deleted("ns1", "s3");
    expect(view.indexed("g3")).toEqual([]);
  });
});
