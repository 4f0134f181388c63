// The request layer under flow control: a 429's Retry-After waited out, and the client-side QPS bucket.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { KubeClient } from "../../src/kube/client.ts";
import { connectKubeconfigText } from "../../src/kube/connect.ts";
import { KubeError } from "../../src/kube/kube-error.ts";
import { resources } from "../../src/kube/resources.ts";
import { inflightWindow, RETRY_AFTER_ATTEMPTS, tokenBucket } from "../../src/kube/throttle.ts";
import { seededRandom, type Sandbox } from "../../src/sandbox/index.ts";
import { sandboxWithClient } from "./helpers.ts";

// The request layer under flow control (src/kube/throttle.ts): a 429 with Retry-After — how
// kube-apiserver's priority and fairness sheds load — is waited out and sent again, up to
// client-go's 10 retries, a caller's abort ends the wait; a client's --kube-api-qps bucket paces
// its requests after the burst; a connection's window of requests in flight narrows at each 429
// and widens again with answers, so a controller's many workers wait at home, not in a herd.

let sb: Sandbox;
let client: KubeClient;
beforeAll(async () => {
  ({ sb, client } = await sandboxWithClient());
});
afterAll(() => sb.stop());
afterEach(() => sb.control.clear());

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as KubeError,
  );

/** A server that sheds every request with 429 and `Retry-After: 0`, counting them. */
function alwaysShedding() {
  let seen = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => {
      seen++;
      return new Response("Too many requests, please try again later.\n", {
        status: 429,
        headers: { "retry-after": "0", "content-type": "text/plain; charset=utf-8" },
      });
    },
  });
  const kubeconfig = `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${server.port}"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n`;
  return { server, kubeconfig, seen: () => seen };
}

describe("429 with Retry-After", () => {
  test("a shed request is sent again after the wait asked for, and succeeds: the caller sees no error", async () => {
    sb.control.faults.random = seededRandom(8); // sheds the first two requests, serves the third
    sb.control.faults.failWith = [429];
    sb.control.faults.failRate = 0.5;
    const t = performance.now();
    const listed = await client.list(resources.namespace);
    expect(listed.items.length).toBeGreaterThan(0);
    expect(sb.control.injected.failures).toBe(2);
    expect(performance.now() - t).toBeGreaterThanOrEqual(1950); // Retry-After: 1, twice
  });

  test("a watch refused with 429 is opened again after the wait", async () => {
    sb.control.faults.random = seededRandom(7); // sheds the first request
    sb.control.faults.failWith = [429];
    sb.control.faults.failRate = 0.5;
    const before = sb.control.injected.failures;
    const stream = await client.watch(resources.namespace, { timeoutSeconds: 1 });
    stream.cancel();
    expect(sb.control.injected.failures - before).toBe(1);
  });

  test(`after ${RETRY_AFTER_ATTEMPTS} retries it fails as TooManyRequests, retryable, with the server's hint`, async () => {
    const shedding = alwaysShedding();
    try {
      const c = await connectKubeconfigText(shedding.kubeconfig, "shedding", { name: "busy" });
      const err = await failure(c.get(resources.namespace, undefined, "default"));
      expect(err).toBeInstanceOf(KubeError);
      expect(err!.message).toBe("get namespaces default on busy: 429 TooManyRequests");
      expect(err!.isRetryable).toBe(true);
      expect(err!.retryAfterMs).toBe(0);
      expect(shedding.seen()).toBe(RETRY_AFTER_ATTEMPTS + 1);
    } finally {
      await shedding.server.stop(true);
    }
  });

  test("a caller's abort during the wait ends it as Aborted", async () => {
    sb.control.faults.failWith = [429];
    sb.control.faults.failRate = 1;
    const ac = new AbortController();
    const pending = failure(client.get(resources.namespace, undefined, "default", { signal: ac.signal }));
    setTimeout(() => ac.abort(), 100);
    const t = performance.now();
    const err = await pending;
    expect(err?.reason).toBe("Aborted");
    expect(performance.now() - t).toBeLessThan(900);
  });
});

describe("--kube-api-qps / --kube-api-burst", () => {
  test("a limited client sends its burst at once, then paces at qps; qps 0 is no limit", async () => {
    const limited = client.limited({ qps: 20, burst: 3 });
    const t = performance.now();
    await Promise.all(Array.from({ length: 9 }, () => limited.get(resources.namespace, undefined, "default")));
    const took = performance.now() - t;
    expect(took).toBeGreaterThanOrEqual(6 * 50 - 10); // 3 at once, then 6 at 20/s
    expect(client.limited({ qps: 0, burst: 100 })).toBe(client);
  });

  test("the bucket refills at qps, never above burst: after a long pause only `burst` go at once", async () => {
    let now = 0;
    const bucket = tokenBucket({ qps: 10, burst: 2 }, () => now);
    now = 60_000; // a minute idle refills 2 tokens, not 600
    const done: number[] = [];
    const takes = [1, 2, 3].map((i) => bucket.take().then(() => done.push(i)));
    await Promise.resolve();
    await Promise.resolve();
    expect(done).toEqual([1, 2]);
    await Promise.all(takes); // the third after 1/qps = 100 ms
    expect(done).toEqual([1, 2, 3]);
  });
});

describe("the window of requests in flight", () => {
  /** Takes `n` slots; resolves with how many were granted at once. */
  async function granted(w: ReturnType<typeof inflightWindow>, n: number): Promise<{ at: number; all: Promise<undefined[]> }> {
    let at = 0;
    const all = Promise.all(Array.from({ length: n }, () => w.acquire().then(() => void at++)));
    for (let i = 0; i < 5; i++) await Promise.resolve();
    return { at, all };
  }

  test("unlimited until a 429; then halved from what was in flight, and the rest wait in order", async () => {
    const w = inflightWindow();
    const first = await granted(w, 8);
    expect(first.at).toBe(8);
    w.release("shed"); // 8 in flight when the server said no: 4 may be
    expect(w.width).toBe(4);
    const more = await granted(w, 2);
    expect(more.at).toBe(0); // 7 still in flight, above 4
    for (let i = 0; i < 4; i++) w.release("answered");
    await first.all;
    expect((await granted(w, 0)).at).toBe(0);
    await more.all; // 3 in flight once four answered: both waiting went, in order
  });

  test("each 429 halves it again, down to one; a window of answers widens it by one; past the maximum it is unlimited", async () => {
    const w = inflightWindow(3);
    await (await granted(w, 4)).all;
    w.release("shed");
    w.release("shed");
    w.release("shed");
    expect(w.width).toBe(1);
    w.release("answered"); // one answer at width 1: 2
    expect(w.width).toBe(2);
    for (const width of [2, 3]) {
      for (let i = 0; i < width; i++) {
        await w.acquire();
        w.release("answered");
      }
    }
    expect(w.width).toBe(Number.POSITIVE_INFINITY);
  });

  test("a caller's abort while waiting takes it out of the line", async () => {
    const w = inflightWindow();
    await w.acquire();
    await w.acquire();
    w.release("shed"); // width 1, one in flight
    const abort = new AbortController();
    const waiting = w.acquire(abort.signal).then(
      () => "granted",
      () => "aborted",
    );
    const next = w.acquire().then(() => "granted");
    abort.abort(new Error("stop"));
    expect(await waiting).toBe("aborted");
    w.release("answered");
    expect(await next).toBe("granted");
  });
});
