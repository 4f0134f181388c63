// The Informer against the sandbox: list, watch, the cache and its events.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { KubeClient } from "../../src/kube/client.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { Informer, type InformerOptions } from "../../src/kube/informer.ts";
import { resources } from "../../src/kube/resources.ts";
import type { KubeObject } from "../../src/kube/types.ts";
import type { Sandbox } from "../../src/sandbox/index.ts";
import { collectEvents, freshNamespace, nextStatus, recordingLog, sandboxWithClient, service, summary, within } from "./helpers.ts";

let sb: Sandbox;
let client: KubeClient;
const running: Informer[] = [];

beforeAll(async () => {
  ({ sb, client } = await sandboxWithClient());
});
afterAll(async () => {
  await Promise.all(running.map((i) => i.stop()));
  await sb.stop();
});

function informer(opts: Partial<InformerOptions<KubeObject>> & { namespace?: string }) {
  const inf = new Informer<KubeObject>({ client, resource: resources.service, log: recordingLog(), ...opts });
  running.push(inf);
  return inf;
}

describe("Informer against the sandbox", () => {
  test("lists what exists before synced resolves, then delivers add, update and delete events", async () => {
    const ns = await freshNamespace(client);
    await client.create(resources.service, service("a", ns));
    await client.create(resources.service, service("b", ns));
    const inf = informer({ namespace: ns });
    const initial = collectEvents(inf, (e) => e.length === 2);
    const watching = nextStatus(inf, (s) => s.state === "watching");
    inf.start();
    await within(inf.synced, "synced");
    expect(summary(await initial)).toEqual([`added ${ns}/a`, `added ${ns}/b`]);
    expect(inf.cache.keys()).toEqual([`${ns}/a`, `${ns}/b`]);
    await watching;
    const later = collectEvents(inf, (e) => e.length === 3);
    await client.create(resources.service, service("c", ns));
    await client.patch(resources.service, ns, "a", { metadata: { labels: { tier: "web" } } });
    await client.delete(resources.service, ns, "b");
    const events = await later;
    expect(summary(events)).toEqual([`added ${ns}/c`, `updated ${ns}/a`, `deleted ${ns}/b`]);
    const updated = events[1]!;
    expect(updated.type === "updated" && updated.old.metadata.labels?.tier).toBeUndefined();
    expect(inf.cache.get(ns, "a")?.metadata.labels).toEqual({ tier: "web" });
    expect(inf.cache.get(ns, "b")).toBeUndefined();
    expect(inf.counters.lists).toBe(1);
  });

  test("a namespace and label selector scope the list, the watch and the cache", async () => {
    const ns = await freshNamespace(client);
    const other = await freshNamespace(client);
    await client.create(resources.service, service("in", ns, { "mirror.linkerd.io/exported": "true" }));
    await client.create(resources.service, service("unlabelled", ns));
    await client.create(resources.service, service("elsewhere", other, { "mirror.linkerd.io/exported": "true" }));
    const inf = informer({ namespace: ns, labelSelector: "mirror.linkerd.io/exported=true" }).start();
    await within(inf.synced, "synced");
    expect(inf.cache.keys()).toEqual([`${ns}/in`]);
    const added = collectEvents(inf, (e) => e.length === 1);
    await client.create(resources.service, service("ignored", other, { "mirror.linkerd.io/exported": "true" }));
    await client.create(resources.service, service("late", ns, { "mirror.linkerd.io/exported": "true", tier: "db" }));
    expect(summary(await added)).toEqual([`added ${ns}/late`]);
    expect(inf.cache.list("tier=db").map((s) => s.metadata.name)).toEqual(["late"]);
    expect(inf.cache.list().length).toBe(2);
  });

  test("cached objects are frozen and carry no managedFields", async () => {
    const ns = await freshNamespace(client);
    await client.create(resources.service, service("a", ns));
    const inf = informer({ namespace: ns }).start();
    await within(inf.synced, "synced");
    const obj = inf.cache.get(ns, "a")!;
    expect(obj.metadata.managedFields).toBeUndefined();
    expect(() => {
      (obj.metadata as { name: string }).name = "changed";
    }).toThrow();
  });

  test("a handler that throws is logged and the stream keeps delivering", async () => {
    const ns = await freshNamespace(client);
    const log = recordingLog();
    const inf = informer({ namespace: ns, log });
    inf.on(() => {
      throw new Error("handler bug");
    });
    inf.on(async () => {
      throw new Error("async handler bug");
    });
    inf.start();
    await within(inf.synced, "synced");
    const two = collectEvents(inf, (e) => e.length === 2);
    await client.create(resources.service, service("a", ns));
    await client.create(resources.service, service("b", ns));
    expect(summary(await two)).toEqual([`added ${ns}/a`, `added ${ns}/b`]);
    expect(log.at("error").filter((m) => m.includes("handler bug")).length).toBe(4);
  });

  test("after a dropped stream it resumes from its resourceVersion: no relist, nothing missed", async () => {
    const ns = await freshNamespace(client);
    const clock = new ManualClock();
    const log = recordingLog();
    await client.create(resources.service, service("a", ns));
    const inf = informer({ namespace: ns, clock, log, backoff: { initialMs: 100, jitter: 0 } });
    const watching = nextStatus(inf, (s) => s.state === "watching", "first watch");
    inf.start();
    await watching;
    const backoff = nextStatus(inf, (s) => s.state === "backoff", "backoff after the drop");
    sb.control.dropWatches();
    expect(await backoff).toMatchObject({ attempt: 1, delayMs: 100 });
    // Changes while no watch is open.
    await client.create(resources.service, service("b", ns));
    await client.delete(resources.service, ns, "a");
    const events = collectEvents(inf, (e) => e.length === 2, "the missed events");
    clock.advance(100);
    expect(summary(await events)).toEqual([`added ${ns}/b`, `deleted ${ns}/a`]);
    expect(inf.counters).toMatchObject({ lists: 1, watches: 2, gone: 0 });
    expect(log.at("warn")).toEqual([expect.stringContaining(`watch services in ${ns} on east`)]);
    expect(log.at("info")).toEqual([`services in ${ns} on east recovered after 1 failed attempt`]);
  });

  test("after a forced 410 it relists and emits the differences, deletes of what vanished included", async () => {
    const ns = await freshNamespace(client);
    const clock = new ManualClock();
    for (const n of ["keep", "change", "vanish"]) await client.create(resources.service, service(n, ns));
    const inf = informer({ namespace: ns, clock, backoff: { initialMs: 50, jitter: 0 } });
    const watching = nextStatus(inf, (s) => s.state === "watching");
    inf.start();
    await watching;
    const backoff = nextStatus(inf, (s) => s.state === "backoff");
    sb.control.dropWatches();
    await backoff;
    await client.patch(resources.service, ns, "change", { metadata: { labels: { v: "2" } } });
    await client.delete(resources.service, ns, "vanish");
    await client.create(resources.service, service("new", ns));
    sb.control.forgetHistory();
    const diff = collectEvents(inf, (e) => e.length === 3, "the relist's differences");
    const rewatching = nextStatus(inf, (s) => s.state === "watching", "watch after relist");
    clock.advance(50);
    const events = await diff;
    expect(summary(events).sort()).toEqual([`added ${ns}/new`, `deleted ${ns}/vanish`, `updated ${ns}/change`]);
    await rewatching;
    expect(inf.counters).toMatchObject({ lists: 2, gone: 1 });
    expect(inf.cache.keys()).toEqual([`${ns}/change`, `${ns}/keep`, `${ns}/new`]);
    expect(inf.cache.get(ns, "change")?.metadata.labels).toEqual({ v: "2" });
  });

  test("a watch that goes silent is re-opened after the inactivity timeout, without a relist", async () => {
    const quiet = await sandboxWithClient({ bookmarkMs: 3_600_000 });
    const clock = new ManualClock();
    const inf = new Informer<KubeObject>({
      client: quiet.client,
      resource: resources.service,
      clock,
      inactivityTimeoutMs: 10_000,
      log: recordingLog(),
    });
    try {
      const first = nextStatus(inf, (s) => s.state === "watching");
      inf.start();
      await first;
      const second = nextStatus(inf, (s) => s.state === "watching", "the re-opened watch");
      clock.advance(9_999);
      expect(inf.counters.watches).toBe(1);
      clock.advance(1);
      await second;
      expect(inf.counters).toMatchObject({ watches: 2, lists: 1, failures: 0 });
    } finally {
      await inf.stop();
      await quiet.sb.stop();
    }
  });

  test("stop ends the watch and the loop", async () => {
    const ns = await freshNamespace(client);
    const inf = informer({ namespace: ns });
    const watching = nextStatus(inf, (s) => s.state === "watching");
    inf.start();
    await watching;
    const stopped = nextStatus(inf, (s) => s.state === "stopped");
    await within(inf.stop(), "stop");
    await stopped;
    let events = 0;
    inf.on(() => void events++);
    await client.create(resources.service, service("after", ns));
    await client.get(resources.service, ns, "after"); // a round trip after the write
    expect(events).toBe(0);
    expect(inf.counters.watches).toBe(1);
  });

  test("keys of changed objects feed a work queue", async () => {
    const ns = await freshNamespace(client);
    const inf = informer({ namespace: ns });
    const keys: string[] = [];
    const two = collectEvents(inf, (e) => e.length === 2);
    inf.onKey((k) => keys.push(k));
    inf.start();
    await within(inf.synced, "synced");
    await client.create(resources.service, service("a", ns));
    await client.delete(resources.service, ns, "a");
    await two;
    expect(keys).toEqual([`${ns}/a`, `${ns}/a`]);
  });
});
