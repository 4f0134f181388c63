// KubeClient against a sandbox: reads, writes, watches and the errors it raises.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { KubeClient } from "../../src/kube/client.ts";
import { KubeError } from "../../src/kube/kube-error.ts";
import type { LeaseObject } from "../../src/kube/lease.ts";
import { resources } from "../../src/kube/resources.ts";
import type { Sandbox } from "../../src/sandbox/index.ts";
import { freshNamespace, sandboxWithClient, service } from "./helpers.ts";

let sb: Sandbox;
let client: KubeClient;
beforeAll(async () => {
  ({ sb, client } = await sandboxWithClient());
});
afterAll(() => sb.stop());

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as KubeError,
  );

describe("KubeClient", () => {
  test("reads and writes a grouped namespaced type by apiVersion, kind and plural", async () => {
    const ns = await freshNamespace(client);
    const lease: LeaseObject = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "l", namespace: ns },
      spec: { holderIdentity: "a" },
    };
    const created = await client.create(resources.lease, lease);
    const got = await client.get<LeaseObject>(resources.lease, ns, "l");
    expect(got.metadata.uid).toBe(created.metadata.uid!);
    const replaced = await client.update(resources.lease, { ...got, spec: { holderIdentity: "b" } });
    expect(replaced.spec?.holderIdentity).toBe("b");
    const listed = await client.list<LeaseObject>(resources.lease, { namespace: ns });
    expect(listed.items.map((l) => l.spec?.holderIdentity)).toEqual(["b"]);
    expect(Number(listed.resourceVersion)).toBeGreaterThanOrEqual(Number(replaced.metadata.resourceVersion));
    await client.delete(resources.lease, ns, "l");
    expect((await failure(client.get(resources.lease, ns, "l")))?.isNotFound).toBe(true);
  });

  test("cluster-scoped types ignore namespaces; objects without one land in the context's namespace", async () => {
    const ns = await freshNamespace(client);
    const got = await client.get(resources.namespace, "ignored", ns);
    expect(got.metadata.name).toBe(ns);
    const svc = service("in-default", "");
    delete svc.metadata.namespace;
    const created = await client.create(resources.service, svc);
    expect(created.metadata.namespace).toBe(client.namespace);
  });

  test("lists filter by label selector and across all namespaces", async () => {
    const a = await freshNamespace(client);
    const b = await freshNamespace(client);
    await client.create(resources.service, service("x", a, { app: "web" }));
    await client.create(resources.service, service("y", b, { app: "web" }));
    await client.create(resources.service, service("z", b, { app: "db" }));
    const web = await client.list(resources.service, { labelSelector: "app=web" });
    const names = web.items.map((s) => `${s.metadata.namespace}/${s.metadata.name}`);
    expect(names).toContain(`${a}/x`);
    expect(names).toContain(`${b}/y`);
    expect(names).not.toContain(`${b}/z`);
  });

  test("a server-side apply patch creates with the field manager and force", async () => {
    const ns = await freshNamespace(client);
    const applied = await client.patch(resources.service, ns, "ssa", service("ssa", ns), { type: "apply", force: true });
    expect(applied.metadata.managedFields).toEqual([expect.objectContaining({ manager: "mc", operation: "Apply" })]);
  });

  test("a request slower than its timeout fails as a retryable Timeout", async () => {
    sb.control.faults.delayMs = 300;
    try {
      const err = await failure(client.get(resources.namespace, undefined, "default", { timeoutMs: 50 }));
      expect(err).toBeInstanceOf(KubeError);
      expect(err?.message).toBe(`get namespaces default on east: timed out: no answer from ${sb.url} in 50ms`);
      expect(err?.isRetryable).toBe(true);
    } finally {
      sb.control.faults.delayMs = 0;
    }
  });

  test("a caller's abort fails as Aborted, which is not retryable", async () => {
    sb.control.faults.delayMs = 300;
    try {
      const controller = new AbortController();
      const pending = failure(client.get(resources.namespace, undefined, "default", { signal: controller.signal }));
      controller.abort();
      const err = await pending;
      expect([err?.reason, err?.isRetryable]).toEqual(["Aborted", false]);
    } finally {
      sb.control.faults.delayMs = 0;
    }
  });

  test("a 503 from the server is a retryable KubeError", async () => {
    sb.control.faults.failWith = [503];
    sb.control.faults.failRate = 1;
    try {
      const err = await failure(client.list(resources.service));
      expect([err?.code, err?.reason, err?.isRetryable]).toEqual([503, "ServiceUnavailable", true]);
      expect(err?.message).toStartWith("list services on east: 503 ServiceUnavailable");
    } finally {
      sb.control.faults.failRate = 0;
    }
  });

  test("a watch streams events from a resourceVersion and ends cleanly on cancel", async () => {
    const ns = await freshNamespace(client);
    const list = await client.list(resources.service, { namespace: ns });
    const stream = await client.watch(resources.service, { namespace: ns, resourceVersion: list.resourceVersion });
    await client.create(resources.service, service("w", ns));
    const seen: string[] = [];
    for await (const event of stream.events) {
      seen.push(`${event.type} ${event.object.metadata.name}`);
      stream.cancel();
    }
    expect(seen).toEqual(["ADDED w"]);
  });

  test("named() keeps the connection under another name for messages", async () => {
    const err = await failure(client.named("target-east").get(resources.service, "x", "y"));
    expect(err?.target).toBe("services x/y on target-east");
  });
});

test("a watch on a server that is down fails as Unreachable, not as an abort", async () => {
  const { sb: down, client: downClient } = await sandboxWithClient();
  await down.stop();
  const err = await failure(downClient.watch(resources.service));
  expect(err?.message).toBe(
    `watch services on east: the connection to ${down.url} was refused; is the API server running, and are the context and kubeconfig the right ones? [ECONNREFUSED]`,
  );
  expect(err?.isRetryable).toBe(true);
});
