// A Link made by Linkerd's own CLI: `mc serve` mirrors under exactly the RBAC Linkerd's link chart grants, and `mc check` agrees.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { JsonReport } from "../../src/checker/render.ts";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import { localResourcesAccessName } from "../../src/model/names.ts";
import { runMc } from "../cmd/run-mc.ts";
import { linkResource } from "../../src/model/link.ts";
import { exportService, multiclusterSetup, NS, waitFor, type Setup } from "../helpers/clusters.ts";

// A Link made by Linkerd's own CLI grants its controller what Linkerd's link
// chart grants (multicluster/charts/linkerd-multicluster-link/templates/service-mirror.yaml):
// endpoints and services list/get/watch/create/delete/update, namespaces list/get/watch — no
// patch, no events. mc serve under exactly that RBAC (enforced) mirrors and updates (its Events
// are best effort: a denied one is logged at debug), and mc check agrees: the RBAC check passes,
// noting the Events.

const clusterRoles = {
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "ClusterRole",
  plural: "clusterroles",
  group: "rbac.authorization.k8s.io",
  version: "v1",
  namespaced: false,
} as const;

/** The ClusterRole Linkerd's link chart renders for a Link's service mirror. */
const linkerdRules = [
  { apiGroups: [""], resources: ["endpoints", "services"], verbs: ["list", "get", "watch", "create", "delete", "update"] },
  { apiGroups: [""], resources: ["namespaces"], verbs: ["list", "get", "watch"] },
];

let s: Setup;
beforeAll(async () => {
  s = await multiclusterSetup({ enforceRbac: true, startControllers: false });
}, 30_000);
afterAll(() => s?.stop());

async function setRules(rules: unknown[]): Promise<void> {
  const name = localResourcesAccessName("east");
  const role = await s.westClient.get<KubeObject>(clusterRoles, undefined, name);
  await s.westClient.update(clusterRoles, { ...role, rules } as KubeObject);
}

async function rbacCheck() {
  const r = await runMc(["--kubeconfig", s.westKubeconfig, "check", "-o", "json"]);
  const report = JSON.parse(r.stdout) as JsonReport;
  return report.categories[0]!.checks.find((c) => c.id === "controller-rbac")!;
}

test("under Linkerd's ClusterRole, mc serve (as the rendered ServiceAccount, RBAC enforced) mirrors and updates with no failure, and mc check's RBAC check passes, noting the Events it may not record", async () => {
  await setRules(linkerdRules);
  const east = s.targets.get("east")!;
  await s.startController("east");
  exportService(east, "default", "late");
  await waitFor(s.westClient, resources.service, "default", "late-east", (o) => o !== undefined, "late-east mirrored");
  // An update of the exported Service reaches its mirror (an update: the controller never patches).
  const svc = await east.client.get<KubeObject>(resources.service, "default", "late");
  await east.client.update(resources.service, { ...svc, metadata: { ...svc.metadata, labels: { ...svc.metadata.labels, tier: "edge" } } });
  await waitFor(
    s.westClient,
    resources.service,
    "default",
    "late-east",
    (o) => o?.metadata.labels?.tier === "edge",
    "late-east's new label",
  );
  const link = await s.westClient.get<KubeObject & { status?: { mirrorServices?: unknown[] } }>(linkResource, NS, "east");
  expect(link.status?.mirrorServices ?? []).toEqual([]); // no write failed (a 403 on one would be listed here)

  const check = await rbacCheck();
  expect(check.result).toBe("success");
  expect(check.details).toEqual([
    "east: linkerd-service-mirror-east, made by mc link",
    `east: ClusterRole ${localResourcesAccessName("east")} does not grant create events: mirroring works, but the controller records no Events; ClusterRole ${localResourcesAccessName("east")} does not grant what the Multi-Cluster Services import writes (serviceimports, endpointslices): mirroring works, but the import is off`,
  ]);
}, 30_000);

test("a ClusterRole without update on endpoints still fails the RBAC check, naming it", async () => {
  await setRules([{ ...linkerdRules[0], verbs: ["list", "get", "watch", "create", "delete"] }, linkerdRules[1]]);
  const check = await rbacCheck();
  expect(check.result).toBe("error");
  expect(check.details).toEqual([`east: ClusterRole ${localResourcesAccessName("east")} does not grant update endpoints, update services`]);
});
