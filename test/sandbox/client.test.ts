// The sandbox driven by @kubernetes/client-node under Bun: semantics a controller relies on.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as k8s from "@kubernetes/client-node";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";

let sb: Sandbox;
let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;

beforeAll(async () => {
  sb = await startSandbox({ name: "client", bookmarkMs: 50, historyLimit: 50 });
  kc = new k8s.KubeConfig();
  kc.loadFromString(sb.kubeconfig);
  core = kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: "t" } } });
});
afterAll(() => sb?.stop());

/** The Status body of a failed call, as client-node carries it. */
async function failure(p: Promise<unknown>): Promise<{ code: number; reason: string; message: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code: number; body?: string };
    // client-node 1.4.0 parses no body for 401 answers; the code is what it reports then.
    const body = typeof e.body === "string" ? JSON.parse(e.body) : (e.body ?? {});
    return { code: e.code, reason: body.reason, message: body.message };
  }
  throw new Error("expected the call to fail");
}

const svcBody = (name: string, labels: Record<string, string> = {}): k8s.V1Service => ({
  metadata: { name, labels },
  spec: { ports: [{ name: "http", port: 80 }] },
});

describe("sandbox semantics through client-node", () => {
  test("create fills uid, creationTimestamp, resourceVersion and a cluster IP", async () => {
    const s = await core.createNamespacedService({ namespace: "t", body: svcBody("a") });
    expect(s.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(Number(s.metadata?.resourceVersion)).toBeGreaterThan(0);
    expect(s.spec?.clusterIP).toMatch(/^10\.96\./);
    expect(s.spec?.ports?.[0]).toMatchObject({ port: 80, protocol: "TCP", targetPort: 80 });
  });

  test("LoadBalancer services get an ingress IP and node ports; NodePort services get node ports", async () => {
    const lb = await core.createNamespacedService({
      namespace: "t",
      body: { ...svcBody("lb"), spec: { type: "LoadBalancer", ports: [{ name: "gw", port: 4143 }] } },
    });
    expect(lb.status?.loadBalancer?.ingress?.[0]?.ip).toBe("192.0.2.1");
    expect(lb.spec?.ports?.[0]?.nodePort).toBeGreaterThanOrEqual(30000);
    const np = await core.createNamespacedService({
      namespace: "t",
      body: { ...svcBody("np"), spec: { type: "NodePort", ports: [{ port: 1 }, { port: 2 }] } },
    });
    const ports = np.spec!.ports!.map((p) => p.nodePort!);
    expect(new Set(ports).size).toBe(2);
    expect(ports.every((p) => p >= 30000 && p <= 32767)).toBe(true);
  });

  test("a stale resourceVersion is a 409 Conflict Status", async () => {
    const s = await core.readNamespacedService({ namespace: "t", name: "a" });
    await core.replaceNamespacedService({ namespace: "t", name: "a", body: { ...s, metadata: { ...s.metadata, labels: { v: "1" } } } });
    const f = await failure(
      core.replaceNamespacedService({ namespace: "t", name: "a", body: { ...s, metadata: { ...s.metadata, labels: { v: "2" } } } }),
    );
    expect(f).toMatchObject({ code: 409, reason: "Conflict" });
    expect(f.message).toContain('services "a"');
  });

  test("missing objects and namespaces are 404 NotFound; a bad name is 422 Invalid; a duplicate is 409 AlreadyExists", async () => {
    expect(await failure(core.readNamespacedService({ namespace: "t", name: "nope" }))).toMatchObject({
      code: 404,
      reason: "NotFound",
      message: 'services "nope" not found',
    });
    expect(await failure(core.createNamespacedService({ namespace: "absent", body: svcBody("x") }))).toMatchObject({
      code: 404,
      message: 'namespaces "absent" not found',
    });
    expect(await failure(core.createNamespacedService({ namespace: "t", body: svcBody("Bad_Name") }))).toMatchObject({
      code: 422,
      reason: "Invalid",
    });
    expect(await failure(core.createNamespacedService({ namespace: "t", body: svcBody("a") }))).toMatchObject({
      code: 409,
      reason: "AlreadyExists",
    });
  });

  test("generateName makes a unique name; dryRun=All stores nothing", async () => {
    const g = await core.createNamespacedConfigMap({ namespace: "t", body: { metadata: { generateName: "gen-" } } });
    expect(g.metadata?.name).toMatch(/^gen-[a-z0-9]{5}$/);
    await core.createNamespacedConfigMap({ namespace: "t", body: { metadata: { name: "dry" } }, dryRun: "All" });
    expect(await failure(core.readNamespacedConfigMap({ namespace: "t", name: "dry" }))).toMatchObject({ code: 404 });
  });

  test("a token Secret for a service account gets token, ca.crt and namespace", async () => {
    await core.createNamespacedSecret({
      namespace: "t",
      body: {
        metadata: { name: "sa-token", annotations: { "kubernetes.io/service-account.name": "robot" } },
        type: "kubernetes.io/service-account-token",
      },
    });
    await core.createNamespacedServiceAccount({ namespace: "t", body: { metadata: { name: "robot" } } });
    const s = await core.readNamespacedSecret({ namespace: "t", name: "sa-token" });
    expect(Buffer.from(s.data!.token!, "base64").toString().length).toBeGreaterThan(20);
    expect(Buffer.from(s.data!.namespace!, "base64").toString()).toBe("t");
    expect(s.data!["ca.crt"]).toBeDefined();
  });

  test("list pages with limit and continue", async () => {
    for (let i = 0; i < 5; i++)
      await core.createNamespacedConfigMap({ namespace: "t", body: { metadata: { name: `page-${i}`, labels: { page: "yes" } } } });
    const first = await core.listNamespacedConfigMap({ namespace: "t", labelSelector: "page=yes", limit: 2 });
    expect(first.items.map((i) => i.metadata?.name)).toEqual(["page-0", "page-1"]);
    expect(first.metadata?.remainingItemCount).toBe(3);
    const second = await core.listNamespacedConfigMap({
      namespace: "t",
      labelSelector: "page=yes",
      limit: 2,
      _continue: first.metadata!._continue!,
    });
    expect(second.items.map((i) => i.metadata?.name)).toEqual(["page-2", "page-3"]);
  });

  test("merge and JSON patches through client-node", async () => {
    const merged = await core.patchNamespacedService(
      { namespace: "t", name: "a", body: { metadata: { labels: { patched: "yes" } } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    expect(merged.metadata?.labels?.patched).toBe("yes");
    const jsonPatched = await core.patchNamespacedService(
      { namespace: "t", name: "a", body: [{ op: "remove", path: "/metadata/labels/patched" }] },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.JsonPatch),
    );
    expect(jsonPatched.metadata?.labels?.patched).toBeUndefined();
  });

  test("an update that changes nothing keeps the resourceVersion and writes nothing", async () => {
    const s = await core.readNamespacedService({ namespace: "t", name: "a" });
    const before = { ...sb.store.writes };
    const same = await core.replaceNamespacedService({ namespace: "t", name: "a", body: s });
    expect(same.metadata?.resourceVersion).toBe(s.metadata?.resourceVersion);
    expect(sb.store.writes).toEqual(before);
  });

  test("deleting a Service deletes its Endpoints; deleting a namespace deletes its contents", async () => {
    await core.createNamespace({ body: { metadata: { name: "gone" } } });
    await core.createNamespacedService({ namespace: "gone", body: svcBody("s") });
    await core.createNamespacedEndpoints({
      namespace: "gone",
      body: { metadata: { name: "s" }, subsets: [{ addresses: [{ ip: "10.0.0.1" }], ports: [{ port: 80 }] }] },
    });
    await core.deleteNamespacedService({ namespace: "gone", name: "s" });
    expect(await failure(core.readNamespacedEndpoints({ namespace: "gone", name: "s" }))).toMatchObject({ code: 404 });
    await core.createNamespacedConfigMap({ namespace: "gone", body: { metadata: { name: "c" } } });
    await core.deleteNamespace({ name: "gone" });
    expect(await failure(core.readNamespacedConfigMap({ namespace: "gone", name: "c" }))).toMatchObject({ code: 404 });
  });

  test("updating a custom resource that has no status yet keeps it without one", async () => {
    const crds = sb.api.registry.find("apiextensions.k8s.io", "v1", "customresourcedefinitions")!;
    sb.api.create(
      crds,
      undefined,
      {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: "gadgets.example.com" },
        spec: {
          group: "example.com",
          scope: "Namespaced",
          names: { kind: "Gadget", plural: "gadgets" },
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              subresources: { status: {} },
              schema: {
                openAPIV3Schema: {
                  type: "object",
                  properties: {
                    spec: { type: "object", properties: { size: { type: "string" } } },
                    status: { type: "object", properties: { ok: { type: "boolean" } } },
                  },
                },
              },
            },
          ],
        },
      },
      {},
    );
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    await custom.createNamespacedCustomObject({
      group: "example.com",
      version: "v1",
      namespace: "t",
      plural: "gadgets",
      body: { apiVersion: "example.com/v1", kind: "Gadget", metadata: { name: "g" }, spec: { size: "s" } },
    });
    const patched = (await custom.patchNamespacedCustomObject(
      { group: "example.com", version: "v1", namespace: "t", plural: "gadgets", name: "g", body: { spec: { size: "m" } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    )) as { spec: { size: string }; status?: unknown };
    expect(patched.spec.size).toBe("m");
    expect(patched.status).toBeUndefined();
  });

  test("selfsubjectaccessreviews answer allowed", async () => {
    const authz = kc.makeApiClient(k8s.AuthorizationV1Api);
    const r = await authz.createSelfSubjectAccessReview({ body: { spec: { resourceAttributes: { verb: "list", resource: "services" } } } });
    expect(r.status?.allowed).toBe(true);
  });
});

type Seen = { type: string; name?: string; rv?: string; code?: number };

/** Watches until `until` says stop; resolves with what was seen and how the stream ended. */
function watchUntil(
  path: string,
  query: Record<string, string | number | boolean | undefined>,
  until: (seen: Seen[]) => boolean,
): { seen: Seen[]; done: Promise<unknown>; started: Promise<AbortController> } {
  const seen: Seen[] = [];
  let resolveDone!: (v: unknown) => void;
  const done = new Promise((r) => (resolveDone = r));
  let controller: AbortController | undefined;
  const started = new k8s.Watch(kc).watch(
    path,
    query,
    (type, obj: { metadata?: { name?: string; resourceVersion?: string }; code?: number }) => {
      seen.push({ type, name: obj.metadata?.name, rv: obj.metadata?.resourceVersion, code: obj.code });
      if (until(seen)) {
        resolveDone("until");
        controller?.abort();
      }
    },
    (err) => resolveDone(err ?? "ended"),
  );
  started.then((c) => (controller = c));
  return { seen, done, started };
}

describe("watch through client-node", () => {
  test("streams ADDED, MODIFIED and DELETED from a resourceVersion", async () => {
    const list = await core.listNamespacedConfigMap({ namespace: "t" });
    const w = watchUntil("/api/v1/namespaces/t/configmaps", { resourceVersion: list.metadata!.resourceVersion }, (s) =>
      s.some((e) => e.type === "DELETED"),
    );
    await w.started;
    await core.createNamespacedConfigMap({ namespace: "t", body: { metadata: { name: "w" } } });
    await core.patchNamespacedConfigMap(
      { namespace: "t", name: "w", body: { data: { a: "b" } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    await core.deleteNamespacedConfigMap({ namespace: "t", name: "w" });
    await w.done;
    expect(w.seen.map((e) => `${e.type} ${e.name}`)).toEqual(["ADDED w", "MODIFIED w", "DELETED w"]);
  });

  test("a label-selected watch sees an object leave the selection as DELETED", async () => {
    await core.createNamespacedConfigMap({ namespace: "t", body: { metadata: { name: "sel", labels: { pick: "me" } } } });
    const list = await core.listNamespacedConfigMap({ namespace: "t" });
    const w = watchUntil(
      "/api/v1/namespaces/t/configmaps",
      { resourceVersion: list.metadata!.resourceVersion, labelSelector: "pick=me" },
      (s) => s.length >= 1,
    );
    await w.started;
    await core.patchNamespacedConfigMap(
      { namespace: "t", name: "sel", body: { metadata: { labels: { pick: null } } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    await w.done;
    expect(w.seen).toEqual([{ type: "DELETED", name: "sel", rv: expect.any(String), code: undefined }]);
  });

  test("bookmarks carry the current resourceVersion when asked for", async () => {
    const w = watchUntil("/api/v1/namespaces/t/secrets", { resourceVersion: sb.store.resourceVersion, allowWatchBookmarks: true }, (s) =>
      s.some((e) => e.type === "BOOKMARK"),
    );
    await w.done;
    const bm = w.seen.find((e) => e.type === "BOOKMARK")!;
    expect(Number(bm.rv)).toBeGreaterThan(0);
  });

  test("a resume from a forgotten resourceVersion gets a 410 ERROR event", async () => {
    const old = sb.store.resourceVersion;
    await core.createNamespacedConfigMap({ namespace: "t", body: { metadata: { name: "after-forget" } } });
    sb.control.forgetHistory();
    const w = watchUntil("/api/v1/namespaces/t/configmaps", { resourceVersion: old }, (s) => s.length > 0);
    await w.done;
    expect(w.seen[0]).toMatchObject({ type: "ERROR", code: 410 });
  });

  test("dropWatches ends open streams cleanly and timeoutSeconds ends them on time", async () => {
    const w = watchUntil("/api/v1/namespaces/t/pods", { resourceVersion: sb.store.resourceVersion }, () => false);
    await w.started;
    expect(sb.control.openWatches()).toBeGreaterThan(0);
    sb.control.dropWatches();
    expect(await w.done).toBe("ended");
    const t = watchUntil("/api/v1/namespaces/t/pods", { resourceVersion: sb.store.resourceVersion, timeoutSeconds: 1 }, () => false);
    expect(await t.done).toBe("ended");
  });
});

describe("TLS sandbox", () => {
  let tls: Sandbox;
  beforeAll(async () => {
    tls = await startSandbox({ name: "secure", tls: true });
  });
  afterAll(() => tls?.stop());

  const clientFor = (yaml: string) => {
    const c = new k8s.KubeConfig();
    c.loadFromString(yaml);
    return c.makeApiClient(k8s.CoreV1Api);
  };

  test("accepts CA + bearer token and rejects a wrong token with 401", async () => {
    const ok = await clientFor(tls.kubeconfig).listNamespace();
    expect(ok.items.map((n) => n.metadata?.name)).toContain("default");
    const bad = await failure(clientFor(tls.kubeconfigWith({ token: "wrong" })).listNamespace());
    expect(bad.code).toBe(401);
  });

  test("accepts a client certificate signed by its CA", async () => {
    const cert = await tls.clientCert("alice");
    const ns = await clientFor(tls.kubeconfigWith({ token: undefined, clientCert: cert })).listNamespace();
    expect(ns.items.length).toBeGreaterThan(0);
  });

  test("refuses a client with no credentials, or with a certificate from another CA, with 401", async () => {
    const none = await failure(clientFor(tls.kubeconfigWith({ token: undefined, certContext: undefined })).listNamespace());
    expect(none.code).toBe(401);
    const { makeCA, makeClientCert } = await import("../../src/sandbox/http/tls.ts");
    const foreign = await makeClientCert(await makeCA("elsewhere"), "mallory", ["system:masters"]);
    const forged = await failure(
      clientFor(tls.kubeconfigWith({ token: undefined, clientCert: foreign, certContext: undefined })).listNamespace(),
    );
    expect(forged.code).toBe(401);
  });

  test("refuses a client that does not trust its CA", async () => {
    const other = await startSandbox({ name: "other", tls: true });
    try {
      const wrongCa = tls.kubeconfigWith({ caPem: other.ca!.cert });
      await expect(clientFor(wrongCa).listNamespace()).rejects.toThrow();
    } finally {
      await other.stop();
    }
  });

  test("streams watch events over TLS with a bearer token", async () => {
    const c = new k8s.KubeConfig();
    c.loadFromString(tls.kubeconfig);
    const seen: string[] = [];
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    const ac = await new k8s.Watch(c).watch(
      "/api/v1/namespaces/default/configmaps",
      { resourceVersion: tls.store.resourceVersion, allowWatchBookmarks: true },
      (type, obj: { metadata?: { name?: string } }) => {
        if (type !== "BOOKMARK") seen.push(`${type} ${obj.metadata?.name}`);
        if (seen.length === 1) done();
      },
      () => done(),
    );
    await clientFor(tls.kubeconfig).createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "over-tls" } } });
    await finished;
    ac.abort();
    expect(seen).toEqual(["ADDED over-tls"]);
  });

  test("authenticates service-account tokens it minted", async () => {
    const api = clientFor(tls.kubeconfig);
    await api.createNamespacedServiceAccount({ namespace: "default", body: { metadata: { name: "bot" } } });
    await api.createNamespacedSecret({
      namespace: "default",
      body: {
        metadata: { name: "bot-token", annotations: { "kubernetes.io/service-account.name": "bot" } },
        type: "kubernetes.io/service-account-token",
      },
    });
    const secret = await api.readNamespacedSecret({ namespace: "default", name: "bot-token" });
    const token = Buffer.from(secret.data!.token!, "base64").toString();
    const asBot = await clientFor(tls.kubeconfigWith({ token })).listNamespacedService({ namespace: "default" });
    expect(asBot.items).toBeDefined();
  });
});
