// mc check says which kind each Link's controller is: made by mc link, or rendered by the install (mc install --controllers, Linkerd 2.18's
// chart).
import { afterEach, expect, test } from "bun:test";
import type { JsonReport } from "../../src/checker/render.ts";
import { resourceOf } from "../../src/linker/owned.ts";
import { parseManifests } from "../../src/manifests/output.ts";
import { runMc } from "../cmd/run-mc.ts";
import { applyObjects } from "../helpers/apply.ts";
import { multiclusterSetup, type Setup } from "../helpers/clusters.ts";

// The migration from one to the other, as a user runs it on a live two-sandbox setup: the install's
// controller applied beside mc link's fails "controllers are running" with the fix (Linkerd fails on
// two as well), then `mc unlink --only-controller | kubectl delete -f -` leaves the install's and
// every check passes.

let setup: Setup | undefined;
afterEach(async () => {
  await setup?.stop();
  setup = undefined;
});

async function check(s: Setup) {
  const json = await runMc(["--kubeconfig", s.westKubeconfig, "check", "-o", "json"]);
  const checks = (JSON.parse(json.stdout) as JsonReport).categories[0]!.checks;
  return {
    code: json.code,
    results: Object.fromEntries(checks.map((c) => [c.id, c.result])),
    details: (id: string) => checks.find((c) => c.id === id)!.details,
  };
}

test("from mc link's controller to the install's: check names the kind, fails while both run, passes once mc link's is unlinked", async () => {
  const s = (setup = await multiclusterSetup());
  let c = await check(s);
  expect(c.details("controller-rbac")).toEqual(["east: linkerd-service-mirror-east, made by mc link"]);
  expect(c.details("controller-running")).toContain(
    "east: Deployment linkerd-multicluster/linkerd-service-mirror-east (mc link): 1/1 replicas available",
  );

  // GitOps: the source's install now renders east's controller too.
  const install = await runMc(["install", "--ignore-cluster", "--gateway=false", "--controllers", "east"]);
  applyObjects(
    s.west,
    parseManifests(install.stdout).filter(
      (o) => o.metadata.labels?.["mirror.linkerd.io/cluster-name"] === "east" || o.metadata.labels?.component === "controller",
    ),
  );
  c = await check(s);
  expect(c.results["controller-running"]).toBe("error");
  expect(c.details("controller-running")).toEqual([
    "east: two controllers, linkerd-service-mirror-east (mc link) and controller-east (mc install --controllers): delete mc link's with mc unlink --cluster-name east --only-controller | kubectl delete -f -",
  ]);

  // mc unlink --only-controller | kubectl delete -f -
  const unlink = await runMc(["--kubeconfig", s.westKubeconfig, "unlink", "--cluster-name", "east", "--only-controller"]);
  expect(unlink.code).toBe(0);
  expect(unlink.stderr).toContain(
    "Deployment linkerd-multicluster/controller-east is the install's (mc install --controllers), left alone: it serves the Link once mc link's controller is deleted",
  );
  const refs = parseManifests(unlink.stdout);
  expect(refs.map((r) => r.metadata.name).filter((n) => n.startsWith("controller-") || n.startsWith("probe-east"))).toEqual([]);
  for (const r of refs)
    await s.westClient.delete(resourceOf({ ...r, namespaced: r.metadata.namespace !== undefined }), r.metadata.namespace, r.metadata.name);

  c = await check(s);
  expect(c.code).toBe(0);
  expect(Object.values(c.results).every((r) => r === "success")).toBe(true);
  expect(c.details("controller-rbac")).toEqual(["east: controller-east, rendered by the install (mc install --controllers)"]);
  expect(c.details("controller-running")[1]).toMatch(
    /^east: Deployment linkerd-multicluster\/controller-east \(mc install --controllers\): \d\/1 replicas available$/,
  );
}, 30_000);
