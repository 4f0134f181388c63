// SelfSubjectAccessReviews answered by RBAC: the pure evaluator (src/sandbox/auth/rbac.ts) against
// kube's rule semantics, then a TLS sandbox asked through client-node and real kubectl with a
// service-account token it minted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as k8s from "@kubernetes/client-node";
import {
  evaluate,
  SANDBOX_ADMIN,
  serviceAccountUser,
  type AccessAttributes,
  type Decision,
  type Policy,
  type UserInfo,
} from "../../../src/sandbox/auth/rbac.ts";
import { startSandbox, type Sandbox } from "../../../src/sandbox/index.ts";
import type { KubeObject } from "../../../src/sandbox/types.ts";
import { hasKubectl, needsKubectl, kubectlFor } from "../../helpers/kubectl.ts";

const RBAC = "rbac.authorization.k8s.io/v1";
type Rule = { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; nonResourceURLs?: string[] };
type Subject = { kind: string; name: string; namespace?: string };

const clusterRole = (name: string, rules: Rule[], extra: object = {}): KubeObject => ({
  apiVersion: RBAC,
  kind: "ClusterRole",
  metadata: { name },
  rules,
  ...extra,
});
const role = (namespace: string, name: string, rules: Rule[]): KubeObject => ({
  apiVersion: RBAC,
  kind: "Role",
  metadata: { name, namespace },
  rules,
});
const clusterBinding = (name: string, roleName: string, subjects: Subject[]): KubeObject => ({
  apiVersion: RBAC,
  kind: "ClusterRoleBinding",
  metadata: { name },
  roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: roleName },
  subjects,
});
const binding = (
  namespace: string,
  name: string,
  roleRef: { kind: "Role" | "ClusterRole"; name: string },
  subjects: Subject[],
): KubeObject => ({
  apiVersion: RBAC,
  kind: "RoleBinding",
  metadata: { name, namespace },
  roleRef: { apiGroup: "rbac.authorization.k8s.io", ...roleRef },
  subjects,
});

const bot = serviceAccountUser("system:serviceaccount:apps:bot");
const botSubject: Subject = { kind: "ServiceAccount", name: "bot", namespace: "apps" };
const READ_SERVICES: Rule = { apiGroups: [""], resources: ["services"], verbs: ["get", "list", "watch"] };

const res = (
  verb: string,
  resource: string,
  o: { group?: string; namespace?: string; name?: string; subresource?: string } = {},
): AccessAttributes => ({
  resourceAttributes: { verb, resource, group: o.group ?? "", namespace: o.namespace, name: o.name, subresource: o.subresource },
});
const nonRes = (verb: string, path: string): AccessAttributes => ({ nonResourceAttributes: { verb, path } });

function policy(objects: KubeObject[]): Policy {
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  return {
    roles: of("Role"),
    roleBindings: of("RoleBinding"),
    clusterRoles: of("ClusterRole"),
    clusterRoleBindings: of("ClusterRoleBinding"),
  };
}

/** The bot bound cluster-wide to one ClusterRole with these rules. */
const boundTo = (...rules: Rule[]) => policy([clusterRole("r", rules), clusterBinding("b", "r", [botSubject])]);
const allowedBy = (reason: string): Decision => ({ allowed: true, reason });
const DENIED: Decision = { allowed: false };
const BY_B = allowedBy('RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to ServiceAccount "bot/apps"');

describe("the requesting user", () => {
  test("a service-account token is that account, in the service-account groups", () => {
    expect(bot).toEqual({
      name: "system:serviceaccount:apps:bot",
      groups: ["system:serviceaccounts", "system:serviceaccounts:apps", "system:authenticated"],
    });
  });

  test("system:masters (the sandbox admin) is allowed anything, with no RBAC objects and no reason", () => {
    expect(SANDBOX_ADMIN.groups).toContain("system:masters");
    expect(evaluate(SANDBOX_ADMIN, res("delete", "nodes"), policy([]))).toEqual({ allowed: true });
    expect(evaluate(SANDBOX_ADMIN, nonRes("get", "/metrics"), policy([]))).toEqual({ allowed: true });
  });
});

