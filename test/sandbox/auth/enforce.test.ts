// A sandbox that enforces RBAC on every request (`enforceRbac`), as kube-apiserver authorizes them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RbacIndex } from "../../../src/sandbox/auth/bindings.ts";
import { serviceAccountUser } from "../../../src/sandbox/auth/rbac.ts";
import { startSandbox, type Sandbox } from "../../../src/sandbox/index.ts";
import { Store } from "../../../src/sandbox/storage/store.ts";
import type { KubeObject } from "../../../src/sandbox/types.ts";
import { hasKubectl, kubectlFor, needsKubectl } from "../../helpers/kubectl.ts";

// A sandbox that enforces RBAC on every request (`enforceRbac`): the admin token in its
// kubeconfig is system:masters, a service-account token gets what its bindings grant (verbs,
// API groups, resource names — list and watch by a metadata.name field selector included —
// subresources, namespaces), every denial is kube-apiserver's 403 body, and discovery and
// access reviews stay open to every authenticated user. The bindings are indexed by subject,
// so a decision reads the user's bindings only. Then the same through the real kubectl.

const RBAC = "rbac.authorization.k8s.io/v1";
const BOT = "system:serviceaccount:apps:bot";

let sb: Sandbox;
let botToken: string;

async function call(method: string, path: string, o: { token?: string; body?: unknown; contentType?: string } = {}) {
  const headers: Record<string, string> = { "content-type": o.contentType ?? "application/json" };
  if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
  const res = await fetch(sb.url + path, {
    method,
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
    tls: { ca: sb.ca!.cert },
  });
  const text = await res.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text; // a watch stream's first lines
  }
  return { status: res.status, body };
}
const admin = (method: string, path: string, body?: unknown, contentType?: string) =>
  call(method, path, { token: sb.token, body, contentType });
const asBot = (method: string, path: string, body?: unknown, contentType?: string) =>
  call(method, path, { token: botToken, body, contentType });

async function apply(objects: KubeObject[]) {
  for (const o of objects) {
    const [group, version] = o.apiVersion.includes("/") ? o.apiVersion.split("/") : ["", o.apiVersion];
    const plural = `${o.kind.toLowerCase()}s`;
    const base = group ? `/apis/${group}/${version}` : `/api/${version}`;
    const path = o.metadata.namespace ? `${base}/namespaces/${o.metadata.namespace}/${plural}` : `${base}/${plural}`;
    const r = await admin("POST", path, o);
    if (r.status !== 201) throw new Error(`create ${o.kind} ${o.metadata.name}: ${r.status} ${JSON.stringify(r.body)}`);
  }
}
const remove = (path: string) => admin("DELETE", path);

beforeAll(async () => {
  sb = await startSandbox({ name: "enforcing", enforceRbac: true });
  await apply([
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "apps" } },
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "x" } },
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "bot", namespace: "apps" } },
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "bot-token", namespace: "apps", annotations: { "kubernetes.io/service-account.name": "bot" } },
      type: "kubernetes.io/service-account-token",
    },
    { apiVersion: "v1", kind: "Secret", metadata: { name: "mine", namespace: "apps" }, data: { k: "dg==" } },
    { apiVersion: "v1", kind: "Secret", metadata: { name: "theirs", namespace: "apps" }, data: { k: "dg==" } },
    { apiVersion: "v1", kind: "Service", metadata: { name: "web", namespace: "apps" }, spec: { ports: [{ port: 80 }] } },
    {
      apiVersion: RBAC,
      kind: "Role",
      metadata: { name: "bot", namespace: "apps" },
      rules: [
        { apiGroups: [""], resources: ["services"], verbs: ["get", "list", "watch"] },
        { apiGroups: [""], resources: ["services/status"], verbs: ["update"] },
        { apiGroups: [""], resources: ["secrets"], resourceNames: ["mine"], verbs: ["get", "list", "watch"] },
        { apiGroups: [""], resources: ["configmaps"], verbs: ["create"] },
      ],
    } as KubeObject,
    {
      apiVersion: RBAC,
      kind: "RoleBinding",
      metadata: { name: "bot", namespace: "apps" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "bot" },
      subjects: [{ kind: "ServiceAccount", name: "bot" }],
    } as KubeObject,
  ]);
  const secret = await admin("GET", "/api/v1/namespaces/apps/secrets/bot-token");
  botToken = Buffer.from(secret.body.data.token, "base64").toString();
});
afterAll(() => sb?.stop());

