// --namespace-map end to end on two sandboxes with RBAC enforced: `mc link --namespace-map default=shop-east` applied to west, its
// controller as the rendered ServiceAccount; the target's default/web is mirrored into shop-east once kubectl creates that namespace, mc
// check reads the map from the controller's args (no missing or stale mirror), and mc unlink finds the mirror there.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import { runMc } from "../cmd/run-mc.ts";
import { multiclusterSetup, waitFor, type Setup } from "../helpers/clusters.ts";
import { hasKubectl, kubectlFor, needsKubectl, type Kubectl } from "../helpers/kubectl.ts";

let s: Setup;
let west: Kubectl;
beforeAll(async () => {
  if (!hasKubectl) return;
  s = await multiclusterSetup({
    enforceRbac: true,
    linkArgs: ["--namespace-map", "default=shop-east"],
    settings: { namespaceMap: { default: "shop-east" } },
  });
  west = kubectlFor(s.west.kubeconfig);
}, 30_000);
afterAll(async () => {
  await s?.stop();
});

const exists = (o: KubeObject | undefined) => o !== undefined;
type Check = { description: string; result: string };
const checks = async () =>
  (
    JSON.parse((await runMc(["--kubeconfig", s.westKubeconfig, "check", "-o", "json"])).stdout) as {
      categories: Array<{ checks: Check[] }>;
    }
  ).categories.flatMap((c) => c.checks);

describe.skipIf(!hasKubectl)("mc link --namespace-map", () => {
  test(needsKubectl("mc link renders the map into the controller's args; nothing is mirrored into default"), async () => {
    const got = await west([
      "get",
      "deployment",
      "-n",
      "linkerd-multicluster",
      "linkerd-service-mirror-east",
      "-o",
      "jsonpath={.spec.template.spec.containers[0].args}",
    ]);
    expect(got.stdout).toContain("--namespace-map=default=shop-east");
    expect(await s.westClient.get(resources.service, "default", "web-east").catch(() => undefined)).toBeUndefined();
  });

  test(needsKubectl(
    "kubectl create namespace shop-east: the mirror comes there; mc check finds it, in sync, nothing missing",
  ), async () => {
    expect((await west(["create", "namespace", "shop-east"])).code).toBe(0);
    await waitFor(s.westClient, resources.service, "shop-east", "web-east", exists, "web-east in shop-east", 10_000);
    await waitFor(s.westClient, resources.endpoints, "shop-east", "web-east", exists, "its Endpoints");
    expect(await s.westClient.get(resources.service, "default", "web-east").catch(() => undefined)).toBeUndefined();
    const all = await checks();
    for (const description of ["all mirror services are in sync with their targets", "no foreign service blocks a mirror name"]) {
      const c = all.find((x) => x.description === description);
      expect(c === undefined ? `${description}: not run` : `${description}: ${c.result}`).toBe(`${description}: success`);
    }
  }, 30_000);

  test(needsKubectl("mc unlink finds the mirror in shop-east by its labels"), async () => {
    await s.controllers.get("east")!.stop();
    const unlink = await runMc(["--kubeconfig", s.westKubeconfig, "unlink", "--cluster-name", "east"]);
    expect(unlink.stdout).toContain("namespace: shop-east");
    expect((await west(["delete", "-f", "-"], { stdin: unlink.stdout })).stderr).toBe("");
    expect(await s.westClient.get(resources.service, "shop-east", "web-east").catch(() => undefined)).toBeUndefined();
  }, 20_000);
});
