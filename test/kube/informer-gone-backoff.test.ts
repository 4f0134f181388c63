// An informer against a server that expires every resume relists with a growing backoff and honours Retry-After.
import { afterEach, describe, expect, test } from "bun:test";
import { connectKubeconfigText } from "../../src/kube/connect.ts";
import { Informer } from "../../src/kube/informer.ts";
import { resources } from "../../src/kube/resources.ts";
import type { KubeObject } from "../../src/kube/types.ts";
import { MAX_RETRY_AFTER_MS } from "../../src/kube/throttle.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { collectEvents, freshNamespace, nextStatus, recordingLog, sandboxWithClient, service, summary } from "./helpers.ts";

// An informer against a server that expires every resume (the sandbox's forget-history fault: a
// watch from a resourceVersion ends in a 410 ERROR event, as kube-apiserver's watch cache answers
// when its history is short) relists with a growing backoff while the 410s keep coming — a list
// that succeeds does not reset it — and waits at least what a Retry-After asks, the header's or a
// watch ERROR event's details.retryAfterSeconds (the lagging-watch-cache fault). LISTs are counted
// by the server (the sandbox's served counters); time is a ManualClock, moved on each backoff.

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("relists after 410 Gone", () => {
  test("back off while 410s keep coming (one LIST per backoff, delays doubling to the cap), and end with the first watch that delivers an event", async () => {
    const { sb, client } = await sandboxWithClient();
    cleanups.push(() => sb.stop());
    const ns = await freshNamespace(client);
    await client.create(resources.service, service("a", ns));
    const clock = new ManualClock();
    const log = recordingLog();
    const inf = new Informer<KubeObject>({
      client,
      resource: resources.service,
      namespace: ns,
      clock,
      log,
      backoff: { initialMs: 500, maxMs: 4000, jitter: 0 },
    });
    cleanups.push(() => inf.stop());
    sb.control.faults.forgetHistory = true;
    const lists = sb.control.served.lists;
    const delays: number[] = [];
    const listsPerBackoff: number[] = [];
    for (let i = 0; i < 6; i++) {
      const before = sb.control.served.lists;
      const next = nextStatus(inf, (s) => s.state === "backoff", `backoff ${i + 1}`);
      if (i === 0) inf.start();
      const status = await next;
      if (status.state !== "backoff") throw new Error("unreachable");
      expect(status.error.code).toBe(410);
      delays.push(status.delayMs);
      listsPerBackoff.push(sb.control.served.lists - before);
      clock.advance(status.delayMs);
    }
    // The first 410 relists at once (a routine expiry); from the second, each relist waits longer.
    // It was 500 ms every time: ~2 LISTs/s of every object, for as long as the server expires resumes.
    expect(delays).toEqual([500, 1000, 2000, 4000, 4000, 4000]);
    expect(listsPerBackoff).toEqual([2, 1, 1, 1, 1, 1]);
    expect(sb.control.served.lists - lists).toBe(7);
    // One line when the streak starts, not a warning and a "recovered" per relist.
    expect(log.at("warn")).toHaveLength(1);
    expect(log.at("info").filter((m) => m.includes("recovered after"))).toEqual([]);

    // History back: the next relist's watch holds, and its first event ends the streak.
    sb.control.faults.forgetHistory = false;
    const watching = nextStatus(inf, (s) => s.state === "watching", "a watch that holds");
    clock.advance(4000);
    await watching;
    const added = collectEvents(inf, (e) => e.length === 1, "an event on the watch");
    await client.create(resources.service, service("b", ns));
    expect(summary(await added)).toEqual([`added ${ns}/b`]);
    expect(log.at("info").filter((m) => m.includes("recovered after"))).toEqual([
      `services in ${ns} on east recovered after 6 failed attempts`,
    ]);
    // A later single expiry (the watch re-opened after its inactivity timeout) relists at once again, as a routine one.
    sb.control.faults.forgetHistory = true;
    const relisting = nextStatus(inf, (s) => s.state === "listing" || s.state === "backoff", "the relist after one expiry");
    clock.advance(300_000);
    expect((await relisting).state).toBe("listing");
  });
});