describe("who may do what", () => {
  test("it serves https with the admin token in its kubeconfig; no token is 401, a wrong one too", async () => {
    expect(sb.url).toStartWith("https://");
    expect(sb.kubeconfig).toContain(`token: ${sb.token}`);
    expect((await admin("GET", "/api/v1/namespaces/x/secrets")).status).toBe(200);
    expect((await call("GET", "/api/v1/namespaces")).status).toBe(401);
    expect((await call("GET", "/api/v1/namespaces", { token: "nope" })).status).toBe(401);
  });

  test("allowed by the bindings: verbs, namespace, resource names, subresources; create needs no name", async () => {
    expect((await asBot("GET", "/api/v1/namespaces/apps/services")).status).toBe(200);
    expect((await asBot("GET", "/api/v1/namespaces/apps/services/web")).status).toBe(200);
    expect((await asBot("GET", "/api/v1/namespaces/apps/secrets/mine")).status).toBe(200);
    expect((await asBot("GET", "/api/v1/namespaces/apps/secrets?fieldSelector=metadata.name%3Dmine")).status).toBe(200);
    const watch = await fetch(`${sb.url}/api/v1/namespaces/apps/secrets?watch=true&fieldSelector=metadata.name%3Dmine&timeoutSeconds=1`, {
      headers: { authorization: `Bearer ${botToken}` },
      tls: { ca: sb.ca!.cert },
    });
    expect(watch.status).toBe(200);
    await watch.body?.cancel();
    const web = (await asBot("GET", "/api/v1/namespaces/apps/services/web")).body;
    expect((await asBot("PUT", "/api/v1/namespaces/apps/services/web/status", web)).status).toBe(200);
    expect(
      (await asBot("POST", "/api/v1/namespaces/apps/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "made" } }))
        .status,
    ).toBe(201);
  });

  const denials: [string, string, string, string][] = [
    [
      "list in another namespace",
      "GET",
      "/api/v1/namespaces/x/services",
      `services is forbidden: User "${BOT}" cannot list resource "services" in API group "" in the namespace "x"`,
    ],
    [
      "list cluster-wide (only a RoleBinding)",
      "GET",
      "/api/v1/services",
      `services is forbidden: User "${BOT}" cannot list resource "services" in API group "" at the cluster scope`,
    ],
    [
      "watch cluster-wide",
      "GET",
      "/api/v1/services?watch=true",
      `services is forbidden: User "${BOT}" cannot watch resource "services" in API group "" at the cluster scope`,
    ],
    [
      "a verb not granted",
      "DELETE",
      "/api/v1/namespaces/apps/services/web",
      `services "web" is forbidden: User "${BOT}" cannot delete resource "services" in API group "" in the namespace "apps"`,
    ],
    [
      "another Secret than the named one",
      "GET",
      "/api/v1/namespaces/apps/secrets/theirs",
      `secrets "theirs" is forbidden: User "${BOT}" cannot get resource "secrets" in API group "" in the namespace "apps"`,
    ],
    [
      "every Secret (a list without the name)",
      "GET",
      "/api/v1/namespaces/apps/secrets",
      `secrets is forbidden: User "${BOT}" cannot list resource "secrets" in API group "" in the namespace "apps"`,
    ],
    [
      "a list naming another Secret",
      "GET",
      "/api/v1/namespaces/apps/secrets?fieldSelector=metadata.name%3Dtheirs",
      `secrets "theirs" is forbidden: User "${BOT}" cannot list resource "secrets" in API group "" in the namespace "apps"`,
    ],
    [
      "another API group",
      "GET",
      "/apis/apps/v1/namespaces/apps/deployments",
      `deployments.apps is forbidden: User "${BOT}" cannot list resource "deployments" in API group "apps" in the namespace "apps"`,
    ],
    [
      "the status subresource with another verb",
      "PATCH",
      "/api/v1/namespaces/apps/services/web/status",
      `services "web" is forbidden: User "${BOT}" cannot patch resource "services/status" in API group "" in the namespace "apps"`,
    ],
    [
      "a cluster-scoped object",
      "GET",
      "/api/v1/namespaces/apps",
      `namespaces "apps" is forbidden: User "${BOT}" cannot get resource "namespaces" in API group "" in the namespace "apps"`,
    ],
    [
      "RBAC itself",
      "POST",
      "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      `clusterrolebindings.rbac.authorization.k8s.io is forbidden: User "${BOT}" cannot create resource "clusterrolebindings" in API group "rbac.authorization.k8s.io" at the cluster scope`,
    ],
  ];
  for (const [what, method, path, message] of denials) {
    test(`denied with kube's 403: ${what}`, async () => {
      const r = await asBot(
        method,
        path,
        method === "GET" || method === "DELETE" ? undefined : { metadata: {} },
        method === "PATCH" ? "application/merge-patch+json" : undefined,
      );
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ kind: "Status", status: "Failure", reason: "Forbidden", code: 403, message });
    });
  }

  test("discovery, /version and reviews of one's own access are open to every authenticated user", async () => {
    for (const path of ["/api", "/api/v1", "/apis", "/apis/apps/v1", "/version", "/openapi/v2"])
      expect((await asBot("GET", path)).status).toBe(200);
    const review = await asBot("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { resourceAttributes: { verb: "list", resource: "services", namespace: "apps" } },
    });
    expect(review.status).toBe(201);
    expect(review.body.status).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "bot/apps" of Role "bot" to ServiceAccount "bot/apps"',
    });
  });

  test("a binding counts from the moment it is written until it is deleted", async () => {
    expect((await asBot("GET", "/api/v1/namespaces/x/services")).status).toBe(403);
    await apply([
      {
        apiVersion: RBAC,
        kind: "ClusterRole",
        metadata: { name: "svc-reader" },
        rules: [{ apiGroups: [""], resources: ["services"], verbs: ["list"] }],
      } as KubeObject,
      {
        apiVersion: RBAC,
        kind: "ClusterRoleBinding",
        metadata: { name: "bot-svc" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "svc-reader" },
        subjects: [{ kind: "ServiceAccount", name: "bot", namespace: "apps" }],
      } as KubeObject,
    ]);
    expect((await asBot("GET", "/api/v1/namespaces/x/services")).status).toBe(200);
    expect((await asBot("GET", "/api/v1/services")).status).toBe(200);
    await remove("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/bot-svc");
    expect((await asBot("GET", "/api/v1/namespaces/x/services")).status).toBe(403);
    await remove("/apis/rbac.authorization.k8s.io/v1/clusterroles/svc-reader");
  });

  test("a binding to a missing role: the 403 says why, as kube's RBAC does", async () => {
    await apply([
      {
        apiVersion: RBAC,
        kind: "RoleBinding",
        metadata: { name: "dangling", namespace: "x" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "nowhere" },
        subjects: [{ kind: "ServiceAccount", name: "bot", namespace: "apps" }],
      } as KubeObject,
    ]);
    const r = await asBot("GET", "/api/v1/namespaces/x/pods");
    expect(r.body.message).toBe(
      `pods is forbidden: User "${BOT}" cannot list resource "pods" in API group "" in the namespace "x": RBAC: role.rbac.authorization.k8s.io "nowhere" not found`,
    );
    await remove("/apis/rbac.authorization.k8s.io/v1/namespaces/x/rolebindings/dangling");
  });
});

