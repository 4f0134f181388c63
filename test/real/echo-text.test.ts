// A write's answer and its watch event are one text on both backends (sandbox by default, kube-apiserver with MC_BACKEND=real): what lets
// an informer take the echo of mc's own write from the answer instead of parsing it (src/kube/echoes.ts). Were the texts to differ, the
// echo would only be parsed (slower, still right); this test says when that happens.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { echoBook, type EchoBook } from "../../src/kube/echoes.ts";
import { resources, type KubeObject, type ResourceType } from "../../src/kube/index.ts";
import { BACKEND, realUnavailable, startBackend, type Backend } from "./backend.ts";

const named = (name: string) => `${name} [${BACKEND}]${realUnavailable ? ` (skipped: ${realUnavailable})` : ""}`;
let b: Backend;

beforeAll(async () => {
  if (!realUnavailable) b = await startBackend();
}, 180_000);
afterAll(async () => {
  await b?.stop();
});

/** Watches `res` in `namespace` from `from` until resourceVersion `until`: how many events the book took, and how many came. */
async function replay(res: ResourceType, namespace: string, from: string, until: string, book: EchoBook) {
  const client = b.west.client;
  let taken = 0;
  let seen = 0;
  const stream = await client.watch<KubeObject>(res, {
    namespace,
    resourceVersion: from,
    echoes: {
      take: (line) => {
        const e = book.take<KubeObject>(line);
        if (e) taken++;
        return e;
      },
      parsed: (line, event) => book.parsed(line, event.object),
    },
  });
  try {
    for await (const e of stream.events) {
      seen++;
      if (e.object.metadata.resourceVersion === until) break;
    }
  } finally {
    stream.cancel();
  }
  return { taken, seen };
}

describe.skipIf(!!realUnavailable)(named("a write's answer is its watch event's text"), () => {
  test("a created and an updated Service, a created Endpoints: each answer pairs with its event, one text", async () => {
    const client = b.west.client;
    const namespace = `echo-${Date.now() % 100_000}`;
    await client.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    const from = (await client.list(resources.service, { namespace, limit: 1 })).resourceVersion;
    const svc: KubeObject = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web-east", namespace, labels: { "mirror.linkerd.io/mirrored-service": "true" }, annotations: { a: "<b>&" } },
      spec: { ports: [{ name: "http", port: 80 }] },
    };
    // Other watches of west's Services in this process (the test cluster's stand-in controllers) may pair
    // an answer first: take its echo, or parse the echo before the answer comes and give the answer it.
    const book = echoBook(client.server);
    const before = { ...book.taken };
    const created = await client.create(resources.service, svc, { fieldManager: "mc", echo: true });
    const updated = await client.update(
      resources.service,
      { ...created, metadata: { ...created.metadata, labels: { ...created.metadata.labels, tier: "web" } } },
      { fieldManager: "mc", echo: true },
    );
    const endpoints = await client.create<KubeObject>(
      resources.endpoints,
      {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: { name: "web-east", namespace },
        subsets: [{ addresses: [{ ip: "10.1.2.3" }], ports: [{ name: "http", port: 4143 }] }],
      },
      { fieldManager: "mc", echo: true },
    );
    const s = await replay(resources.service, namespace, from, updated.metadata.resourceVersion!, book);
    expect(s.seen).toBe(2);
    const e = await replay(resources.endpoints, namespace, from, endpoints.metadata.resourceVersion!, book);
    expect(e.seen).toBe(1);
    // Each write paired once — by this watch, or another's — and nothing left waiting: no answer parsed twice.
    expect(book.taken.echoes - before.echoes + (book.taken.answers - before.answers)).toBe(3);
    // No other watch of Endpoints here: this one took that echo from the answer.
    expect(e.taken).toBe(1);
  }, 60_000);
});
