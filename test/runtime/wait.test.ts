// waitForObject and waitFor: waits that end on an event or a deadline.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectKubeconfigText, resources, waitForObject, type KubeClient } from "../../src/kube/index.ts";
import { waitFor, WaitTimeout, type Followable } from "../../src/runtime/wait.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";

let sb: Sandbox;
let client: KubeClient;
beforeAll(async () => {
  sb = await startSandbox({ name: "wait" });
  client = await connectKubeconfigText(sb.kubeconfig, "test");
});
afterAll(() => sb?.stop());

describe("waitForObject", () => {
  test("returns at once when the object already satisfies the predicate", async () => {
    const ns = await waitForObject(client, resources.namespace, undefined, "default", (o) => !!o, { what: "default", timeoutMs: 1000 });
    expect(ns?.metadata.name).toBe("default");
  });

  test("resolves on the watch event that makes the predicate true, including deletion", async () => {
    const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" }, data: { v: "1" } };
    const created = waitForObject(
      client,
      resources.configMap,
      "default",
      "c",
      (o) => (o as { data?: { v?: string } } | undefined)?.data?.v === "2",
      { what: "v=2", timeoutMs: 5000 },
    );
    await client.create(resources.configMap, cm);
    await client.patch(resources.configMap, "default", "c", { data: { v: "2" } });
    expect(((await created) as unknown as { data: { v: string } }).data.v).toBe("2");
    const gone = waitForObject(client, resources.configMap, "default", "c", (o) => o === undefined, { what: "deletion", timeoutMs: 5000 });
    await client.delete(resources.configMap, "default", "c");
    expect(await gone).toBeUndefined();
  });

  test("fails with WaitTimeout naming what it waited for", async () => {
    const p = waitForObject(client, resources.configMap, "default", "never", (o) => !!o, { what: "configmap never", timeoutMs: 50 });
    await expect(p).rejects.toBeInstanceOf(WaitTimeout);
    await expect(p).rejects.toThrow("configmap never");
  });
});

describe("waitFor", () => {
  /** A value changed by hand: `push` delivers to the follower, `end` ends its stream. */
  function manual<T>(initial: T | undefined) {
    const waiting: Array<(r: IteratorResult<T | undefined>) => void> = [];
    const queued: Array<IteratorResult<T | undefined>> = [];
    let cancelled = false;
    const deliver = (r: IteratorResult<T | undefined>) => (waiting.length ? waiting.shift()!(r) : queued.push(r));
    const source: Followable<T> = {
      read: async () => ({ value: initial, from: "1" }),
      follow: async (from) => {
        expect(from).toBe("1");
        const values: AsyncIterable<T | undefined> = {
          [Symbol.asyncIterator]: () => ({
            next: () => (queued.length ? Promise.resolve(queued.shift()!) : new Promise((r) => waiting.push(r))),
          }),
        };
        const cancel = () => {
          cancelled = true;
          deliver({ done: true, value: undefined });
        };
        return { values, cancel };
      },
    };
    return {
      source,
      push: (v: T | undefined) => deliver({ done: false, value: v }),
      end: () => deliver({ done: true, value: undefined }),
      cancelled: () => cancelled,
    };
  }

  test("follows from where it read until the predicate holds, then cancels the stream", async () => {
    const m = manual<number>(1);
    const p = waitFor(m.source, (v) => v === 3, { what: "three", timeoutMs: 5000 });
    m.push(2);
    m.push(3);
    expect(await p).toBe(3);
    expect(m.cancelled()).toBe(true);
  });

  test("a stream that ends first is an error naming what it waited for", async () => {
    const m = manual<number>(1);
    const p = waitFor(m.source, (v) => v === undefined, { what: "its deletion", timeoutMs: 5000 });
    m.end();
    await expect(p).rejects.toThrow("the watch ended before its deletion");
  });
});