test("a decision reads only the user's bindings: thousands of others are never candidates", () => {
  const store = new Store();
  const rbacType = (kind: string, plural: string, namespaced: boolean) => ({
    group: "rbac.authorization.k8s.io",
    version: "v1",
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    namespaced,
    verbs: [],
    subresources: { status: false },
  });
  const crbs = rbacType("ClusterRoleBinding", "clusterrolebindings", false);
  const rbs = rbacType("RoleBinding", "rolebindings", true);
  const binding = (kind: string, name: string, subjects: object[], namespace?: string): KubeObject => ({
    apiVersion: RBAC,
    kind,
    metadata: { name, namespace },
    roleRef: { kind: "ClusterRole", name: "r" },
    subjects,
  });
  const index = new RbacIndex(store);
  for (let i = 0; i < 3000; i++) {
    store.insert(crbs, binding("ClusterRoleBinding", `other-${i}`, [{ kind: "ServiceAccount", name: `sa-${i}`, namespace: "apps" }]));
    store.insert(rbs, binding("RoleBinding", `other-${i}`, [{ kind: "User", name: `user-${i}` }], "apps"));
  }
  store.insert(crbs, binding("ClusterRoleBinding", "mine", [{ kind: "ServiceAccount", name: "bot", namespace: "apps" }]));
  store.insert(crbs, binding("ClusterRoleBinding", "all-sa", [{ kind: "Group", name: "system:serviceaccounts" }]));
  store.insert(rbs, binding("RoleBinding", "mine-here", [{ kind: "ServiceAccount", name: "bot" }], "apps"));
  store.insert(rbs, binding("RoleBinding", "mine-there", [{ kind: "ServiceAccount", name: "bot", namespace: "apps" }], "x"));
  const bot = serviceAccountUser(BOT);
  expect(index.clusterRoleBindings(bot).map((b) => b.metadata.name)).toEqual(["all-sa", "mine"]);
  expect(index.roleBindings(bot, "apps").map((b) => b.metadata.name)).toEqual(["mine-here"]);
  expect(index.roleBindings(bot, "x").map((b) => b.metadata.name)).toEqual(["mine-there"]);
  store.remove(crbs, undefined, "mine");
  const edited = binding("RoleBinding", "mine-here", [{ kind: "User", name: "someone" }], "apps");
  store.replace(rbs, { ...edited, metadata: { ...edited.metadata } });
  expect(index.clusterRoleBindings(bot).map((b) => b.metadata.name)).toEqual(["all-sa"]);
  expect(index.roleBindings(bot, "apps")).toEqual([]);
  index.close();
});