describe("rules", () => {
  const cases: [string, AccessAttributes, Rule[], Decision][] = [
    ["exact group, resource and verb", res("list", "services"), [READ_SERVICES], BY_B],
    ["a verb not listed", res("delete", "services"), [READ_SERVICES], DENIED],
    ["another API group", res("list", "services", { group: "apps" }), [READ_SERVICES], DENIED],
    ["another resource", res("list", "secrets"), [READ_SERVICES], DENIED],
    ["verbs *", res("deletecollection", "services"), [{ apiGroups: [""], resources: ["services"], verbs: ["*"] }], BY_B],
    [
      "apiGroups *",
      res("list", "deployments", { group: "apps" }),
      [{ apiGroups: ["*"], resources: ["deployments"], verbs: ["list"] }],
      BY_B,
    ],
    ["resources *", res("list", "anything", { group: "x.io" }), [{ apiGroups: ["x.io"], resources: ["*"], verbs: ["list"] }], BY_B],
    [
      "resources * covers subresources",
      res("get", "pods", { subresource: "log" }),
      [{ apiGroups: [""], resources: ["*"], verbs: ["get"] }],
      BY_B,
    ],
    ["a requested * is literal: rule verbs [get] do not allow verb *", res("*", "services"), [READ_SERVICES], DENIED],
    ["a requested * matches a rule's *", res("*", "*", { group: "*" }), [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }], BY_B],
    [
      "resource/subresource",
      res("get", "pods", { subresource: "log" }),
      [{ apiGroups: [""], resources: ["pods/log"], verbs: ["get"] }],
      BY_B,
    ],
    [
      "the resource alone does not cover its subresources",
      res("get", "pods", { subresource: "log" }),
      [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
      DENIED,
    ],
    [
      "a subresource rule does not cover the resource",
      res("get", "pods"),
      [{ apiGroups: [""], resources: ["pods/log"], verbs: ["get"] }],
      DENIED,
    ],
    [
      "*/subresource",
      res("update", "deployments", { group: "apps", subresource: "scale" }),
      [{ apiGroups: ["apps"], resources: ["*/scale"], verbs: ["update"] }],
      BY_B,
    ],
    [
      "*/subresource needs that subresource",
      res("update", "deployments", { group: "apps", subresource: "status" }),
      [{ apiGroups: ["apps"], resources: ["*/scale"], verbs: ["update"] }],
      DENIED,
    ],
    [
      "resourceNames: the named object",
      res("get", "configmaps", { name: "cfg" }),
      [{ apiGroups: [""], resources: ["configmaps"], resourceNames: ["cfg"], verbs: ["get"] }],
      BY_B,
    ],
    [
      "resourceNames: another object",
      res("get", "configmaps", { name: "other" }),
      [{ apiGroups: [""], resources: ["configmaps"], resourceNames: ["cfg"], verbs: ["get"] }],
      DENIED,
    ],
    [
      "resourceNames: a request without a name (list)",
      res("list", "configmaps"),
      [{ apiGroups: [""], resources: ["configmaps"], resourceNames: ["cfg"], verbs: ["list"] }],
      DENIED,
    ],
    [
      "empty resourceNames: any name",
      res("get", "configmaps", { name: "any" }),
      [{ apiGroups: [""], resources: ["configmaps"], resourceNames: [], verbs: ["get"] }],
      BY_B,
    ],
    [
      "one allowing rule among others",
      res("watch", "services"),
      [{ apiGroups: ["apps"], resources: ["*"], verbs: ["*"] }, READ_SERVICES],
      BY_B,
    ],
    ["nonResourceURLs: exact path", nonRes("get", "/healthz"), [{ nonResourceURLs: ["/healthz"], verbs: ["get"] }], BY_B],
    ["nonResourceURLs: another path", nonRes("get", "/healthz/etcd"), [{ nonResourceURLs: ["/healthz"], verbs: ["get"] }], DENIED],
    [
      "nonResourceURLs: trailing * is a prefix",
      nonRes("get", "/healthz/etcd"),
      [{ nonResourceURLs: ["/healthz/*"], verbs: ["get"] }],
      BY_B,
    ],
    [
      "nonResourceURLs: the prefix keeps its slash",
      nonRes("get", "/healthz"),
      [{ nonResourceURLs: ["/healthz/*"], verbs: ["get"] }],
      DENIED,
    ],
    ["nonResourceURLs: * is every path", nonRes("get", "/metrics"), [{ nonResourceURLs: ["*"], verbs: ["get"] }], BY_B],
    ["nonResourceURLs: the verb still counts", nonRes("post", "/healthz"), [{ nonResourceURLs: ["/healthz"], verbs: ["get"] }], DENIED],
    ["a resource rule does not allow a path", nonRes("get", "/api"), [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }], DENIED],
    ["a path rule does not allow a resource", res("get", "services"), [{ nonResourceURLs: ["*"], verbs: ["*"] }], DENIED],
    [
      "resourceAttributes win over nonResourceAttributes",
      { ...res("get", "services"), ...nonRes("get", "/healthz") },
      [{ nonResourceURLs: ["/healthz"], verbs: ["get"] }],
      DENIED,
    ],
    ["a spec with neither attributes", {}, [{ apiGroups: ["*"], resources: ["*"], nonResourceURLs: ["*"], verbs: ["*"] }], DENIED],
  ];
  for (const [name, attributes, rules, want] of cases) {
    test(name, () => expect(evaluate(bot, attributes, boundTo(...rules))).toEqual(want));
  }
});

