// The sandbox's faults (src/sandbox/faults.ts), switched at run time through `sandbox.control`: failures as a mix of 500/503/429 with
// Retry-After, added latency, 409 on writes that carry a resourceVersion, forgotten history (410 on every resume), watches dropped on a
// timer, and a resourceVersion the store has not reached (a silent watch; a list answered 504 "Too large").
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { seededRandom, startSandbox, type Sandbox } from "../../src/sandbox/index.ts";

// Raw HTTP, so every status, header and body is what the server sent.

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ name: "faulty", tooLargeWaitMs: 300 });
  await call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "f" } });
});
afterAll(() => sb?.stop());
afterEach(() => sb.control.clear());

async function call(method: string, path: string, body?: unknown, contentType = "application/json") {
  const res = await fetch(sb.url + path, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: { "content-type": contentType },
  });
  const text = await res.text();
  // A shed request's body is plain text, as kube's; every other answer is JSON.
  return { status: res.status, headers: res.headers, body: text ? (res.status === 429 ? text : JSON.parse(text)) : undefined };
}

const configMap = (name: string, data: Record<string, string> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "f" },
  data,
});

/** Reads a watch stream's events until `done` says enough or the stream ends. */
async function watchEvents(path: string, done: (events: { type: string; object: Record<string, any> }[]) => boolean = () => false) {
  const res = await fetch(sb.url + path);
  const events: { type: string; object: Record<string, any> }[] = [];
  const reader = res.body!.getReader();
  let buf = "";
  let ended = false;
  for (;;) {
    const { value, done: eof } = await reader.read();
    if (eof) {
      ended = true;
      break;
    }
    buf += new TextDecoder().decode(value);
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) events.push(JSON.parse(line));
    }
    if (done(events)) break;
  }
  if (!ended) await reader.cancel();
  return { status: res.status, events, ended };
}

describe("max in flight", () => {
  test("requests beyond the limit are shed as kube-apiserver's priority and fairness sheds them: 429, Retry-After, the PF headers, a plain-text body; watches and health hold no seat", async () => {
    sb.control.faults.delayMs = 300;
    sb.control.faults.maxInflight = 2;
    const before = sb.control.injected.throttled;
    // A watch is long-running: open while the limit is full, it is neither shed nor counted.
    const watch = await fetch(`${sb.url}/api/v1/namespaces/f/configmaps?watch=true&timeoutSeconds=1`);
    expect(watch.status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 5 }, () => fetch(`${sb.url}/api/v1/namespaces/f/configmaps`)));
    await watch.body?.cancel();
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 429, 429, 429]);
    const shed = answers.find((r) => r.status === 429)!;
    expect(await shed.text()).toBe("Too many requests, please try again later.\n");
    expect(shed.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(shed.headers.get("x-content-type-options")).toBe("nosniff");
    expect(shed.headers.get("retry-after")).toBe("1");
    expect(shed.headers.get("x-kubernetes-pf-flowschema-uid")).toMatch(/^[0-9a-f-]{36}$/);
    expect(shed.headers.get("x-kubernetes-pf-prioritylevel-uid")).toMatch(/^[0-9a-f-]{36}$/);
    expect(sb.control.injected.throttled - before).toBe(3);
    expect((await fetch(`${sb.url}/healthz`)).status).toBe(200);
    // The seats come back: one at a time, every request is served.
    for (let i = 0; i < 3; i++) expect((await fetch(`${sb.url}/api/v1/namespaces/f/configmaps`)).status).toBe(200);
  });
});

