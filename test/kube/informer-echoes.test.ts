// The echo of our own write, taken from the write's answer instead of parsed: only a watch line that is the answer's very text, for an
// add or an update; anything else is parsed as before, and what is expected goes when its echo comes, when the watch passes it, on a relist.
import { afterEach, describe, expect, test } from "bun:test";
import { ExpectedEchoes } from "../../src/kube/echoes.ts";
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
  const watches: ReadableStreamDefaultController<Uint8Array>[] = [];
  const opened: Array<() => void> = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      if (req.method !== "GET") return new Response(answer, { status: req.method === "POST" ? 201 : 200 });
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
    /** Our write of `name`, answered with `text`: the answer, as the writer gets it. */
    write: async (text: string, verb: "create" | "update" = "create") => {
      answer = text;
      const obj = JSON.parse(text) as KubeObject;
      return verb === "create" ? rig.client.create(resources.service, obj) : rig.client.update(resources.service, obj);
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
    r.inf.expectEcho(answer);
    expect(r.inf.echoesExpected).toBe(1);
    const event = await r.deliver(line("ADDED", text));
    expect(r.inf.counters).toMatchObject({ events: 1, echoes: 1 });
    expect(event.type).toBe("added");
    expect(event.object.spec).toBe(answer.spec); // the answer's own object: nothing was parsed
    const { managedFields: _, ...metadata } = (JSON.parse(text) as KubeObject).metadata;
    expect(event.object).toEqual({ ...(JSON.parse(text) as KubeObject), metadata });
    expect(r.inf.cache.get("shop", "web")).toBe(event.object);
    expect(r.inf.echoesExpected).toBe(0);
    // Under tests the cache is frozen deeply, the answer's parts with it.
    expect(() => {
      (answer.spec as { ports: unknown[] }).ports.push({ port: 1 });
    }).toThrow();

    const updated = await r.write(serviceText("web", 7, 81), "update");
    r.inf.expectEcho(updated);
    const modified = await r.deliver(line("MODIFIED", serviceText("web", 7, 81)));
    expect(modified.type === "updated" && modified.old).toBe(event.object);
    expect(modified.object.spec).toBe(updated.spec);
    expect(r.inf.counters).toMatchObject({ events: 2, echoes: 2 });
  });

  test("the same object at another resourceVersion, or not byte for byte the answer, or a deletion, is parsed", async () => {
    const r = await standIn();
    const answer = await r.write(serviceText("web", 6));
    r.inf.expectEcho(answer);
    // Someone else's change of the same Service, arriving while ours is expected: parsed and told.
    const other = await r.deliver(line("MODIFIED", serviceText("web", 8, 90)));
    expect(other.object.spec).toEqual({ ports: [{ port: 90 }] });
    expect(other.object.metadata.resourceVersion).toBe("8");
    // Our resourceVersion in another encoding (keys in another order): equal data, yet parsed.
    const reordered = serviceText("web", 9).replace('"apiVersion":"v1","kind":"Service"', '"kind":"Service","apiVersion":"v1"');
    const answer9 = await r.write(serviceText("web", 9), "update");
    r.inf.expectEcho(answer9);
    const parsed = await r.deliver(line("MODIFIED", reordered));
    expect(parsed.object.spec).not.toBe(answer9.spec);
    expect(parsed.object.spec).toEqual(answer9.spec as object);
    // A deletion carrying our answer's very text is a deletion, parsed.
    const answer10 = await r.write(serviceText("web", 10), "update");
    r.inf.expectEcho(answer10);
    const deleted = await r.deliver(line("DELETED", serviceText("web", 10)));
    expect(deleted.type).toBe("deleted");
    expect(deleted.object.spec).not.toBe(answer10.spec);
    expect(r.inf.counters).toMatchObject({ events: 3, echoes: 0 });
    // What was expected and passed goes at the next bookmark.
    expect(r.inf.echoesExpected).toBe(3);
    r.push(line("BOOKMARK", '{"kind":"Service","apiVersion":"v1","metadata":{"resourceVersion":"12"}}'));
    await r.deliver(line("ADDED", serviceText("api", 13)));
    expect(r.inf.echoesExpected).toBe(0);
  });

  test("an answer whose event has come already is not expected; a relist drops what was", async () => {
    const r = await standIn();
    await r.deliver(line("ADDED", serviceText("web", 6)));
    r.inf.expectEcho(await r.write(serviceText("web", 6)));
    expect(r.inf.echoesExpected).toBe(0);

    const answer = await r.write(serviceText("api", 20));
    r.inf.expectEcho(answer);
    expect(r.inf.echoesExpected).toBe(1);
    const rewatch = r.nextWatch();
    r.setListRv("19");
    r.push(line("ERROR", '{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410}'));
    await rewatch;
    expect(r.inf.counters.lists).toBe(2);
    expect(r.inf.echoesExpected).toBe(0);
    const after = await r.deliver(line("ADDED", serviceText("api", 20)));
    expect(after.object.spec).not.toBe(answer.spec);
    expect(r.inf.counters.echoes).toBe(0);
  });
});

describe("ExpectedEchoes", () => {
  const obj = (rv: number): KubeObject => JSON.parse(serviceText(`s${rv}`, rv)) as KubeObject;

  test("never holds more than 10,000: the oldest go first", () => {
    const book = new ExpectedEchoes<KubeObject>();
    for (let rv = 1; rv <= 10_050; rv++) book.expect(obj(rv), "", serviceText(`s${rv}`, rv));
    expect(book.size).toBe(10_000);
    expect(book.take(line("ADDED", serviceText("s50", 50)))).toBeUndefined();
    expect(book.take(line("ADDED", serviceText("s51", 51)))?.object.metadata.name).toBe("s51");
  });

  test("those the watch has passed are swept as more are expected, so a book whose echoes never come stays small", () => {
    const book = new ExpectedEchoes<KubeObject>();
    // Each write expected while the watch is 100 behind it (a selector that drops every one of them).
    for (let rv = 101; rv <= 5000; rv++) book.expect(obj(rv), String(rv - 100), serviceText(`s${rv}`, rv));
    expect(book.size).toBeLessThanOrEqual(2 * 100 + 64);
    book.passed("5000");
    expect(book.size).toBe(0);
  });

  test("a resourceVersion that is not an integer is never expected", () => {
    const book = new ExpectedEchoes<KubeObject>();
    const odd = { ...obj(1), metadata: { ...obj(1).metadata, resourceVersion: "a1" } };
    book.expect(odd, "", JSON.stringify(odd));
    expect(book.size).toBe(0);
  });
});
