// `mc link --enable-namespace-creation` renders a controller that runs `mc serve
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { JsonReport } from "../../src/checker/render.ts";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import { installControllers } from "../../src/cli/install-controllers.ts";
import { renderInstallControllers } from "../../src/manifests/install-controllers.ts";
import type { Manifest } from "../../src/manifests/meta.ts";
import { localResourcesAccessName, serviceMirrorName } from "../../src/model/names.ts";
import { proberFactory } from "../../src/prober/index.ts";
import { serve, type Serving } from "../../src/serve/serve.ts";
import { runMc } from "../cmd/run-mc.ts";
import { applyObjects } from "../helpers/apply.ts";
import { parseManifests } from "../../src/manifests/output.ts";
import { exportService, GATEWAY_IP, multiclusterSetup, NS, waitFor, type Setup } from "../helpers/clusters.ts";

// --enable-namespace-creation` and a ClusterRole that lets it (namespaces create, as Linkerd's chart
// renders for enableNamespaceCreation): under that RBAC, enforced, a Service exported from a
// namespace the source lacks is mirrored into a namespace the controller creates. mc check agrees:
// a controller run with the flag whose ClusterRole lacks the grant fails the RBAC check, naming it.

const clusterRoles = {
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "ClusterRole",
  plural: "clusterroles",
  namespaced: false,
} as const;

let s: Setup;
let bundle: Manifest[];
beforeAll(async () => {
  s = await multiclusterSetup({ enforceRbac: true, startControllers: false });
  const east = s.targets.get("east")!;
  const r = await runMc([
    "--kubeconfig",
    east.kubeconfigPath,
    "link",
    "--cluster-name",
    "east",
    "--gateway-addresses",
    GATEWAY_IP,
    "--enable-namespace-creation",
  ]);
  if (r.code !== 0) throw new Error(`mc link --enable-namespace-creation failed: ${r.stderr}`);
  bundle = parseManifests(r.stdout);
  // The controller's objects only: the Link (with the setup's probe) and its Secrets stay as they are.
  applyObjects(
    s.west,
    bundle.filter((o) => o.kind !== "Link" && o.kind !== "Secret"),
  );
}, 30_000);
afterAll(() => s?.stop());

async function rbacCheck() {
  const r = await runMc(["--kubeconfig", s.westKubeconfig, "check", "-o", "json"]);
  const report = JSON.parse(r.stdout) as JsonReport;
  return report.categories[0]!.checks.find((c) => c.id === "controller-rbac")!;
}

test("mc link --enable-namespace-creation renders the controller with the flag and namespaces create in its ClusterRole", () => {
  const deployment = bundle.find((o) => o.kind === "Deployment") as Manifest & {
    spec: { template: { spec: { containers: Array<{ args: string[] }> } } };
  };
  expect(deployment.spec.template.spec.containers[0]!.args).toContain("--enable-namespace-creation");
  const role = bundle.find((o) => o.kind === "ClusterRole") as Manifest & { rules: Array<{ resources: string[]; verbs: string[] }> };
  expect(role.rules.filter((r) => r.resources.includes("namespaces"))).toEqual([
    { apiGroups: [""], resources: ["namespaces"], verbs: ["list", "get", "watch"] },
    { apiGroups: [""], resources: ["namespaces"], verbs: ["create"] },
  ] as never);
});

test("under that RBAC, enforced, the controller creates the missing namespace of an exported Service and mirrors it; mc check's RBAC check passes", async () => {
  const east = s.targets.get("east")!;
  await east.client.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: "fresh" } });
  exportService(east, "fresh", "api");
  let serving: Serving | undefined;
  try {
    serving = await serve({
      local: s.controllerClients.get("east")!,
      namespace: NS,
      linkName: "east",
      adminAddr: "127.0.0.1:0",
      identity: "test-east",
      settings: { enableNamespaceCreation: true, probeAddress: { east: `127.0.0.1:${east.gateway.port}` } },
      controller: { proberFactory: proberFactory() },
    });
    await waitFor(
      s.westClient,
      resources.service,
      "fresh",
      "api-east",
      (o) => o !== undefined,
      "api-east mirrored into the namespace the controller created",
      10_000,
    );
    expect((await s.westClient.get<KubeObject>(resources.namespace, undefined, "fresh")).metadata.name).toBe("fresh");
  } finally {
    await serving?.stop();
  }
  const check = await rbacCheck();
  expect(check.result).toBe("success");
  expect(check.details).toEqual([`east: ${serviceMirrorName("east")}, made by mc link`]);
}, 30_000);

test("a controller run with --enable-namespace-creation whose ClusterRole does not grant namespaces create fails mc check's RBAC check, naming it", async () => {
  const name = localResourcesAccessName("east");
  const role = await s.westClient.get<KubeObject & { rules: Array<{ resources: string[]; verbs: string[] }> }>(
    clusterRoles,
    undefined,
    name,
  );
  await s.westClient.update(clusterRoles, {
    ...role,
    rules: role.rules.filter((r) => !(r.resources.includes("namespaces") && r.verbs.includes("create"))),
  });
  const check = await rbacCheck();
  expect(check.result).toBe("error");
  expect(check.details).toEqual([`east: ClusterRole ${name} does not grant create namespaces`]);
});

test("mc install --controllers with --controller-set LINK.enable-namespace-creation=true grants namespaces create in the controllers' ClusterRole", () => {
  const controllerDefaults = { image: "mc:0", logLevel: "info", logFormat: "plain" as const, ha: false };
  const creates = (set: string) =>
    (
      renderInstallControllers({
        controllers: installControllers(["east", "north"], set, controllerDefaults),
        namespace: NS,
        version: "0",
      }).find((o) => o.kind === "ClusterRole") as Manifest & { rules: Array<{ resources: string[]; verbs: string[] }> }
    ).rules.some((r) => r.resources.includes("namespaces") && r.verbs.includes("create"));
  expect(creates("")).toBe(false);
  expect(creates("north.enable-namespace-creation=true")).toBe(true);
});
