// A server whose history went backwards (restarted empty on the same address, as after an etcd
// restore): the informer must notice and relist, not keep objects that no longer exist.
import { expect, test } from "bun:test";
import type { KubeClient } from "../../src/kube/client.ts";
import { Informer, type InformerOptions } from "../../src/kube/informer.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { resources } from "../../src/kube/resources.ts";
import type { KubeObject } from "../../src/kube/types.ts";
import { startSandbox } from "../../src/sandbox/index.ts";
import { collectEvents, freshNamespace, nextStatus, recordingLog, sandboxWithClient, service, summary } from "./helpers.ts";

/** east with `n` services in one namespace and enough other writes that its resourceVersion is well ahead of a fresh server's. */
async function busyEast(n: number) {
  const { sb, client } = await sandboxWithClient();
  const ns = await freshNamespace(client, "old");
  for (let i = 0; i < n; i++) await client.create(resources.service, service(`svc-${i}`, ns));
  const other = await freshNamespace(client, "noise");
  for (let i = 0; i < 40; i++) {
    await client.create(resources.configMap, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `c${i}`, namespace: other } });
  }
  return { sb, client, ns };
}

/** An informer of the services in `ns` with no periodic list (only what the test does can make it relist), fast retries unless told. */
function servicesIn(client: KubeClient, ns: string, log: ReturnType<typeof recordingLog>, more: Partial<InformerOptions<KubeObject>> = {}) {
  return new Informer<KubeObject>({
    client,
    resource: resources.service,
    namespace: ns,
    log,
    backoff: { initialMs: 1, maxMs: 5, jitter: 0 },
    relistIntervalMs: 0,
    ...more,
  });
}

/** A stand-in API server answering with `fetch`, and an informer of its services (named east; no periodic relist, fast retries). */
async function standIn(fetch: (req: Request) => Response) {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch });
  const port = server.port;
  const { connectKubeconfigText } = await import("../../src/kube/connect.ts");
  const kubeconfig = `apiVersion: v1
kind: Config
clusters: [{ name: t, cluster: { server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true } }]
users: [{ name: u, user: {} }]
contexts: [{ name: t, context: { cluster: t, user: u } }]
current-context: t
`;
  const client = await connectKubeconfigText(kubeconfig, "test", { name: "east" });
  const log = recordingLog();
  const inf = new Informer<KubeObject>({
    client,
    resource: resources.service,
    log,
    backoff: { initialMs: 1, maxMs: 5, jitter: 0 },
    relistIntervalMs: 0,
  });
  return { server, inf, log };
}

test("a server restarted empty, then written to: the informer relists (the resume point is not reached, or an event is older than the last seen) and drops what is gone", async () => {
  const { sb, client, ns } = await busyEast(5);
  const log = recordingLog();
  const inf = servicesIn(client, ns, log);
  let restarted: Awaited<ReturnType<typeof startSandbox>> | undefined;
  try {
    const watching = nextStatus(inf, (s) => s.state === "watching", "the first watch"); // the restart below breaks a watch: see the next test
    inf.start();
    await inf.synced;
    await watching;
    expect(inf.cache.size).toBe(5);
    const seenRv = Number(inf.resourceVersion);
    await sb.stop();
    restarted = await startSandbox({ name: "east", port: sb.port, tooLargeWaitMs: 100 });
    expect(Number(restarted.store.resourceVersion)).toBeLessThan(seenRv);
    const events = collectEvents(
      inf,
      (e) => e.filter((x) => x.type === "deleted").length === 5 && e.some((x) => x.type === "added"),
      "the relist after a new server",
    );
    // The same client reaches the new server: it listens where the old one did.
    await client.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
    await client.create(resources.service, service("fresh", ns));
    expect(summary(await events).sort()).toEqual([...[0, 1, 2, 3, 4].map((i) => `deleted ${ns}/svc-${i}`), `added ${ns}/fresh`].sort());
    expect([...inf.cache.keys()]).toEqual([`${ns}/fresh`]);
    expect(log.at("warn").some((m) => m.includes("history went backwards"))).toBe(true);
  } finally {
    await inf.stop();
    await restarted?.stop();
  }
}, 20_000);