describe("bindings and subjects", () => {
  const reader = clusterRole("svc-reader", [READ_SERVICES]);
  const inApps = res("list", "services", { namespace: "apps" });
  const cases: [string, UserInfo, AccessAttributes, KubeObject[], Decision][] = [
    ["no bindings: denied, no reason", bot, res("list", "services"), [reader], DENIED],
    [
      "a ClusterRoleBinding to another account",
      bot,
      res("list", "services"),
      [reader, clusterBinding("b", "svc-reader", [{ kind: "ServiceAccount", name: "other", namespace: "apps" }])],
      DENIED,
    ],
    [
      "the same account name in another namespace",
      bot,
      res("list", "services"),
      [reader, clusterBinding("b", "svc-reader", [{ kind: "ServiceAccount", name: "bot", namespace: "web" }])],
      DENIED,
    ],
    [
      "a ClusterRoleBinding's ServiceAccount subject needs a namespace",
      bot,
      inApps,
      [reader, clusterBinding("b", "svc-reader", [{ kind: "ServiceAccount", name: "bot" }])],
      DENIED,
    ],
    [
      "the first subject that applies is named",
      bot,
      res("list", "services"),
      [
        reader,
        clusterBinding("b", "svc-reader", [
          { kind: "User", name: "alice" },
          { kind: "Group", name: "system:serviceaccounts:apps" },
          botSubject,
        ]),
      ],
      allowedBy('RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "svc-reader" to Group "system:serviceaccounts:apps"'),
    ],
    [
      "a Group subject: every service account",
      bot,
      res("get", "services"),
      [reader, clusterBinding("all-sa", "svc-reader", [{ kind: "Group", name: "system:serviceaccounts" }])],
      allowedBy('RBAC: allowed by ClusterRoleBinding "all-sa" of ClusterRole "svc-reader" to Group "system:serviceaccounts"'),
    ],
    [
      "a User subject matches the user name",
      bot,
      res("get", "services"),
      [reader, clusterBinding("u", "svc-reader", [{ kind: "User", name: "system:serviceaccount:apps:bot" }])],
      allowedBy('RBAC: allowed by ClusterRoleBinding "u" of ClusterRole "svc-reader" to User "system:serviceaccount:apps:bot"'),
    ],
    [
      "bindings are tried in order: the first that allows is named",
      bot,
      res("get", "services"),
      [
        reader,
        clusterBinding("a-none", "svc-reader", [{ kind: "User", name: "alice" }]),
        clusterBinding("b-one", "svc-reader", [botSubject]),
        clusterBinding("c-two", "svc-reader", [botSubject]),
      ],
      allowedBy('RBAC: allowed by ClusterRoleBinding "b-one" of ClusterRole "svc-reader" to ServiceAccount "bot/apps"'),
    ],
    [
      "a RoleBinding of a Role: allowed in its namespace",
      bot,
      inApps,
      [role("apps", "r", [READ_SERVICES]), binding("apps", "rb", { kind: "Role", name: "r" }, [botSubject])],
      allowedBy('RBAC: allowed by RoleBinding "rb/apps" of Role "r" to ServiceAccount "bot/apps"'),
    ],
    [
      "a RoleBinding of a Role: not in another namespace",
      bot,
      res("list", "services", { namespace: "web" }),
      [role("apps", "r", [READ_SERVICES]), binding("apps", "rb", { kind: "Role", name: "r" }, [botSubject])],
      DENIED,
    ],
    [
      "a RoleBinding of a Role: not cluster-wide",
      bot,
      res("list", "services"),
      [role("apps", "r", [READ_SERVICES]), binding("apps", "rb", { kind: "Role", name: "r" }, [botSubject])],
      DENIED,
    ],
    [
      "a RoleBinding's Role is looked up in the binding's namespace",
      bot,
      res("list", "services", { namespace: "web" }),
      [role("apps", "r", [READ_SERVICES]), binding("web", "rb", { kind: "Role", name: "r" }, [botSubject])],
      { allowed: false, reason: 'RBAC: role.rbac.authorization.k8s.io "r" not found' },
    ],
    [
      "a RoleBinding may grant a ClusterRole's rules in its namespace",
      bot,
      inApps,
      [reader, binding("apps", "rb", { kind: "ClusterRole", name: "svc-reader" }, [botSubject])],
      allowedBy('RBAC: allowed by RoleBinding "rb/apps" of ClusterRole "svc-reader" to ServiceAccount "bot/apps"'),
    ],
    [
      "a RoleBinding of a ClusterRole: only in its namespace",
      bot,
      res("list", "services", { namespace: "web" }),
      [reader, binding("apps", "rb", { kind: "ClusterRole", name: "svc-reader" }, [botSubject])],
      DENIED,
    ],
    [
      "a RoleBinding's ServiceAccount subject defaults to the binding's namespace",
      bot,
      inApps,
      [reader, binding("apps", "rb", { kind: "ClusterRole", name: "svc-reader" }, [{ kind: "ServiceAccount", name: "bot" }])],
      allowedBy('RBAC: allowed by RoleBinding "rb/apps" of ClusterRole "svc-reader" to ServiceAccount "bot/apps"'),
    ],
    [
      "a RoleBinding never grants non-resource URLs",
      bot,
      nonRes("get", "/healthz"),
      [
        clusterRole("paths", [{ nonResourceURLs: ["*"], verbs: ["*"] }]),
        binding("apps", "rb", { kind: "ClusterRole", name: "paths" }, [botSubject]),
      ],
      DENIED,
    ],
    [
      "a ClusterRoleBinding comes before RoleBindings",
      bot,
      inApps,
      [
        reader,
        binding("apps", "rb", { kind: "ClusterRole", name: "svc-reader" }, [botSubject]),
        clusterBinding("crb", "svc-reader", [botSubject]),
      ],
      allowedBy('RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "svc-reader" to ServiceAccount "bot/apps"'),
    ],
    [
      "a binding to a missing ClusterRole: denied, and the reason says why",
      bot,
      res("list", "services"),
      [clusterBinding("b", "gone", [botSubject])],
      { allowed: false, reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found' },
    ],
    [
      "a missing role in a binding for someone else is no reason",
      bot,
      res("list", "services"),
      [clusterBinding("b", "gone", [{ kind: "User", name: "alice" }])],
      DENIED,
    ],
    [
      "several missing roles are bracketed, duplicates once",
      bot,
      inApps,
      [
        clusterBinding("a", "gone", [botSubject]),
        clusterBinding("b", "gone", [botSubject]),
        binding("apps", "rb", { kind: "Role", name: "r" }, [botSubject]),
      ],
      {
        allowed: false,
        reason: 'RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, role.rbac.authorization.k8s.io "r" not found]',
      },
    ],
    [
      "a missing role does not matter once another binding allows",
      bot,
      res("list", "services"),
      [reader, clusterBinding("a", "gone", [botSubject]), clusterBinding("b", "svc-reader", [botSubject])],
      allowedBy('RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "svc-reader" to ServiceAccount "bot/apps"'),
    ],
    [
      "aggregated ClusterRoles count only with their stored rules (aggregation is not modelled)",
      bot,
      res("list", "services"),
      [
        reader,
        clusterRole("agg", [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { "rbac.example.com/aggregate": "true" } }] } }),
        { ...clusterRole("labelled", [READ_SERVICES]), metadata: { name: "labelled", labels: { "rbac.example.com/aggregate": "true" } } },
        clusterBinding("b", "agg", [botSubject]),
      ],
      DENIED,
    ],
  ];
  for (const [name, user, attributes, objects, want] of cases) {
    test(name, () => expect(evaluate(user, attributes, policy(objects))).toEqual(want));
  }
});

