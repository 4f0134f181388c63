// Watch streams of the same resource render an event once for all of them (kube-apiserver's watch
// cache serializes an event once per encoding for every watcher): every watcher still gets its
// own line, filtered as before; a watch with no shareKey (a Table watch) renders its own.
import { expect, test } from "bun:test";
import { WatchStreams, type WatchRequest } from "../../../src/sandbox/http/watch.ts";
import { BUILTIN_TYPES } from "../../../src/sandbox/resources.ts";
import { Store } from "../../../src/sandbox/storage/store.ts";
import type { KubeObject } from "../../../src/sandbox/types.ts";

const services = BUILTIN_TYPES.find((t) => t.plural === "services")!;
const svc = (name: string, labels: Record<string, string>): KubeObject => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { namespace: "default", name, labels },
});

/** Reads a stream's lines until `n` events (the first chunk is the blank line every watch starts with). */
async function events(stream: ReadableStream<Uint8Array>, n: number): Promise<string[]> {
  const reader = stream.getReader();
  const out: string[] = [];
  let text = "";
  while (out.length < n) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
    const lines = text.split("\n");
    text = lines.pop()!;
    out.push(...lines.filter((l) => l !== ""));
  }
  reader.releaseLock();
  return out;
}

test("two watches of services share each event's line; a selector still filters; a watch without a shareKey renders its own", async () => {
  const store = new Store();
  const hub = new WatchStreams(store, 60_000);
  let rendered = 0;
  const render = (o: KubeObject) => (rendered++, o);
  const req = (o: Partial<WatchRequest>): WatchRequest => ({
    type: services,
    bookmarks: false,
    render,
    resourceVersion: store.resourceVersion,
    ...o,
  });
  const abort = new AbortController();
  const all = hub.stream(req({ shareKey: "/v1/services" }), abort.signal);
  const web = hub.stream(
    req({ shareKey: "/v1/services", labels: [{ key: "app", op: "=", value: "web" }] } as Partial<WatchRequest>),
    abort.signal,
  );
  const own = hub.stream(req({}), abort.signal);
  store.insert(services, svc("a", { app: "web" }));
  store.insert(services, svc("b", { app: "db" }));
  const [a, w, o] = await Promise.all([events(all, 2), events(web, 1), events(own, 2)]);
  expect(a.map((l) => JSON.parse(l).object.metadata.name)).toEqual(["a", "b"]);
  expect(w.map((l) => JSON.parse(l).object.metadata.name)).toEqual(["a"]);
  expect(o).toEqual(a);
  expect(w[0]).toBe(a[0]!);
  // a and b once for the two sharing watches, and again for the one that shares nothing.
  expect(rendered).toBe(4);
  abort.abort();
});