test("a server that went away and came back restored, nothing written on it (its watch from the old resourceVersion is silent, as kube's): the informer relists, drops what is gone and reports a reset", async () => {
  const { sb, client, ns } = await busyEast(3);
  const log = recordingLog();
  // No periodic list: only the relist after the lost connection can notice (D178).
  const inf = servicesIn(client, ns, log);
  let restarted: Awaited<ReturnType<typeof startSandbox>> | undefined;
  try {
    // Stop the server only once the watch is open: a restore between the list and the first watch is
    // another case (that watch is not a resume, so nothing confirms it; client-go's list-then-watch has it too).
    const watching = nextStatus(inf, (s) => s.state === "watching", "the first watch");
    inf.start();
    await inf.synced;
    await watching;
    const seenRv = inf.resourceVersion;
    const deletions = collectEvents(
      inf,
      (e) => e.filter((x) => x.type === "deleted").length === 3,
      "deletions after the confirmation failed",
    );
    const reset = nextStatus(inf, (s) => s.state === "reset", "the reset status");
    const refused = nextStatus(inf, (s) => s.state === "backoff" && /refused/.test(s.error.message), "a refused attempt");
    await sb.stop();
    await refused; // the server is gone for a while, as a restore takes (a resume straight after is the stand-in's case below)
    restarted = await startSandbox({ name: "east", port: sb.port, tooLargeWaitMs: 100 });
    expect(summary(await deletions).sort()).toEqual([0, 1, 2].map((i) => `deleted ${ns}/svc-${i}`));
    expect(await reset).toEqual({ state: "reset", before: seenRv, resourceVersion: restarted.store.resourceVersion });
    expect(inf.cache.size).toBe(0);
    expect(log.at("warn")).toContain(
      `services in ${ns} on east: listed at resourceVersion ${restarted.store.resourceVersion}, older than ${seenRv} already seen (the server's history went backwards); taking the list as the truth`,
    );
  } finally {
    await inf.stop();
    await restarted?.stop();
  }
}, 20_000);

test("a server that went away and came back restored, its resourceVersion already past the one last seen (no resume check can tell): the informer lists afresh and drops what only the lost history had", async () => {
  const { sb, client, ns } = await busyEast(3);
  const clock = new ManualClock();
  const log = recordingLog();
  const inf = servicesIn(client, ns, log, { clock, backoff: { initialMs: 1_000, maxMs: 1_000, jitter: 0 } });
  let restarted: Awaited<ReturnType<typeof startSandbox>> | undefined;
  try {
    const watching = nextStatus(inf, (s) => s.state === "watching", "the first watch");
    inf.start();
    await watching;
    const seenRv = Number(inf.resourceVersion);
    const ended = nextStatus(inf, (s) => s.state === "backoff", "the backoff after the stop");
    await sb.stop();
    await ended;
    const refused = nextStatus(inf, (s) => s.state === "backoff" && /refused/.test(s.error.message), "a refused attempt");
    clock.advance(1_000);
    await refused;
    // Restored (here: empty) and written to past the old resourceVersion while the informer waits.
    restarted = await startSandbox({ name: "east", port: sb.port });
    await client.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
    await client.create(resources.service, service("fresh", ns));
    for (let i = 0; Number(restarted.store.resourceVersion) <= seenRv + 5; i++) {
      await client.create(resources.configMap, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `after-${i}`, namespace: ns } });
    }
    const events = collectEvents(
      inf,
      (e) => e.filter((x) => x.type === "deleted").length === 3 && e.some((x) => x.type === "added"),
      "the relist's differences",
    );
    clock.advance(1_000);
    expect(summary(await events).sort()).toEqual([...[0, 1, 2].map((i) => `deleted ${ns}/svc-${i}`), `added ${ns}/fresh`].sort());
    expect([...inf.cache.keys()]).toEqual([`${ns}/fresh`]);
    expect(inf.counters.lists).toBe(2);
  } finally {
    await inf.stop();
    await restarted?.stop();
  }
}, 20_000);

test("a resume is confirmed with a one-item NotOlderThan list at the resume point; kube's 504 there (its watch would stay silent) makes the informer relist", async () => {
  // kube-apiserver v1.37.2 restored from an older etcd copy, as measured: a watch from 100 is accepted and silent;
  // a list at 100 with resourceVersionMatch=NotOlderThan answers 504 Too large resource version (Retry-After 1).
  const requests: string[] = [];
  let restored = false;
  const { server, inf } = await standIn((req) => {
    const q = new URL(req.url).searchParams;
    requests.push(
      [...q]
        .filter(([k]) => k !== "timeoutSeconds" && k !== "allowWatchBookmarks")
        .map(([k, v]) => `${k}=${v}`)
        .join("&"),
    );
    if (q.get("watch") === "true") {
      if (!restored) {
        restored = true; // the first watch ends (the server went away): the restored one answers next
        return new Response("\n");
      }
      return new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode("\n")) })); // accepted, silent
    }
    if (q.get("resourceVersion") === "100") {
      const status = {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "Timeout: Too large resource version: 100, current: 5",
        reason: "Timeout",
        details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }], retryAfterSeconds: 1 },
        code: 504,
      };
      return Response.json(status, { status: 504, headers: { "retry-after": "1" } });
    }
    return Response.json({
      kind: "ServiceList",
      apiVersion: "v1",
      metadata: { resourceVersion: requests.length === 1 ? "100" : "5" },
      items: [],
    });
  });
  try {
    const reset = nextStatus(inf, (s) => s.state === "reset", "the reset status");
    inf.start();
    expect(await reset).toEqual({ state: "reset", before: "100", resourceVersion: "5" });
    expect(requests.slice(0, 4)).toEqual([
      "",
      "watch=true&resourceVersion=100",
      "limit=1&resourceVersion=100&resourceVersionMatch=NotOlderThan",
      "",
    ]);
  } finally {
    await inf.stop();
    server.stop(true);
  }
});