describe("a TLS sandbox answers for the token's service account", () => {
  let sb: Sandbox;
  let admin: k8s.KubeConfig;
  const rbacApi = () => admin.makeApiClient(k8s.RbacAuthorizationV1Api);
  const configFor = (yaml: string) => {
    const kc = new k8s.KubeConfig();
    kc.loadFromString(yaml);
    return kc;
  };
  const canListServices = async (kc: k8s.KubeConfig, namespace?: string) =>
    (
      await kc
        .makeApiClient(k8s.AuthorizationV1Api)
        .createSelfSubjectAccessReview({ body: { spec: { resourceAttributes: { verb: "list", resource: "services", namespace } } } })
    ).status;

  beforeAll(async () => {
    sb = await startSandbox({ name: "rbac", tls: true });
    admin = configFor(sb.kubeconfig);
  });
  afterAll(() => sb?.stop());

  /** A ServiceAccount in default, its token Secret, and a kubeconfig holding the minted token. */
  async function serviceAccount(name: string): Promise<string> {
    const core = admin.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedServiceAccount({ namespace: "default", body: { metadata: { name } } });
    await core.createNamespacedSecret({
      namespace: "default",
      body: {
        metadata: { name: `${name}-token`, annotations: { "kubernetes.io/service-account.name": name } },
        type: "kubernetes.io/service-account-token",
      },
    });
    const secret = await core.readNamespacedSecret({ namespace: "default", name: `${name}-token` });
    return sb.kubeconfigWith({ token: Buffer.from(secret.data!.token!, "base64").toString() });
  }

  async function grantServiceReading(account: string): Promise<void> {
    await rbacApi().createClusterRole({ body: { metadata: { name: `${account}-reader` }, rules: [READ_SERVICES] } });
    await rbacApi().createClusterRoleBinding({
      body: {
        metadata: { name: `${account}-reader` },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: `${account}-reader` },
        subjects: [{ kind: "ServiceAccount", name: account, namespace: "default" }],
      },
    });
  }

  test("client-node: allowed through a ClusterRoleBinding, denied once it is deleted; the admin always", async () => {
    const asBot = configFor(await serviceAccount("bot"));
    expect(await canListServices(asBot)).toEqual({ allowed: false });
    await grantServiceReading("bot");
    const reason = 'RBAC: allowed by ClusterRoleBinding "bot-reader" of ClusterRole "bot-reader" to ServiceAccount "bot/default"';
    expect(await canListServices(asBot)).toEqual({ allowed: true, reason });
    expect(await canListServices(asBot, "kube-system")).toEqual({ allowed: true, reason });
    await rbacApi().deleteClusterRoleBinding({ name: "bot-reader" });
    expect(await canListServices(asBot)).toEqual({ allowed: false });
    // Ordinary requests are not authorized: the denied account still lists services.
    expect((await asBot.makeApiClient(k8s.CoreV1Api).listNamespacedService({ namespace: "default" })).items).toBeDefined();
    expect(await canListServices(admin)).toEqual({ allowed: true });
    expect(
      await canListServices(configFor(sb.kubeconfigWith({ token: undefined, clientCert: await sb.clientCert("someone", []) }))),
    ).toEqual({ allowed: true });
  });

  test("client-node: a RoleBinding allows in its namespace only", async () => {
    const asRb = configFor(await serviceAccount("rb-bot"));
    await rbacApi().createNamespacedRole({ namespace: "default", body: { metadata: { name: "svc" }, rules: [READ_SERVICES] } });
    await rbacApi().createNamespacedRoleBinding({
      namespace: "default",
      body: {
        metadata: { name: "svc" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "svc" },
        subjects: [{ kind: "ServiceAccount", name: "rb-bot" }],
      },
    });
    expect(await canListServices(asRb, "default")).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "svc/default" of Role "svc" to ServiceAccount "rb-bot/default"',
    });
    expect(await canListServices(asRb, "kube-system")).toEqual({ allowed: false });
    expect(await canListServices(asRb)).toEqual({ allowed: false });
  });

  test.skipIf(!hasKubectl)(needsKubectl("kubectl auth can-i list services prints yes, then no"), async () => {
    const kubectl = kubectlFor(await serviceAccount("cli"));
    const canI = () => kubectl(["auth", "can-i", "list", "services"]);
    expect(await canI()).toMatchObject({ code: 1, stdout: "no\n" });
    await grantServiceReading("cli");
    expect(await canI()).toMatchObject({ code: 0, stdout: "yes\n" });
    await rbacApi().deleteClusterRole({ name: "cli-reader" });
    expect(await canI()).toMatchObject({ code: 1, stdout: 'no - RBAC: clusterrole.rbac.authorization.k8s.io "cli-reader" not found\n' });
    await rbacApi().deleteClusterRoleBinding({ name: "cli-reader" });
    expect(await canI()).toMatchObject({ code: 1, stdout: "no\n" });
    expect(await kubectlFor(sb.kubeconfig)(["auth", "can-i", "list", "services"])).toMatchObject({ code: 0, stdout: "yes\n" });
  });
});
