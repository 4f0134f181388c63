// mc check against a live two-sandbox setup (west linked to east, controller running in process): healthy passes everything; then one thing
// at a time is broken and exactly the check that covers it fails (or warns) with its hint, the checks built on it are skipped, and every
// other check passes.
import { afterEach, describe, expect, test } from "bun:test";
import YAML from "yaml";
import type { JsonReport } from "../../src/checker/render.ts";
import { resources } from "../../src/kube/index.ts";
import * as L from "../../src/model/labels.ts";
import { linkResource } from "../../src/model/link.ts";
import { credentialsSecretName, localResourcesAccessName, serviceMirrorName } from "../../src/model/names.ts";
import { runMc } from "../cmd/run-mc.ts";
import { applyObjects } from "../helpers/apply.ts";
import { fakeLinkerd } from "../helpers/linkerd.ts";
import { exportService, multiclusterSetup, NS, waitFor, type Setup } from "../helpers/clusters.ts";
import { expectGolden } from "../manifests/golden.ts";

let setup: Setup | undefined;
afterEach(async () => {
  await setup?.stop();
  setup = undefined;
});

async function start(): Promise<Setup> {
  setup = await multiclusterSetup();
  return setup;
}

async function check(s: Setup) {
  const table = await runMc(["--kubeconfig", s.westKubeconfig, "check"]);
  const json = await runMc(["--kubeconfig", s.westKubeconfig, "check", "-o", "json"]);
  const report = JSON.parse(json.stdout) as JsonReport;
  return { table, json, report, checks: report.categories[0]!.checks };
}

type Checked = Awaited<ReturnType<typeof check>>;

/** Exactly `id` ends as `status` with its hint shown; `skipped` are skipped; everything else passes. */
function expectOnly(c: Checked, id: string, status: "error" | "warning", skipped: string[] = []): void {
  const got: Record<string, string> = Object.fromEntries(c.checks.map((x) => [x.id, x.result]));
  const want: Record<string, string> = Object.fromEntries(
    c.checks.map((x) => [x.id, x.id === id ? status : skipped.includes(x.id) ? "skipped" : "success"]),
  );
  expect(got).toEqual(want);
  const failed = c.checks.find((x) => x.id === id)!;
  expect(c.table.stdout).toContain(`${status === "error" ? "×" : "‼"} ${failed.description}\n`);
  expect(c.table.stdout).toContain(`see ${failed.hint} for hints\n`);
  expect(c.table.code).toBe(status === "error" ? 1 : 0);
  expect(c.json.code).toBe(c.table.code);
}

const detailsOf = (c: Checked, id: string) => c.checks.find((x) => x.id === id)!.details.join("\n");

describe("mc check on a healthy setup", () => {
  test("passes every check, prints Linkerd's table, and exits 0", async () => {
    const s = await start();
    const c = await check(s);
    expect(c.checks.every((x) => x.result === "success")).toBe(true);
    expect(c.table.code).toBe(0);
    expect(c.table.stderr).toBe("");
    expectGolden("check-healthy.txt", c.table.stdout);
  });
});