test("a periodic fresh list on a healthy watch emits nothing when nothing changed", async () => {
  const { sb, client, ns } = await busyEast(2);
  const inf = new Informer<KubeObject>({ client, resource: resources.service, namespace: ns, log: recordingLog(), relistIntervalMs: 100 });
  const seen: string[] = [];
  inf.on((e) => void seen.push(`${e.type} ${e.key}`));
  try {
    inf.start();
    await inf.synced;
    const twoMoreLists = new Promise<void>((resolve) => {
      const start = inf.counters.lists;
      const off = inf.onStatus((s) => {
        if (s.state === "watching" && inf.counters.lists >= start + 2) {
          off();
          resolve();
        }
      });
    });
    await twoMoreLists;
    expect(seen.sort()).toEqual([`added ${ns}/svc-0`, `added ${ns}/svc-1`]);
  } finally {
    await inf.stop();
    await sb.stop();
  }
}, 20_000);

test("kube-apiserver's 'Too large resource version' answer to a resume makes the informer relist from scratch", async () => {
  // A stand-in server: lists at resourceVersion 100 first, then (restored from an older backup) at 5;
  // a watch from 100 gets the ERROR event kube-apiserver sends for a resume point it never reached.
  const lists: string[] = [];
  const { server, inf, log } = await standIn((req) => {
    const url = new URL(req.url);
    if (url.searchParams.get("watch") !== "true") {
      lists.push(url.searchParams.get("resourceVersion") ?? "");
      return Response.json({
        kind: "ServiceList",
        apiVersion: "v1",
        metadata: { resourceVersion: lists.length === 1 ? "100" : "5" },
        items: [],
      });
    }
    if (url.searchParams.get("resourceVersion") === "100") {
      const status = {
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        code: 504,
        reason: "Timeout",
        message: "Too large resource version: 100, current: 5",
      };
      return new Response(`${JSON.stringify({ type: "ERROR", object: status })}\n`);
    }
    return new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode("\n")) })); // a quiet watch
  });
  try {
    const relisted = new Promise<void>((resolve) => {
      const off = inf.onStatus((s) => {
        if (s.state === "watching" && s.resourceVersion === "5") {
          off();
          resolve();
        }
      });
    });
    inf.start();
    await relisted;
    expect(lists.length).toBe(2);
    expect(log.at("warn")).toContain("services on east: the server has no resourceVersion 100 (its history went backwards); relisting");
  } finally {
    await inf.stop();
    server.stop(true);
  }
});

test("a watch event at a resourceVersion older than the last seen (and no error) makes the informer relist and drop what is gone", async () => {
  // A stand-in server restored from an older backup that answers the resume as if nothing happened:
  // the first list is at 100 with `old`; the watch from 100 sends `fresh` at resourceVersion 5;
  // a second list (the relist) is at 6 with only `fresh`. No 410, no "Too large resource version".
  const svc = (name: string, rv: string) => ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "ns1", uid: `uid-${name}`, resourceVersion: rv },
  });
  const lists: string[] = [];
  const { server, inf, log } = await standIn((req) => {
    const url = new URL(req.url);
    if (url.searchParams.get("watch") !== "true") {
      lists.push(url.searchParams.get("resourceVersion") ?? "");
      const first = lists.length === 1;
      return Response.json({
        kind: "ServiceList",
        apiVersion: "v1",
        metadata: { resourceVersion: first ? "100" : "6" },
        items: first ? [svc("old", "90")] : [svc("fresh", "5")],
      });
    }
    const body =
      url.searchParams.get("resourceVersion") === "100" ? `${JSON.stringify({ type: "ADDED", object: svc("fresh", "5") })}\n` : "\n";
    return new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode(body)) })); // then quiet
  });
  try {
    const gone = collectEvents(inf, (e) => e.some((x) => x.type === "deleted"), "the relist after an older event");
    inf.start();
    await inf.synced;
    expect(summary(await gone)).toContain("deleted ns1/old");
    expect([...inf.cache.keys()]).toEqual(["ns1/fresh"]);
    expect(lists.length).toBe(2);
    expect(log.at("warn").some((m) => m.includes("event at resourceVersion 5, older than 100 already seen"))).toBe(true);
  } finally {
    await inf.stop();
    server.stop(true);
  }
}, 10_000);
