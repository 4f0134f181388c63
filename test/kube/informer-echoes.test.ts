// The echo of our own write, taken from the write's answer instead of parsed: only a watch line that is the answer's very text, for an
// add or an update (or the answer taken from its echo, when that comes first); anything else is parsed as before, and what is kept goes
// when its pair comes, with age, or past a cap.
import { afterEach, describe, expect, test } from "bun:test";
import { EchoBook, echoBook } from "../../src/kube/echoes.ts";
import { Informer } from "../../src/kube/informer.ts";
import { resources } from "../../src/kube/resources.ts";
import type { KubeObject } from "../../src/kube/types.ts";
import { collectEvents, recordingLog, within } from "./helpers.ts";

/** A Service as a server writes it (managedFields included), at resourceVersion `rv`. */
const serviceText = (name: string, rv: number, port = 80) =>
  `{"apiVersion":"v1","kind":"Service","metadata":{"name":"${name}","namespace":"shop","uid":"u-${name}","resourceVersion":"${rv}","managedFields":[{"manager":"mc","operation":"Update"}]},"spec":{"ports":[{"port":${port}}]}}`;
const line = (type: string, object: string) => `{"type":"${type}","object":${object}}`;

/**
 * A stand-in API server: lists answer `items` at `listRv`, a write answers the next text given to
 * `answerWith`, and each watch streams what `push` sends. An informer of its services, watching.
 */
async function standIn() {
  let listRv = "5";
  let answer = "";
  /** While set, a write's answer waits for it; `received` is told when the write arrives. */
  let gate: Promise<void> | undefined;
  let received: (() => void) | undefined;
  const watches: ReadableStreamDefaultController<Uint8Array>[] = [];
  const opened: Array<() => void> = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method !== "GET") {
        const text = answer;
        received?.();
        await gate;
        return new Response(text, { status: req.method === "POST" ? 201 : 200 });
      }
      if (url.searchParams.get("watch")) {
        const body = new ReadableStream<Uint8Array>({
          start: (c) => {
            watches.push(c);
            for (const f of opened.splice(0)) f();
          },
        });
        return new Response(body, { headers: { "content-type": "application/json" } });
      }
      return Response.json({ kind: "ServiceList", apiVersion: "v1", metadata: { resourceVersion: listRv }, items: [] });
    },
  });
  const { connectKubeconfigText } = await import("../../src/kube/connect.ts");
  const kubeconfig = `apiVersion: v1
kind: Config
clusters: [{ name: t, cluster: { server: "http://127.0.0.1:${server.port}" } }]
users: [{ name: u, user: {} }]
contexts: [{ name: t, context: { cluster: t, user: u } }]
current-context: t
`;
  const client = await connectKubeconfigText(kubeconfig, "test", { name: "west" });
  const inf = new Informer<KubeObject>({
    client,
    resource: resources.service,
    log: recordingLog(),
    backoff: { initialMs: 1, maxMs: 5, jitter: 0 },
    relistIntervalMs: 0,
  });
  const encoder = new TextEncoder();
  const rig = {
    server,
    client,
    inf,
    /** The next watch the informer opens (as the server sees it: its headers go with the first line pushed). */
    nextWatch: () => within(new Promise<void>((resolve) => opened.push(resolve)), "a watch"),
    push: (text: string) => watches.at(-1)!.enqueue(encoder.encode(`${text}\n`)),
    setListRv: (rv: string) => void (listRv = rv),
    /** Our write answered with `text` (its echo expected unless `echo` is false): the answer, as the writer gets it. */
    write: async (text: string, verb: "create" | "update" = "create", echo = true) => {
      answer = text;
      const obj = JSON.parse(text) as KubeObject;
      return verb === "create" ? rig.client.create(resources.service, obj, { echo }) : rig.client.update(resources.service, obj, { echo });
    },
    /** Our create answered with `text` only once `release` is called: resolves when the server has it. */
    heldWrite: async (text: string) => {
      let release!: () => void;
      gate = new Promise<void>((resolve) => (release = resolve));
      const arrived = new Promise<void>((resolve) => (received = resolve));
      answer = text;
      const written = rig.client.create(resources.service, JSON.parse(text) as KubeObject, { echo: true });
      await within(arrived, "the write at the server");
      return {
        release: () => {
          gate = undefined;
          received = undefined;
          release();
          return written;
        },
      };
    },
    /** The server's book of expected echoes. */
    get book() {
      return echoBook(client.server);
    },
    /** Pushes `text` and resolves with the informer's event for it. */
    deliver: async (text: string) => {
      const got = collectEvents(inf, (e) => e.length === 1, `the event of ${text.slice(0, 40)}`);
      rig.push(text);
      return (await got)[0]!;
    },
  };
  const watching = rig.nextWatch();
  inf.start();
  await within(inf.synced, "synced");
  await watching;
  stops.push(async () => {
    await inf.stop();
    server.stop(true);
  });
  return rig;
}

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