describe("Retry-After", () => {
  test("an informer waits at least what a 503's Retry-After asks, not its shorter backoff", async () => {
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () =>
        Response.json(
          { kind: "Status", apiVersion: "v1", status: "Failure", reason: "ServiceUnavailable", code: 503, message: "busy" },
          { status: 503, headers: { "retry-after": "7" } },
        ),
    });
    cleanups.push(() => server.stop(true));
    const kubeconfig = `apiVersion: v1\nkind: Config\nclusters: [{ name: t, cluster: { server: "http://127.0.0.1:${server.port}" } }]\nusers: [{ name: u, user: {} }]\ncontexts: [{ name: t, context: { cluster: t, user: u } }]\ncurrent-context: t\n`;
    const client = await connectKubeconfigText(kubeconfig, "busy", { name: "east", timeoutMs: 5000 });
    const clock = new ManualClock();
    const inf = new Informer<KubeObject>({
      client,
      resource: resources.service,
      clock,
      log: recordingLog(),
      backoff: { initialMs: 500, maxMs: 30_000, jitter: 0 },
    });
    cleanups.push(() => inf.stop());
    const first = nextStatus(inf, (s) => s.state === "backoff", "the first backoff");
    inf.start();
    const status = await first;
    if (status.state !== "backoff") throw new Error("unreachable");
    expect(status.error.code).toBe(503);
    expect(status.delayMs).toBe(7000);
  });
  test("any watch ERROR event carrying details.retryAfterSeconds is waited out, not only a 504", async () => {
    const status = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      reason: "TooManyRequests",
      code: 429,
      message: "busy",
      details: { retryAfterSeconds: 7 },
    };
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (req) =>
        new URL(req.url).searchParams.get("watch") === "true"
          ? new Response(`${JSON.stringify({ type: "ERROR", object: status })}\n`)
          : Response.json({ kind: "ServiceList", apiVersion: "v1", metadata: { resourceVersion: "5" }, items: [] }),
    });
    cleanups.push(() => server.stop(true));
    const kubeconfig = `apiVersion: v1\nkind: Config\nclusters: [{ name: t, cluster: { server: "http://127.0.0.1:${server.port}" } }]\nusers: [{ name: u, user: {} }]\ncontexts: [{ name: t, context: { cluster: t, user: u } }]\ncurrent-context: t\n`;
    const client = await connectKubeconfigText(kubeconfig, "busy", { name: "east", timeoutMs: 5000 });
    const inf = new Informer<KubeObject>({
      client,
      resource: resources.service,
      clock: new ManualClock(),
      log: recordingLog(),
      backoff: { initialMs: 500, maxMs: 30_000, jitter: 0 },
    });
    cleanups.push(() => inf.stop());
    const first = nextStatus(inf, (s) => s.state === "backoff", "the backoff after the ERROR event");
    inf.start();
    const backoff = await first;
    if (backoff.state !== "backoff") throw new Error("unreachable");
    expect(backoff.error.code).toBe(429);
    expect(backoff.delayMs).toBe(7000);
  });

  test("a watch ERROR event's details.retryAfterSeconds is waited out as a response's Retry-After (the sandbox's lagging watch cache: 504 asking 7 s), then the informer relists", async () => {
    const { sb, client } = await sandboxWithClient();
    cleanups.push(() => sb.stop());
    const ns = await freshNamespace(client);
    await client.create(resources.service, service("a", ns));
    const clock = new ManualClock();
    const log = recordingLog();
    const inf = new Informer<KubeObject>({
      client,
      resource: resources.service,
      namespace: ns,
      clock,
      log,
      backoff: { initialMs: 500, maxMs: 30_000, jitter: 0 },
    });
    cleanups.push(() => inf.stop());
    // The list is served; the watch from its resourceVersion meets the lagging cache.
    sb.control.faults.watchRetryAfterSeconds = 7;
    const lagging = nextStatus(inf, (s) => s.state === "backoff", "the backoff after the ERROR event");
    inf.start();
    await inf.synced;
    const status = await lagging;
    if (status.state !== "backoff") throw new Error("unreachable");
    expect(status.error.code).toBe(504);
    expect(status.error.reason).toBe("Timeout");
    expect(status.delayMs).toBe(7000); // its own backoff would be 500 ms
    expect(sb.control.injected.lagging).toBe(1);
    // Then a relist (the server is behind the informer's resourceVersion), which sees what changed meanwhile.
    sb.control.faults.watchRetryAfterSeconds = 0;
    const lists = sb.control.served.lists;
    await client.create(resources.service, service("b", ns));
    const added = collectEvents(inf, (e) => e.length >= 1, "the event of the relist");
    clock.advance(6999);
    expect(clock.pendingDelays()[0]).toBe(1);
    expect(sb.control.served.lists).toBe(lists);
    clock.advance(1);
    expect(summary(await added)).toEqual([`added ${ns}/b`]);
    expect(sb.control.served.lists - lists).toBe(1);
  });

  test("a retry hint in a watch ERROR event is capped as a Retry-After is (an hour asked, 60 s waited)", async () => {
    const { sb, client } = await sandboxWithClient();
    cleanups.push(() => sb.stop());
    const ns = await freshNamespace(client);
    const clock = new ManualClock();
    const inf = new Informer<KubeObject>({
      client,
      resource: resources.service,
      namespace: ns,
      clock,
      log: recordingLog(),
      backoff: { initialMs: 500, maxMs: 30_000, jitter: 0 },
    });
    cleanups.push(() => inf.stop());
    sb.control.faults.watchRetryAfterSeconds = 3600;
    const lagging = nextStatus(inf, (s) => s.state === "backoff", "the backoff after the ERROR event");
    inf.start();
    const status = await lagging;
    if (status.state !== "backoff") throw new Error("unreachable");
    expect(status.error.code).toBe(504);
    expect(status.delayMs).toBe(MAX_RETRY_AFTER_MS);
  });
});
