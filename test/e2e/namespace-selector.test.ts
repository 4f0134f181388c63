// --namespace-selector end to end on two sandboxes with RBAC enforced: the target installed with `mc install --namespaces-access`, `mc link
// --namespace-selector team=shop` applied to west, its controller as the rendered ServiceAccount; the target's namespace labelled and
// unlabelled with the real kubectl, the mirror following; mc check's remote-access review asks for Namespaces.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import { findCondition, readConditions } from "../../src/model/conditions.ts";
import { linkResource } from "../../src/model/link.ts";
import { runMc } from "../cmd/run-mc.ts";
import { multiclusterSetup, waitFor, type Setup } from "../helpers/clusters.ts";
import { hasKubectl, kubectlFor, needsKubectl, type Kubectl } from "../helpers/kubectl.ts";

let s: Setup;
let east: Kubectl;
beforeAll(async () => {
  if (!hasKubectl) return;
  s = await multiclusterSetup({
    enforceRbac: true,
    installArgs: ["--namespaces-access"],
    linkArgs: ["--namespace-selector", "team=shop"],
    settings: { namespaceSelector: "team=shop" },
  });
  east = kubectlFor(s.targets.get("east")!.sandbox.kubeconfig);
}, 30_000);
afterAll(async () => {
  await s?.stop();
});

const exists = (o: KubeObject | undefined) => o !== undefined;
const gone = (o: KubeObject | undefined) => o === undefined;

describe.skipIf(!hasKubectl)("mc link --namespace-selector", () => {
  test(
    needsKubectl("an unselected namespace's export has no mirror; mc check's access review passes with --namespaces-access"),
    async () => {
      expect(await s.westClient.get(resources.service, "default", "web-east").catch(() => undefined)).toBeUndefined();
      const check = await runMc(["--kubeconfig", s.westKubeconfig, "check", "-o", "json"]);
      const checks = (
        JSON.parse(check.stdout) as { categories: Array<{ checks: Array<{ description: string; result: string }> }> }
      ).categories.flatMap((c) => c.checks);
      expect(checks.find((c) => c.description === "remote cluster access credentials are valid")?.result).toBe("success");
    },
  );

  test(needsKubectl("kubectl label namespace selects it: the mirror comes; the label removed: the mirror goes"), async () => {
    expect((await east(["label", "namespace", "default", "team=shop"])).stderr).toBe("");
    await waitFor(s.westClient, resources.service, "default", "web-east", exists, "web-east once default is selected", 10_000);
    await waitFor(s.westClient, resources.endpoints, "default", "web-east", exists, "its Endpoints");
    expect((await east(["label", "namespace", "default", "team-"])).stderr).toBe("");
    await waitFor(s.westClient, resources.service, "default", "web-east", gone, "web-east once default is no longer selected", 10_000);
    // web-east is still exported, in a namespace no longer selected: the Link selects nothing, and mc check says so.
    const selectsNothing = (o: KubeObject | undefined) =>
      findCondition(readConditions((o as { status?: unknown } | undefined)?.status), "ServicesSelected")?.reason === "SelectsNothing";
    await waitFor(s.westClient, linkResource, "linkerd-multicluster", "east", selectsNothing, "ServicesSelected SelectsNothing", 10_000);
    const check = await runMc(["--kubeconfig", s.westKubeconfig, "check", "-o", "json"]);
    const checks = (
      JSON.parse(check.stdout) as { categories: Array<{ checks: Array<{ description: string; result: string }> }> }
    ).categories.flatMap((c) => c.checks);
    const selects = checks.find((c) => c.description === "every Link selects services");
    expect(selects?.result).toBe("warning");
    expect(JSON.stringify(selects)).toContain("--namespace-selector team=shop");
  }, 30_000);

  test(needsKubectl("without the Namespaces grant on the target, mc check names what is denied and the flag that grants it"), async () => {
    const role = "linkerd-service-mirror-remote-access-default";
    const got = await east(["get", "clusterrole", role, "-o", "json"]);
    const obj = JSON.parse(got.stdout) as { rules: Array<{ resources: string[] }> };
    obj.rules = obj.rules.filter((r) => !r.resources.includes("namespaces"));
    expect((await east(["replace", "-f", "-"], { stdin: JSON.stringify(obj) })).code).toBe(0);
    const check = await runMc(["--kubeconfig", s.westKubeconfig, "check", "-o", "json"]);
    const checks = (
      JSON.parse(check.stdout) as { categories: Array<{ checks: Array<{ description: string; result: string }> }> }
    ).categories.flatMap((c) => c.checks);
    const access = checks.find((c) => c.description === "remote cluster access credentials are valid");
    expect(access?.result).toBe("error");
    expect(JSON.stringify(access)).toContain("list, watch namespaces");
    expect(JSON.stringify(access)).toContain("apply mc install --namespaces-access (or mc allow --namespaces-access) on the target");
  }, 20_000);
});