describe("the echo of our own write", () => {
  test("a line that is the answer's very text is taken from the answer, not parsed; cached and told as a parsed one would be", async () => {
    const r = await standIn();
    const text = serviceText("web", 6);
    const answer = await r.write(text);
    expect(r.book.size).toBe(1);
    const event = await r.deliver(line("ADDED", text));
    expect(r.inf.counters).toMatchObject({ events: 1, echoes: 1 });
    expect(event.type).toBe("added");
    expect(event.object.spec).toBe(answer.spec); // the answer's own object: nothing was parsed
    const { managedFields: _, ...metadata } = (JSON.parse(text) as KubeObject).metadata;
    expect(event.object).toEqual({ ...(JSON.parse(text) as KubeObject), metadata });
    expect(r.inf.cache.get("shop", "web")).toBe(event.object);
    expect(r.book.size).toBe(0);
    // Under tests an answer whose echo is expected is frozen: changing it before its echo would throw.
    expect(() => {
      (answer.spec as { ports: unknown[] }).ports.push({ port: 1 });
    }).toThrow();

    const updated = await r.write(serviceText("web", 7, 81), "update");
    const modified = await r.deliver(line("MODIFIED", serviceText("web", 7, 81)));
    expect(modified.type === "updated" && modified.old).toBe(event.object);
    expect(modified.object.spec).toBe(updated.spec);
    expect(r.inf.counters).toMatchObject({ events: 2, echoes: 2 });
  });

  test("the same object at another resourceVersion, or not byte for byte the answer, or a deletion, or a write not marked, is parsed", async () => {
    const r = await standIn();
    await r.write(serviceText("web", 6));
    // Someone else's change of the same Service, arriving while ours is expected: parsed and told.
    const other = await r.deliver(line("MODIFIED", serviceText("web", 8, 90)));
    expect(other.object.spec).toEqual({ ports: [{ port: 90 }] });
    expect(other.object.metadata.resourceVersion).toBe("8");
    // Our resourceVersion in another encoding (keys in another order): equal data, yet parsed.
    const reordered = serviceText("web", 9).replace('"apiVersion":"v1","kind":"Service"', '"kind":"Service","apiVersion":"v1"');
    const answer9 = await r.write(serviceText("web", 9), "update");
    const parsed = await r.deliver(line("MODIFIED", reordered));
    expect(parsed.object.spec).not.toBe(answer9.spec);
    expect(parsed.object.spec).toEqual(answer9.spec as object);
    // A deletion carrying our answer's very text is a deletion, parsed.
    const answer10 = await r.write(serviceText("web", 10), "update");
    const deleted = await r.deliver(line("DELETED", serviceText("web", 10)));
    expect(deleted.type).toBe("deleted");
    expect(deleted.object.spec).not.toBe(answer10.spec);
    expect(r.book.size).toBe(3);
    // A write not marked as echoed is not expected.
    const plain = await r.write(serviceText("api", 11), "create", false);
    expect(r.book.size).toBe(3);
    const added = await r.deliver(line("ADDED", serviceText("api", 11)));
    expect(added.object.spec).not.toBe(plain.spec);
    expect(r.inf.counters).toMatchObject({ events: 4, echoes: 0 });
  });

  test("an echo before its answer is parsed, and the answer is taken from it; a line parsed while no write is in flight is not kept", async () => {
    const r = await standIn();
    await r.deliver(line("ADDED", serviceText("other", 5)));
    expect(r.book.linesKept).toBe(0);
    const text = serviceText("web", 6);
    const held = await r.heldWrite(text);
    const event = await r.deliver(line("ADDED", text));
    expect(r.inf.counters.echoes).toBe(0);
    expect(r.book.linesKept).toBe(1);
    const answer = await held.release();
    expect(answer.spec).toBe(event.object.spec); // the line's object: the answer was not parsed
    expect(answer).toEqual(JSON.parse(text) as KubeObject);
    expect(r.book.linesKept).toBe(0);
    expect(r.book.size).toBe(0);
  });

  test("a relist keeps the book (shared by every informer of the server): an echo the new watch carries is still taken", async () => {
    const r = await standIn();
    const answer = await r.write(serviceText("api", 20));
    expect(r.book.size).toBe(1);
    const rewatch = r.nextWatch();
    r.setListRv("19");
    r.push(line("ERROR", '{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410}'));
    await rewatch;
    expect(r.inf.counters.lists).toBe(2);
    expect(r.book.size).toBe(1);
    const after = await r.deliver(line("ADDED", serviceText("api", 20)));
    expect(after.object.spec).toBe(answer.spec);
    expect(r.inf.counters.echoes).toBe(1);
    expect(r.book.size).toBe(0);
  });
});

describe("EchoBook", () => {
  const obj = (rv: number): KubeObject => JSON.parse(serviceText(`s${rv}`, rv)) as KubeObject;

  test("never holds more than its cap: the oldest go first", () => {
    const book = new EchoBook(Date.now, 100);
    for (let rv = 1; rv <= 150; rv++) book.expect(serviceText(`s${rv}`, rv), obj(rv));
    expect(book.size).toBe(100);
    expect(book.take(line("ADDED", serviceText("s50", 50)))).toBeUndefined();
    expect(book.take<KubeObject>(line("ADDED", serviceText("s51", 51)))?.object.metadata.name).toBe("s51");
  });

  test("an answer whose echo has not come in a minute goes (its event filtered out, or covered by a list)", () => {
    let now = 0;
    const book = new EchoBook(() => now);
    book.expect(serviceText("s1", 1), obj(1));
    now = 30_000;
    book.expect(serviceText("s2", 2), obj(2));
    now = 61_000;
    book.expect(serviceText("s3", 3), obj(3));
    expect(book.size).toBe(2);
    expect(book.take(line("MODIFIED", serviceText("s1", 1)))).toBeUndefined();
    expect(book.take(line("MODIFIED", serviceText("s2", 2)))?.type).toBe("MODIFIED");
  });
});
