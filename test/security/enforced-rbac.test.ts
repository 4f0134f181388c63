// Security under enforced RBAC (docs/decisions.md#d84): with every sandbox enforcing RBAC, each link's controller runs as the
// ServiceAccount `mc link` renders (west) and reaches the target with the remote-access token `mc install` renders (east) — exactly the
// rendered rules, nothing more — and mirrors and probes as it does with admin rights.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectKubeconfigText, KubeError, resources, type KubeClient, type KubeObject, type ResourceType } from "../../src/kube/index.ts";
import * as L from "../../src/model/labels.ts";
import { linkResource, type GatewayStatus } from "../../src/model/link.ts";
import { credentialsSecretName, leaseName, LINKERD_CONFIG } from "../../src/model/names.ts";
import type { EndpointsObject } from "../../src/mirror/types.ts";
import { applyObjects } from "../helpers/apply.ts";
import { exportService, multiclusterSetup, NS, waitFor, type Setup, type Target } from "../helpers/clusters.ts";

// Then the same two tokens are denied everything outside those rules, one row per denial. The
// multicluster e2e suites (gateway health, mc check, mc unlink) also run whole with MC_ENFORCE_RBAC=1
// (test/security/enforced-suites.test.ts).

let setup: Setup;
let east: Target;
/** The controller of east on west: its ServiceAccount's token. */
let controller: KubeClient;
/** The remote-access token on east, from the credentials Secret `mc link` wrote. */
let remote: KubeClient;

beforeAll(async () => {
  setup = await multiclusterSetup({ enforceRbac: true, targets: ["east", "north"], exports: { east: ["web"], north: ["web"] } });
  east = setup.targets.get("east")!;
  controller = setup.controllerClients.get("east")!;
  const secret = setup.west.store.get({ group: "", plural: "secrets" }, NS, credentialsSecretName("east")) as unknown as {
    data: Record<string, string>;
  };
  remote = await connectKubeconfigText(Buffer.from(secret.data[L.KUBECONFIG_DATA_KEY]!, "base64").toString(), "remote-access kubeconfig", {
    name: "east",
    timeoutMs: 5000,
  });
}, 20_000);
afterAll(() => setup?.stop());

type Svc = KubeObject & { spec: { ports: { name?: string; port: number }[] } };
const portsOf = (o: KubeObject | undefined) => ((o as Svc | undefined)?.spec?.ports ?? []).map((p) => `${p.name}:${p.port}`).join(",");
const subsetsOf = (o: KubeObject | undefined) => (o as EndpointsObject | undefined)?.subsets ?? [];
const ready = (o: KubeObject | undefined) =>
  subsetsOf(o).length > 0 && subsetsOf(o).every((s) => (s.addresses?.length ?? 0) > 0 && !s.notReadyAddresses?.length);
const notReady = (o: KubeObject | undefined) =>
  subsetsOf(o).length > 0 && subsetsOf(o).every((s) => !s.addresses?.length && (s.notReadyAddresses?.length ?? 0) > 0);
const mirror = (name: string, pred: (o: KubeObject | undefined) => boolean, what: string, ns = "default") =>
  waitFor(setup.westClient, resources.service, ns, name, pred, what, 8000);
