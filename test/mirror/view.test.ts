// LocalView's knowledge of the controller's own writes, with a fake informer delivering events
// in any order against the write's result: the echo is known whether it comes before or after
// the response; anything else held meanwhile is handed on to be requeued.
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
    const object: KubeObject = { apiVersion: "v1", kind: "Endpoints", metadata: { namespace: "ns1", name: "web-east", resourceVersion: rv } };
    const old = items.get("ns1/web-east");
    if (type === "deleted") items.delete("ns1/web-east");
    else items.set("ns1/web-east", object);
    const e = (type === "updated" ? { type, key: "ns1/web-east", object, old: old! } : { type, key: "ns1/web-east", object }) as InformerEvent<KubeObject>;
    for (const l of listeners) l(e);
    return e;
  };
  return { informer, deliver };
}

const obj = (rv: string): KubeObject => ({ apiVersion: "v1", kind: "Endpoints", metadata: { namespace: "ns1", name: "web-east", resourceVersion: rv } });

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
