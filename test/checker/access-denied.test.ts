// mc check against the live two-sandbox setup (as live.test.ts) when the target no longer grants the remote-access account anything: the
// sandbox answers SelfSubjectAccessReviews by RBAC for the token's service account, so the remote access check fails with its hint, the
// checks that need the target are skipped, and everything else passes.
import { afterEach, expect, test } from "bun:test";
import type { JsonReport } from "../../src/checker/render.ts";
import { DEFAULT_REMOTE_ACCESS_SA } from "../../src/model/names.ts";
import { runMc } from "../cmd/run-mc.ts";
import { multiclusterSetup, type Setup } from "../helpers/clusters.ts";

let setup: Setup | undefined;
afterEach(async () => {
  await setup?.stop();
  setup = undefined;
});

const clusterRoleBinding = {
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "ClusterRoleBinding",
  plural: "clusterrolebindings",
  namespaced: false,
};

test("a deleted remote-access ClusterRoleBinding on the target fails remote access and skips the checks that need the target", async () => {
  setup = await multiclusterSetup();
  await setup.targets.get("east")!.client.delete(clusterRoleBinding, undefined, DEFAULT_REMOTE_ACCESS_SA);
  const table = await runMc(["--kubeconfig", setup.westKubeconfig, "check"]);
  const json = await runMc(["--kubeconfig", setup.westKubeconfig, "check", "-o", "json"]);
  const checks = (JSON.parse(json.stdout) as JsonReport).categories[0]!.checks;

  const skipped = ["trust-anchors", "gateways-alive", "mirror-sync", "mirror-name-conflicts"];
  const got = Object.fromEntries(checks.map((x) => [x.id, x.result]));
  expect(got).toEqual(
    Object.fromEntries(checks.map((x) => [x.id, x.id === "remote-access" ? "error" : skipped.includes(x.id) ? "skipped" : "success"])),
  );
  const failed = checks.find((x) => x.id === "remote-access")!;
  expect(failed.description).toBe("remote cluster access credentials are valid");
  expect(failed.details).toEqual([
    "east: the credentials may not list, watch services; list, watch endpoints; create events; get configmaps linkerd-config (apply mc install or mc allow on the target, then mc link again)",
  ]);
  expect(table.stdout).toContain("× remote cluster access credentials are valid\n");
  expect(table.stdout).toContain(`see ${failed.hint} for hints\n`);
  expect(table.stdout).toContain('- clusters share trust anchors (skipped: "remote cluster access credentials are valid" did not pass)');
  expect(table.code).toBe(1);
  expect(json.code).toBe(1);
});
