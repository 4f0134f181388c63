// The Writer: creates, updates, patches and deletes with mc's field manager.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { KubeClient } from "../../src/kube/client.ts";
import { AlreadyExistsError, ConflictError, KubeError } from "../../src/kube/kube-error.ts";
import { resources } from "../../src/kube/resources.ts";
import type { KubeObject } from "../../src/kube/types.ts";
import { createWriter, type Writer } from "../../src/kube/writer.ts";
import type { Sandbox } from "../../src/sandbox/index.ts";
import { freshNamespace, recordingLog, sandboxWithClient, service } from "./helpers.ts";

let sb: Sandbox;
let client: KubeClient;
let writer: Writer;

beforeAll(async () => {
  ({ sb, client } = await sandboxWithClient());
  writer = createWriter(client, { log: recordingLog() });
});
afterAll(() => sb.stop());

const managers = (obj: KubeObject) => (obj.metadata.managedFields as Array<{ manager: string }> | undefined)?.map((m) => m.manager);

describe("Writer", () => {
  test("creates with the mc field manager, and a second create is an AlreadyExistsError", async () => {
    const ns = await freshNamespace(client);
    const created = await writer.create(resources.service, service("web", ns));
    expect(created.metadata.uid).toBeString();
    expect(managers(created)).toEqual(["mc"]);
    const again = writer.create(resources.service, service("web", ns));
    await expect(again).rejects.toBeInstanceOf(AlreadyExistsError);
    await expect(again).rejects.toThrow(`create services ${ns}/web on east: 409 AlreadyExists`);
  });

  test("an update from a stale resourceVersion is a ConflictError; from the current one it applies", async () => {
    const ns = await freshNamespace(client);
    const v1 = await writer.create(resources.service, service("web", ns));
    const v2 = await writer.update(resources.service, { ...v1, metadata: { ...v1.metadata, labels: { v: "2" } } });
    expect(v2.metadata.labels).toEqual({ v: "2" });
    const stale = writer.update(resources.service, { ...v1, metadata: { ...v1.metadata, labels: { v: "stale" } } });
    await expect(stale).rejects.toBeInstanceOf(ConflictError);
    const err = (await stale.catch((e: unknown) => e)) as KubeError;
    expect([err.isConflict, err.isRetryable, err.isAlreadyExists]).toEqual([true, true, false]);
  });

  test("a merge patch changes only what it names, and null removes", async () => {
    const ns = await freshNamespace(client);
    await writer.create(resources.service, service("web", ns, { a: "1", b: "2" }));
    const patched = await writer.patch(resources.service, ns, "web", { metadata: { labels: { b: null, c: "3" } } });
    expect(patched.metadata.labels).toEqual({ a: "1", c: "3" });
    expect(patched.spec).toEqual(expect.objectContaining({ ports: [expect.objectContaining({ port: 80 })] }));
  });

  test("a status patch writes the status subresource and leaves the spec alone", async () => {
    const ns = await freshNamespace(client);
    // A load-balancer ingress only on a LoadBalancer Service: kube refuses it on any other type.
    const lb = service("web", ns);
    await writer.create(resources.service, { ...lb, spec: { ...(lb.spec as object), type: "LoadBalancer" } });
    const out = await writer.patchStatus(resources.service, ns, "web", { loadBalancer: { ingress: [{ ip: "10.0.0.9" }] } });
    expect(out.status).toEqual({ loadBalancer: { ingress: [{ ip: "10.0.0.9" }] } });
    const read = await client.get(resources.service, ns, "web");
    expect(read.status).toEqual(out.status);
    expect((read.spec as { ports: unknown[] }).ports.length).toBe(1);
  });

  test("deleting something already gone is success (false), deleting something present is true", async () => {
    const ns = await freshNamespace(client);
    await writer.create(resources.service, service("web", ns));
    expect(await writer.delete(resources.service, ns, "web")).toBe(true);
    expect(await writer.delete(resources.service, ns, "web")).toBe(false);
    await expect(client.get(resources.service, ns, "web")).rejects.toMatchObject({ isNotFound: true });
  });

  test("a dry-run writer stores nothing", async () => {
    const ns = await freshNamespace(client);
    const dry = createWriter(client, { dryRun: true, log: recordingLog() });
    await dry.create(resources.service, service("web", ns));
    await expect(client.get(resources.service, ns, "web")).rejects.toMatchObject({ code: 404 });
  });

  test("other failures stay KubeErrors naming verb and target", async () => {
    const err = await writer.patch(resources.service, "nowhere", "nothing", { metadata: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeError);
    expect((err as KubeError).message).toStartWith("patch services nowhere/nothing on east: 404 NotFound");
  });
});