describe("fail rate", () => {
  test("fails that fraction of API requests with a mix of 500, 503 and 429 + Retry-After; discovery and health stay up", async () => {
    sb.control.faults.random = seededRandom(7);
    sb.control.faults.failRate = 1;
    const before = sb.control.injected.failures;
    const seen = new Map<number, { reason?: string; retryAfter: string | null; text?: string }>();
    for (let i = 0; i < 30; i++) {
      const res = await fetch(`${sb.url}/api/v1/namespaces/f/configmaps`);
      const text = await res.text();
      const body = res.status === 429 ? { text } : { reason: JSON.parse(text).reason };
      seen.set(res.status, { ...body, retryAfter: res.headers.get("retry-after") });
    }
    expect([...seen.keys()].sort()).toEqual([429, 500, 503]);
    expect(seen.get(500)).toMatchObject({ reason: "InternalError", retryAfter: null });
    expect(seen.get(503)).toMatchObject({ reason: "ServiceUnavailable", retryAfter: null });
    // Shed as priority and fairness sheds: plain text, not a Status (see "max in flight" below).
    expect(seen.get(429)).toEqual({ text: "Too many requests, please try again later.\n", retryAfter: "1" });
    expect(sb.control.injected.failures - before).toBe(30);
    expect((await call("GET", "/api/v1")).status).toBe(200);
    expect((await fetch(`${sb.url}/healthz`)).status).toBe(200);
  });

  test("a fraction fails about that often, and the same seed fails the same requests", async () => {
    const run = async () => {
      sb.control.faults.random = seededRandom(42);
      sb.control.faults.failRate = 0.3;
      const codes: number[] = [];
      for (let i = 0; i < 60; i++) codes.push((await call("GET", "/api/v1/namespaces/f/configmaps")).status);
      return codes;
    };
    const first = await run();
    const failed = first.filter((c) => c !== 200).length;
    expect(failed).toBeGreaterThan(6);
    expect(failed).toBeLessThan(36);
    expect(await run()).toEqual(first);
    sb.control.faults.failRate = 0;
    expect((await call("GET", "/api/v1/namespaces/f/configmaps")).status).toBe(200);
  });
});