/** Resolves once `cond` holds in the sandbox's store, checked at every change it commits. */
function storeUntil(sb: Setup["west"], cond: () => boolean, what: string, ms = 8000): Promise<void> {
  if (cond()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out waiting for ${what}`));
    }, ms);
    const off = sb.store.onCommit(() => {
      if (!cond()) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}
const mirrorEndpoints = (name: string, pred: (o: KubeObject | undefined) => boolean, what: string) =>
  waitFor(setup.westClient, resources.endpoints, "default", name, pred, what, 8000);

describe("the controller with exactly the rendered RBAC mirrors and probes", () => {
  test("it leads, syncs and mirrors: the mirror carries the ports and mc's labels, its Endpoints point at the gateway, the Link status is written", async () => {
    const svc = setup.west.store.get({ group: "", plural: "services" }, "default", "web-east")!;
    expect(svc.metadata.labels).toMatchObject({ [L.MIRRORED_SERVICE]: "true", [L.CLUSTER_NAME]: "east" });
    expect(portsOf(svc)).toBe("http:80");
    await mirrorEndpoints("web-east", ready, "web-east ready");
    expect(setup.west.store.get({ group: "coordination.k8s.io", plural: "leases" }, NS, leaseName("east"))?.spec).toMatchObject({
      holderIdentity: "test-east",
    });
    const link = setup.west.store.get({ group: "multicluster.linkerd.io", plural: "links" }, NS, "east") as {
      status?: { gateway?: GatewayStatus };
    };
    expect(link.status?.gateway?.alive).toBe(true);
  });

  test("a new export with two ports is mirrored; a port change follows; unexporting deletes the mirror", async () => {
    applyObjects(east.sandbox, [
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "api", namespace: "default", labels: { [L.EXPORTED]: "true" } },
        spec: {
          ports: [
            { name: "http", port: 80 },
            { name: "grpc", port: 9090 },
          ],
        },
      },
    ]);
    await mirror("api-east", (o) => portsOf(o) === "http:80,grpc:9090", "api-east with both ports");
    applyObjects(east.sandbox, [
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "api", namespace: "default", labels: { [L.EXPORTED]: "true" } },
        spec: { ports: [{ name: "http", port: 8080 }] },
      },
    ]);
    await mirror("api-east", (o) => portsOf(o) === "http:8080", "api-east's port change");
    applyObjects(east.sandbox, [
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "api", namespace: "default", labels: {} },
        spec: { ports: [{ name: "http", port: 8080 }] },
      },
    ]);
    await mirror("api-east", (o) => o === undefined, "api-east deleted after unexport");
  });

  test("a Service in a namespace west lacks is skipped with an Event on the target, and mirrored once the namespace exists", async () => {
    applyObjects(east.sandbox, [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } }]);
    exportService(east, "shop", "cart");
    const skipped = (e: KubeObject) =>
      (e as { involvedObject?: { name?: string }; reason?: string }).involvedObject?.name === "cart" &&
      (e as { reason?: string }).reason === "ServiceMirroringSkipped";
    await storeUntil(
      east.sandbox,
      () => east.sandbox.store.list({ group: "", plural: "events" }, { namespace: "shop" }).some(skipped),
      "the skip Event on east",
    );
    applyObjects(setup.west, [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } }]);
    await mirror("cart-east", (o) => o !== undefined, "cart-east once shop exists", "shop");
  });

  test("a foreign Service on a mirror's name is left alone and gets a Warning Event", async () => {
    applyObjects(setup.west, [
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "db-east", namespace: "default", labels: { app: "mine" } },
        spec: { ports: [{ port: 5432 }] },
      },
    ]);
    exportService(east, "default", "db");
    const warned = () =>
      setup.west.store
        .list({ group: "", plural: "events" }, { namespace: "default" })
        .some((e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === "db-east");
    await storeUntil(setup.west, warned, "the Warning Event on the foreign db-east");
    expect(setup.west.store.get({ group: "", plural: "services" }, "default", "db-east")?.metadata.labels).toEqual({ app: "mine" });
  });

  test("a killed gateway marks the mirror's endpoints not ready and the Link dead; back, ready again", async () => {
    await east.gateway.kill();
    await mirrorEndpoints("web-east", notReady, "web-east not ready");
    await waitFor(
      setup.westClient,
      linkResource,
      NS,
      "east",
      (l) => (l as { status?: { gateway?: GatewayStatus } } | undefined)?.status?.gateway?.alive === false,
      "east reported dead",
      8000,
    );
    east.gateway.restart();
    await mirrorEndpoints("web-east", ready, "web-east ready again");
  });

  test("a restarted controller takes its Lease back and resumes", async () => {
    await setup.startController("east");
    exportService(east, "default", "late");
    await mirror("late-east", (o) => o !== undefined, "late-east after the restart");
  });
});

/** What a denied call gives: the 403 message, or "allowed" when it went through. */
async function attempt(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return "allowed";
  } catch (err) {
    if (err instanceof KubeError && err.code === 403) return "forbidden";
    return `failed otherwise: ${(err as Error).message}`;
  }
}

const rbacType = (kind: string, plural: string, namespaced: boolean): ResourceType => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind,
  plural,
  namespaced,
});
const configMap = (namespace: string, name: string): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace } });

describe("the same tokens are denied everything outside the rendered rules", () => {
  const secretOf = (c: string): KubeObject => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: credentialsSecretName(c), namespace: NS },
    type: "Opaque",
  });
  const denials: [string, () => KubeClient, () => Promise<unknown>][] = [
    // East, with the remote-access token: no Secret, no write but Events, one ConfigMap.
    [
      "east: read a Secret in the extension namespace",
      () => remote,
      () => remote.get(resources.secret, "linkerd-multicluster", "linkerd-service-mirror-remote-access-default-token"),
    ],
    ["east: list Secrets in a namespace", () => remote, () => remote.list(resources.secret, { namespace: "default" })],
    ["east: list Secrets cluster-wide", () => remote, () => remote.list(resources.secret)],
    ["east: watch Secrets", () => remote, () => remote.watch(resources.secret, { namespace: "kube-system" }).then((w) => w.cancel())],
    [
      "east: create a Service",
      () => remote,
      () =>
        remote.create(resources.service, {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: "x", namespace: "default" },
          spec: { ports: [{ port: 1 }] },
        }),
    ],
    [
      "east: update an exported Service",
      () => remote,
      async () => remote.update(resources.service, await remote.get(resources.service, "default", "web")),
    ],
    [
      "east: patch an exported Service",
      () => remote,
      () => remote.patch(resources.service, "default", "web", { metadata: { labels: { x: "y" } } }),
    ],
    ["east: delete an exported Service", () => remote, () => remote.delete(resources.service, "default", "web")],
    [
      "east: write Endpoints",
      () => remote,
      () => remote.patch(resources.endpoints, "default", "web", { metadata: { labels: { x: "y" } } }),
    ],
    [
      "east: read a ConfigMap other than linkerd-config",
      () => remote,
      () => remote.get(resources.configMap, "kube-system", "kube-root-ca.crt"),
    ],
    ["east: list ConfigMaps (linkerd-config is get-only)", () => remote, () => remote.list(resources.configMap, { namespace: "linkerd" })],
    ["east: write linkerd-config", () => remote, () => remote.patch(resources.configMap, "linkerd", LINKERD_CONFIG, { data: { x: "y" } })],
    ["east: create a ConfigMap", () => remote, () => remote.create(resources.configMap, configMap("default", "x"))],
    ["east: delete a Namespace", () => remote, () => remote.delete(resources.namespace, undefined, "default")],
    [
      "east: create a ClusterRoleBinding (escalate)",
      () => remote,
      () =>
        remote.create(rbacType("ClusterRoleBinding", "clusterrolebindings", false), {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "ClusterRoleBinding",
          metadata: { name: "x" },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
          subjects: [],
        } as KubeObject),
    ],
    [
      "east: scale the gateway Deployment",
      () => remote,
      () => remote.patch(resources.deployment, "linkerd-multicluster", "linkerd-gateway", { spec: { replicas: 0 } }),
    ],
    // West, with east's controller token: its own Secret only, no other link's.
    ["west: read north's credentials Secret", () => controller, () => controller.get(resources.secret, NS, credentialsSecretName("north"))],
    [
      "west: watch north's credentials Secret",
      () => controller,
      () => controller.list(resources.secret, { namespace: NS, fieldSelector: `metadata.name=${credentialsSecretName("north")}` }),
    ],
    ["west: update north's credentials Secret", () => controller, () => controller.update(resources.secret, secretOf("north"))],
    [
      "west: delete north's credentials Secret",
      () => controller,
      () => controller.delete(resources.secret, NS, credentialsSecretName("north")),
    ],
    ["west: list every Secret of the namespace", () => controller, () => controller.list(resources.secret, { namespace: NS })],
    [
      "west: write its own credentials Secret",
      () => controller,
      () => controller.patch(resources.secret, NS, credentialsSecretName("east"), { metadata: { labels: { x: "y" } } }),
    ],
    [
      "west: create a Secret",
      () => controller,
      () => controller.create(resources.secret, { apiVersion: "v1", kind: "Secret", metadata: { name: "x", namespace: NS } }),
    ],
    [
      "west: read a Secret in another namespace",
      () => controller,
      () => controller.get(resources.secret, "linkerd", credentialsSecretName("east")),
    ],
    [
      "west: take north's Lease",
      () => controller,
      () => controller.patch(resources.lease, NS, leaseName("north"), { spec: { holderIdentity: "intruder" } }),
    ],
    ["west: read north's Lease", () => controller, () => controller.get(resources.lease, NS, leaseName("north"))],
    ["west: change a Link's spec", () => controller, () => controller.patch(linkResource, NS, "east", { spec: { gatewayPort: "1" } })],
    ["west: delete a Link", () => controller, () => controller.delete(linkResource, NS, "north")],
    ["west: create a ConfigMap", () => controller, () => controller.create(resources.configMap, configMap("default", "x"))],
    [
      "west: scale its own Deployment",
      () => controller,
      () => controller.patch(resources.deployment, NS, "linkerd-service-mirror-east", { spec: { replicas: 0 } }),
    ],
    [
      "west: grant itself more (a RoleBinding)",
      () => controller,
      () =>
        controller.create(rbacType("RoleBinding", "rolebindings", true), {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "RoleBinding",
          metadata: { name: "x", namespace: NS },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
          subjects: [],
        } as KubeObject),
    ],
  ];
  for (const [what, _who, call] of denials) test(`denied: ${what}`, async () => expect(await attempt(call)).toBe("forbidden"));

  test("while the rendered rules themselves are allowed (the control group)", async () => {
    expect(await attempt(() => remote.list(resources.service, { namespace: "default", labelSelector: `${L.EXPORTED}=true` }))).toBe(
      "allowed",
    );
    expect(await attempt(() => remote.get(resources.configMap, "linkerd", LINKERD_CONFIG))).toBe("allowed");
    expect(await attempt(() => controller.get(resources.secret, NS, credentialsSecretName("east")))).toBe("allowed");
    expect(await attempt(() => controller.get(resources.lease, NS, leaseName("east")))).toBe("allowed");
    expect(await attempt(() => controller.list(resources.service))).toBe("allowed");
  });
});