describe("mc check with one thing broken", () => {
  test("a deleted credentials Secret fails remote access and skips the checks that need the target", async () => {
    const s = await start();
    await s.westClient.delete(resources.secret, NS, credentialsSecretName("east"));
    const c = await check(s);
    expectOnly(c, "remote-access", "error", ["trust-anchors", "gateways-alive", "mirror-sync", "mirror-name-conflicts"]);
    expect(detailsOf(c, "remote-access")).toBe("east: Secret linkerd-multicluster/cluster-credentials-east on west: not found");
    expect(c.table.stdout).toContain(
      '- clusters share trust anchors (skipped: "remote cluster access credentials are valid" did not pass)',
    );
  });

  test("a corrupt kubeconfig in the Secret fails remote access without printing the token", async () => {
    const s = await start();
    const secret = await s.westClient.get<{ metadata: object; data: Record<string, string> }>(
      resources.secret,
      NS,
      credentialsSecretName("east"),
    );
    const kubeconfig = Buffer.from(secret.data.kubeconfig!, "base64").toString();
    const token = (YAML.parse(kubeconfig) as { users: { user: { token: string } }[] }).users[0]!.user.token;
    const corrupt = `${kubeconfig}\nusers: [unclosed\n`;
    await s.westClient.patch(resources.secret, NS, credentialsSecretName("east"), {
      data: { kubeconfig: Buffer.from(corrupt).toString("base64") },
    });
    const c = await check(s);
    expectOnly(c, "remote-access", "error", ["trust-anchors", "gateways-alive", "mirror-sync", "mirror-name-conflicts"]);
    expect(detailsOf(c, "remote-access")).toStartWith("east: kubeconfig in Secret linkerd-multicluster/cluster-credentials-east on west");
    for (const out of [c.table.stdout, c.table.stderr, c.json.stdout]) expect(out).not.toContain(token);
  });

  test("different trust anchors on the target fail only the trust anchor check", async () => {
    const s = await start();
    fakeLinkerd(s.targets.get("east")!.sandbox, {
      anchors: "-----BEGIN CERTIFICATE-----\nMIIBanother-anchor\n-----END CERTIFICATE-----\n",
    });
    const c = await check(s);
    expectOnly(c, "trust-anchors", "error");
    expect(detailsOf(c, "trust-anchors")).toBe("east: no trust anchor in common with west");
  });

  test("a probe timeout longer than the period warns that a hung gateway is noticed late, unless the controller detects failures fast", async () => {
    const s = await start();
    await s.westClient.patch(linkResource, NS, "east", { spec: { probeSpec: { timeout: "30s" } } });
    const c = await check(s);
    expectOnly(c, "probe-timeouts", "warning");
    expect(detailsOf(c, "probe-timeouts")).toBe(
      "east: probeSpec.timeout 30s exceeds probeSpec.period 1s: a gateway that accepts connections and never answers is noticed after 1 probe of 30s (set the timeout to at most 1s, or run the controller with --fast-failure-detection)",
    );
    const name = serviceMirrorName("east");
    const deployment = await s.westClient.get<{ spec: { template: { spec: { containers: Array<{ args: string[] }> } } } }>(
      resources.deployment,
      NS,
      name,
    );
    const containers = deployment.spec.template.spec.containers.map((x, i) =>
      i === 0 ? { ...x, args: [...x.args, "--fast-failure-detection"] } : x,
    );
    await s.westClient.patch(resources.deployment, NS, name, { spec: { template: { spec: { containers } } } });
    expect((await check(s)).checks.find((x) => x.id === "probe-timeouts")?.result).toBe("success");
  });

  test("a deleted controller ClusterRole fails the RBAC check and names it", async () => {
    const s = await start();
    await s.westClient.delete(
      { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", plural: "clusterroles", namespaced: false },
      undefined,
      localResourcesAccessName("east"),
    );
    const c = await check(s);
    expectOnly(c, "controller-rbac", "error");
    expect(detailsOf(c, "controller-rbac")).toBe(`east: ClusterRole ${localResourcesAccessName("east")} is missing`);
  });

  test("a stopped controller (Lease released) fails only the controller check", async () => {
    const s = await start();
    await s.controllers.get("east")!.stop();
    const c = await check(s);
    expectOnly(c, "controller-running", "error");
    expect(detailsOf(c, "controller-running")).toContain("has no holder: the controller stopped");
  });

  test("a killed gateway fails only the gateway check once the controller reports it dead", async () => {
    const s = await start();
    await s.targets.get("east")!.gateway.kill();
    await waitFor(
      s.westClient,
      linkResource,
      NS,
      "east",
      (l) => (l as { status?: { gateway?: { alive?: boolean } } } | undefined)?.status?.gateway?.alive === false,
      "east's gateway reported dead",
    );
    const c = await check(s);
    expectOnly(c, "gateways-alive", "error");
    expect(detailsOf(c, "gateways-alive")).toStartWith("east: gateway 192.0.2.10 is not alive since ");
  });

  test("a mirror whose endpoints are gone fails only the endpoints check", async () => {
    const s = await start();
    await s.targets.get("east")!.client.delete(resources.endpoints, "default", "web");
    const empty = (e: unknown) => e !== undefined && ((e as { subsets?: unknown[] }).subsets ?? []).length === 0;
    await waitFor(s.westClient, resources.endpoints, "default", "web-east", empty, "web-east's endpoints emptied");
    const c = await check(s);
    expectOnly(c, "mirror-endpoints", "error");
    expect(c.checks.find((x) => x.id === "mirror-endpoints")!.error).toBe("1 of 1 mirror service has no endpoints: default/web-east");
  });

  test("an orphan mirror (its cluster has no Link) is a warning and the exit code stays 0", async () => {
    const s = await start();
    const labels = { [L.MIRRORED_SERVICE]: "true", [L.CLUSTER_NAME]: "gone" };
    applyObjects(s.west, [
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "web-gone", namespace: "default", labels },
        spec: { ports: [{ name: "http", port: 80 }] },
      },
      {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: { name: "web-gone", namespace: "default", labels },
        subsets: [{ addresses: [{ ip: "192.0.2.10" }], ports: [{ name: "http", port: 4143 }] }],
      },
    ]);
    const c = await check(s);
    expectOnly(c, "mirror-orphans", "warning");
    expect(detailsOf(c, "mirror-orphans")).toBe('cluster "gone" has no Link: default/web-gone');
    expect(c.table.stdout).toEndWith("Status check results are ‼\n");
  });

  test("a foreign Service on a mirror name is a warning naming it", async () => {
    const s = await start();
    applyObjects(s.west, [
      { apiVersion: "v1", kind: "Service", metadata: { name: "api-east", namespace: "default" }, spec: { ports: [{ port: 80 }] } },
    ]);
    exportService(s.targets.get("east")!, "default", "api");
    const reported = (l: unknown) =>
      JSON.stringify((l as { status?: { mirrorServices?: unknown } } | undefined)?.status?.mirrorServices ?? null).includes('"api"');
    await waitFor(s.westClient, linkResource, NS, "east", reported, "the conflict on api-east in the Link status");
    const c = await check(s);
    expectOnly(c, "mirror-name-conflicts", "warning");
    expect(detailsOf(c, "mirror-name-conflicts")).toBe("east: 1 export not mirrored, the name is taken: default/api-east");
  });

  test("a target changed while the controller is stopped shows the mirror out of sync too", async () => {
    const s = await start();
    await s.controllers.get("east")!.stop();
    await s.targets.get("east")!.client.patch(resources.service, "default", "web", { metadata: { annotations: { changed: "yes" } } });
    const c = await check(s);
    expect(c.checks.filter((x) => x.result !== "success").map((x) => `${x.id}:${x.result}`)).toEqual([
      "controller-running:error",
      "mirror-sync:warning",
    ]);
    expect(detailsOf(c, "mirror-sync")).toBe("east: 1 mirror behind the target's resourceVersion: default/web-east");
  });
});
