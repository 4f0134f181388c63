import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectKubeconfigText, resources, waitForObject, WaitTimeout, type KubeClient } from "../../src/kube/index.ts";
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
    const created = waitForObject(client, resources.configMap, "default", "c", (o) => (o as { data?: { v?: string } } | undefined)?.data?.v === "2", { what: "v=2", timeoutMs: 5000 });
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