describe.skipIf(!hasKubectl)("through kubectl with a service-account token", () => {
  test(
    needsKubectl("kubectl auth can-i answers for the token, and a forbidden kubectl get prints kube's message and exits 1"),
    async () => {
      const kubectl = kubectlFor(sb.kubeconfigWith({ token: botToken }));
      expect(await kubectl(["auth", "can-i", "list", "services", "-n", "apps"])).toMatchObject({ code: 0, stdout: "yes\n" });
      expect(await kubectl(["auth", "can-i", "list", "services", "-n", "x"])).toMatchObject({ code: 1, stdout: "no\n" });
      expect(await kubectl(["auth", "can-i", "get", "secrets/mine", "-n", "apps"])).toMatchObject({ code: 0, stdout: "yes\n" });
      expect(await kubectl(["auth", "can-i", "get", "secrets/theirs", "-n", "apps"])).toMatchObject({ code: 1, stdout: "no\n" });
      expect(await kubectl(["get", "services", "-n", "apps", "-o", "name"])).toMatchObject({ code: 0, stdout: "service/web\n" });
      const denied = await kubectl(["get", "services", "-n", "x"]);
      expect(denied.code).toBe(1);
      expect(denied.stderr).toBe(
        `Error from server (Forbidden): services is forbidden: User "${BOT}" cannot list resource "services" in API group "" in the namespace "x"\n`,
      );
      const secret = await kubectl(["get", "secret", "theirs", "-n", "apps"]);
      expect(secret.stderr).toBe(
        `Error from server (Forbidden): secrets "theirs" is forbidden: User "${BOT}" cannot get resource "secrets" in API group "" in the namespace "apps"\n`,
      );
      // The admin kubeconfig the sandbox wrote is allowed everything.
      expect(await kubectlFor(sb.kubeconfig)(["auth", "can-i", "*", "*"])).toMatchObject({ code: 0, stdout: "yes\n" });
    },
  );
});
