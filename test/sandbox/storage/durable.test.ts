// A sandbox with `data: FILE` (src/sandbox/storage/durable.ts) started again on the same file: every object back as stored, the
// resourceVersion counter carrying on, custom types served, tokens and the admin token and CA still valid, cluster IPs not handed out
// twice, and watches resumed from before the restart told 410 Gone (the history starts at the restart).
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as k8s from "@kubernetes/client-node";
import { startSandbox, type Sandbox } from "../../../src/sandbox/index.ts";
import type { KubeObject } from "../../../src/sandbox/types.ts";

// The process-level `kill -9` is in test/cmd/sandbox-faults.test.ts.

const running: Sandbox[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
});

async function start(data: string, o: { tls?: boolean; port?: number } = {}): Promise<Sandbox> {
  const sb = await startSandbox({ name: "east", data, ...o });
  running.push(sb);
  return sb;
}

const api = (sb: Sandbox, kubeconfig = sb.kubeconfig) => {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(kubeconfig);
  return kc;
};

const widgets: KubeObject = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { kind: "Widget", plural: "widgets" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
};

test("objects, the resourceVersion counter and custom types survive a restart on the same file", async () => {
  const file = join(mkdtempSync(join(tmpdir(), "mc-durable-")), "east.db");
  const first = await start(file);
  const core = api(first).makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: "keep" } } });
  await core.createNamespacedConfigMap({ namespace: "keep", body: { metadata: { name: "a", labels: { x: "1" } }, data: { k: "v" } } });
  await core.createNamespacedConfigMap({ namespace: "keep", body: { metadata: { name: "gone" } } });
  await core.deleteNamespacedConfigMap({ namespace: "keep", name: "gone" });
  const svc = await core.createNamespacedService({ namespace: "keep", body: { metadata: { name: "s" }, spec: { ports: [{ port: 80 }] } } });
  first.api.create(
    first.api.registry.find("apiextensions.k8s.io", "v1", "customresourcedefinitions")!,
    undefined,
    structuredClone(widgets),
    {},
  );
  const custom = api(first).makeApiClient(k8s.CustomObjectsApi);
  await custom.createNamespacedCustomObject({
    group: "example.com",
    version: "v1",
    namespace: "keep",
    plural: "widgets",
    body: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { size: "m" } },
  });
  const before = (await core.readNamespacedConfigMap({ namespace: "keep", name: "a" })).metadata!;
  const rvBefore = Number(first.store.resourceVersion);
  await first.stop();
  running.length = 0;

  const second = await start(file, { port: first.port });
  expect(Number(second.store.resourceVersion)).toBe(rvBefore);
  const core2 = api(second).makeApiClient(k8s.CoreV1Api);
  const a = await core2.readNamespacedConfigMap({ namespace: "keep", name: "a" });
  expect(a.metadata).toMatchObject({ uid: before.uid, resourceVersion: before.resourceVersion, labels: { x: "1" } });
  expect(a.data).toEqual({ k: "v" });
  expect((await core2.listNamespacedConfigMap({ namespace: "keep" })).items.map((c) => c.metadata!.name)).toEqual(["a"]);
  const w = (await api(second)
    .makeApiClient(k8s.CustomObjectsApi)
    .getNamespacedCustomObject({ group: "example.com", version: "v1", namespace: "keep", plural: "widgets", name: "w" })) as KubeObject;
  expect(w.spec).toEqual({ size: "m" });
  // The counter carries on, and a new Service gets another cluster IP.
  const next = await core2.createNamespacedService({
    namespace: "keep",
    body: { metadata: { name: "t" }, spec: { ports: [{ port: 80 }] } },
  });
  expect(Number(next.metadata!.resourceVersion)).toBe(rvBefore + 1);
  expect(next.spec!.clusterIP).not.toBe(svc.spec!.clusterIP);
  // A resume from before the restart is 410 Gone; from now it works.
  const gone = await fetch(`${second.url}/api/v1/namespaces/keep/configmaps?watch=true&resourceVersion=${rvBefore - 3}`);
  expect(await gone.text()).toContain('"code":410');
});

test("a TLS sandbox keeps its CA, admin token and service-account tokens: old kubeconfigs still work", async () => {
  const file = join(mkdtempSync(join(tmpdir(), "mc-durable-")), "east.db");
  const first = await start(file, { tls: true });
  const core = api(first).makeApiClient(k8s.CoreV1Api);
  await core.createNamespacedServiceAccount({ namespace: "default", body: { metadata: { name: "bot" } } });
  await core.createNamespacedSecret({
    namespace: "default",
    body: {
      metadata: { name: "bot-token", annotations: { "kubernetes.io/service-account.name": "bot" } },
      type: "kubernetes.io/service-account-token",
    },
  });
  const token = Buffer.from(
    (await core.readNamespacedSecret({ namespace: "default", name: "bot-token" })).data!.token!,
    "base64",
  ).toString();
  const adminConfig = first.kubeconfig;
  const botConfig = first.kubeconfigWith({ token });
  await first.stop();
  running.length = 0;

  const second = await start(file, { tls: true, port: first.port });
  expect(second.token).toBe(first.token);
  expect(second.ca).toEqual(first.ca!);
  expect((await api(second, adminConfig).makeApiClient(k8s.CoreV1Api).listNamespace()).items.length).toBeGreaterThan(0);
  const asBot = await api(second, botConfig).makeApiClient(k8s.CoreV1Api).listNamespacedServiceAccount({ namespace: "default" });
  expect(asBot.items.map((s) => s.metadata!.name)).toContain("bot");
});