test("latency is added to every response, discovery included", async () => {
  sb.control.faults.delayMs = 120;
  for (const path of ["/api/v1", "/api/v1/namespaces/f/configmaps"]) {
    const started = performance.now();
    expect((await call("GET", path)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
  }
});

describe("conflict rate", () => {
  test("writes that carry a resourceVersion get 409 Conflict; writes without one go through", async () => {
    const created = (await call("POST", "/api/v1/namespaces/f/configmaps", configMap("c1"))).body;
    sb.control.faults.conflictRate = 1;
    const rv = created.metadata.resourceVersion;
    const put = await call("PUT", "/api/v1/namespaces/f/configmaps/c1", { ...created, data: { a: "1" } });
    expect(put.status).toBe(409);
    expect(put.body).toMatchObject({
      reason: "Conflict",
      message:
        'Operation cannot be fulfilled on configmaps "c1": the object has been modified; please apply your changes to the latest version and try again',
    });
    const merge = await call(
      "PATCH",
      "/api/v1/namespaces/f/configmaps/c1",
      { metadata: { resourceVersion: rv }, data: { a: "2" } },
      "application/merge-patch+json",
    );
    expect(merge.status).toBe(409);
    const jsonPatch = await call(
      "PATCH",
      "/api/v1/namespaces/f/configmaps/c1",
      [{ op: "test", path: "/metadata/resourceVersion", value: rv }],
      "application/json-patch+json",
    );
    expect(jsonPatch.status).toBe(409);
    const del = await call("DELETE", "/api/v1/namespaces/f/configmaps/c1", { preconditions: { resourceVersion: rv } });
    expect(del.status).toBe(409);
    // Without a resourceVersion: no conflict.
    const { resourceVersion: _drop, ...meta } = created.metadata;
    expect((await call("PUT", "/api/v1/namespaces/f/configmaps/c1", { ...created, metadata: meta, data: { a: "3" } })).status).toBe(200);
    expect((await call("PATCH", "/api/v1/namespaces/f/configmaps/c1", { data: { a: "4" } }, "application/merge-patch+json")).status).toBe(
      200,
    );
    expect((await call("POST", "/api/v1/namespaces/f/configmaps", configMap("c2"))).status).toBe(201);
    expect(sb.control.injected.conflicts).toBeGreaterThanOrEqual(4);
    expect((await call("GET", "/api/v1/namespaces/f/configmaps/c1")).body.data).toEqual({ a: "4" });
  });
});

describe("forgotten history", () => {
  test("while on, a watch resumed from a resourceVersion ends in a 410 ERROR event and a list at an exact one is 410 Gone, as kube-apiserver answers them; lists not older than one, fresh ones and, after, resumes work", async () => {
    const rv = (await call("GET", "/api/v1/namespaces/f/configmaps")).body.metadata.resourceVersion;
    sb.control.faults.forgetHistory = true;
    const lists = sb.control.served.lists;
    // kube-apiserver's watch cache answers an expired resume with 200 and one ERROR event, then ends the stream.
    const resumed = await watchEvents(`/api/v1/namespaces/f/configmaps?watch=true&resourceVersion=${rv}`);
    expect(resumed).toMatchObject({
      status: 200,
      ended: true,
      events: [
        {
          type: "ERROR",
          object: {
            kind: "Status",
            code: 410,
            reason: "Expired",
            message: `too old resource version: ${rv} (${sb.store.resourceVersion})`,
          },
        },
      ],
    });
    for (const exact of [`resourceVersion=${rv}&resourceVersionMatch=Exact`, `resourceVersion=${rv}&limit=10`]) {
      const list = await call("GET", `/api/v1/namespaces/f/configmaps?${exact}`);
      expect({ exact, status: list.status, body: list.body }).toMatchObject({
        exact,
        status: 410,
        body: { reason: "Expired", message: `too old resource version: ${rv} (${sb.store.resourceVersion})` },
      });
    }
    // "Not older than" a resourceVersion is served from newer data: never 410 (the informer's check that the server reached its resume point is one).
    expect((await call("GET", `/api/v1/namespaces/f/configmaps?resourceVersion=${rv}`)).status).toBe(200);
    expect(
      (await call("GET", `/api/v1/namespaces/f/configmaps?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan&limit=1`)).status,
    ).toBe(200);
    expect((await call("GET", "/api/v1/namespaces/f/configmaps")).status).toBe(200);
    expect((await call("GET", "/api/v1/namespaces/f/configmaps?resourceVersion=0")).status).toBe(200);
    expect(sb.control.served.lists - lists).toBe(4); // the two 410s were not served
    sb.control.faults.forgetHistory = false;
    const back = watchEvents(`/api/v1/namespaces/f/configmaps?watch=true&resourceVersion=${sb.store.resourceVersion}`, (e) => e.length > 0);
    await call("POST", "/api/v1/namespaces/f/configmaps", configMap("after-history"));
    expect((await back).events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(["ADDED after-history"]);
  });
});

describe("a lagging watch cache", () => {
  test("while watchRetryAfterSeconds is set, a resumed watch ends in kube's 504 Too large resource version ERROR event carrying details.retryAfterSeconds; a fresh watch and, after, resumes work", async () => {
    const rv = sb.store.resourceVersion;
    sb.control.faults.watchRetryAfterSeconds = 7;
    const lagging = sb.control.injected.lagging;
    const resumed = await watchEvents(`/api/v1/namespaces/f/configmaps?watch=true&resourceVersion=${rv}`);
    // The shape kube's cacher tests assert for its watch cache's newErrWatcher(TooLargeResourceVersionError).
    expect(resumed).toMatchObject({
      status: 200,
      ended: true,
      events: [
        {
          type: "ERROR",
          object: {
            kind: "Status",
            apiVersion: "v1",
            status: "Failure",
            code: 504,
            reason: "Timeout",
            message: `Timeout: Too large resource version: ${rv}, current: ${Number(rv) - 1}`,
            details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }], retryAfterSeconds: 7 },
          },
        },
      ],
    });
    expect(resumed.events.length).toBe(1);
    expect(sb.control.injected.lagging - lagging).toBe(1);
    const fresh = watchEvents("/api/v1/namespaces/f/configmaps?watch=true", (e) =>
      e.some((x) => x.object.metadata?.name === "while-lagging"),
    );
    await call("POST", "/api/v1/namespaces/f/configmaps", configMap("while-lagging"));
    expect((await fresh).events.map((e) => e.type)).not.toContain("ERROR");
    sb.control.clear();
    expect(sb.control.faults.watchRetryAfterSeconds).toBe(0);
    const back = watchEvents(`/api/v1/namespaces/f/configmaps?watch=true&resourceVersion=${sb.store.resourceVersion}`, (e) => e.length > 0);
    await call("POST", "/api/v1/namespaces/f/configmaps", configMap("after-lagging"));
    expect((await back).events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(["ADDED after-lagging"]);
  });
});

test("watches are dropped on a timer while dropWatchesEveryMs is set, and not once it is 0", async () => {
  sb.control.faults.dropWatchesEveryMs = 100;
  const drops = sb.control.injected.drops;
  const first = await watchEvents(`/api/v1/namespaces/f/configmaps?watch=true&resourceVersion=${sb.store.resourceVersion}`);
  const second = await watchEvents(`/api/v1/namespaces/f/configmaps?watch=true&resourceVersion=${sb.store.resourceVersion}`);
  expect([first.ended, second.ended]).toEqual([true, true]);
  expect(sb.control.injected.drops - drops).toBeGreaterThanOrEqual(2);
  sb.control.faults.dropWatchesEveryMs = 0;
  const after = sb.control.injected.drops;
  // A stream that ends by its own timeout (1 s, ten periods of the old timer) was never dropped.
  const started = performance.now();
  const kept = await watchEvents(`/api/v1/namespaces/f/configmaps?watch=true&resourceVersion=${sb.store.resourceVersion}&timeoutSeconds=1`);
  expect(kept.ended).toBe(true);
  expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  expect(sb.control.injected.drops).toBe(after);
});

describe("a resourceVersion the store has not reached", () => {
  test("a watch from it is accepted (200) and stays silent: no event, no bookmark, no error, as kube's watch cache", async () => {
    const current = Number(sb.store.resourceVersion);
    // Something happens meanwhile (below the requested resourceVersion): still nothing is sent.
    const w = watchEvents(
      `/api/v1/namespaces/f/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=2&resourceVersion=${current + 100}`,
    );
    await call("POST", "/api/v1/namespaces/f/configmaps", configMap("unseen"));
    const { status, events, ended } = await w;
    expect(status).toBe(200);
    expect(ended).toBe(true); // by its timeout, 2 s: past the bookmark period and the list's 300 ms wait
    expect(events).toEqual([]);
  });

  test("a watch from just ahead carries on once the store gets there, with only the events after it", async () => {
    const ahead = Number(sb.store.resourceVersion) + 1;
    const w = watchEvents(`/api/v1/namespaces/f/configmaps?watch=true&resourceVersion=${ahead}`, (e) => e.length > 0);
    await call("POST", "/api/v1/namespaces/f/configmaps", configMap("reaches")); // takes rv `ahead`: not sent
    await call("POST", "/api/v1/namespaces/f/configmaps", configMap("after"));
    expect((await w).events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(["ADDED after"]);
  });

  test("a list at it waits, then answers 504 with Retry-After", async () => {
    const current = Number(sb.store.resourceVersion);
    const r = await call("GET", `/api/v1/namespaces/f/configmaps?resourceVersion=${current + 50}`);
    expect(r.status).toBe(504);
    expect(r.headers.get("retry-after")).toBe("1");
    expect(r.body.message).toBe(`Timeout: Too large resource version: ${current + 50}, current: ${current}`);
  });
});
