// A watch stream sends the events of one turn of the event loop as one chunk (kube-apiserver's watch handler
// flushes only when no further event is queued), in order, and what was queued before the stream ends still arrives.
import { expect, test } from "bun:test";
import { WatchStreams, type WatchRequest } from "../../../src/sandbox/http/watch.ts";
import { BUILTIN_TYPES } from "../../../src/sandbox/resources.ts";
import { Store } from "../../../src/sandbox/storage/store.ts";
import type { KubeObject } from "../../../src/sandbox/types.ts";

const services = BUILTIN_TYPES.find((t) => t.plural === "services")!;
const svc = (name: string): KubeObject => ({ apiVersion: "v1", kind: "Service", metadata: { namespace: "default", name } });

function setup(o: Partial<WatchRequest> = {}) {
  const store = new Store();
  const hub = new WatchStreams(store, 60_000);
  const req: WatchRequest = { type: services, bookmarks: false, render: (x) => x, resourceVersion: store.resourceVersion, ...o };
  const stream = hub.stream(req, new AbortController().signal);
  return { store, hub, reader: stream.getReader() };
}

/** Every chunk's text until the stream ends or `lines` lines have come. */
async function chunks(reader: { read(): Promise<{ value?: Uint8Array; done?: boolean }> }, lines: number): Promise<string[]> {
  const out: string[] = [];
  while (
    out
      .join("")
      .split("\n")
      .filter((l) => l !== "").length < lines
  ) {
    const { value, done } = await reader.read();
    if (done) break;
    out.push(new TextDecoder().decode(value));
  }
  return out;
}

test("events written in one turn arrive as one chunk, in order", async () => {
  const { store, hub, reader } = setup();
  expect(await reader.read()).toEqual({ value: new TextEncoder().encode("\n"), done: false });
  for (let i = 0; i < 50; i++) store.insert(services, svc(`s${i}`));
  const got = await chunks(reader, 50);
  expect(got).toHaveLength(1);
  const names = got[0]!
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l).object.metadata.name);
  expect(names).toEqual(Array.from({ length: 50 }, (_, i) => `s${i}`));
  // A later turn's event is a chunk of its own.
  store.insert(services, svc("later"));
  expect((await chunks(reader, 1)).map((c) => JSON.parse(c).object.metadata.name)).toEqual(["later"]);
  hub.dropAll();
});

test("events queued when the server ends the stream still arrive before the end", async () => {
  const { store, hub, reader } = setup();
  await reader.read(); // the blank first line
  store.insert(services, svc("a"));
  store.insert(services, svc("b"));
  hub.dropAll();
  const text = (await chunks(reader, Number.POSITIVE_INFINITY)).join("");
  expect(
    text
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l).object.metadata.name),
  ).toEqual(["a", "b"]);
  expect(hub.open).toBe(0);
});

test("a large burst goes out in bounded chunks, every event once, in order", async () => {
  const { store, hub, reader } = setup();
  await reader.read();
  const big = "x".repeat(1000);
  for (let i = 0; i < 300; i++)
    store.insert(services, { ...svc(`s${i}`), metadata: { namespace: "default", name: `s${i}`, annotations: { big } } });
  const got = await chunks(reader, 300);
  expect(got.length).toBeGreaterThan(1);
  expect(got.every((c) => c.endsWith("\n"))).toBe(true);
  const names = got
    .join("")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l).object.metadata.name);
  expect(names).toEqual(Array.from({ length: 300 }, (_, i) => `s${i}`));
  hub.dropAll();
});
