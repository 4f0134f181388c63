// mc check on one sandbox, before anything works: no Link CRD, no Links, an invalid Link; and
// --wait retrying a check until the controller comes up.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkMulticluster } from "../../src/checker/index.ts";
import type { JsonReport } from "../../src/checker/render.ts";
import { renderLinkCrd } from "../../src/manifests/crd.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { runMc } from "../cmd/run-mc.ts";
import { applyObjects } from "../helpers/apply.ts";
import { fakeLinkerd } from "../helpers/linkerd.ts";
import { multiclusterSetup } from "../helpers/clusters.ts";

let sb: Sandbox;
let kubeconfig: string;
beforeAll(async () => {
  kubeconfig = join(mkdtempSync(join(tmpdir(), "mc-check-")), "kubeconfig");
  sb = await startSandbox({ name: "west", kubeconfigPath: kubeconfig });
  fakeLinkerd(sb);
});
afterAll(() => sb.stop());

const results = (stdout: string) =>
  Object.fromEntries((JSON.parse(stdout) as JsonReport).categories[0]!.checks.map((c) => [c.id, c.result]));

describe("mc check before the extension is set up", () => {
  test("without the Link CRD the first check fails and every other check is skipped", async () => {
    const r = await runMc(["--kubeconfig", kubeconfig, "check"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toStartWith(
      'linkerd-multicluster\n--------------------\n× Link CRD exists\n    multicluster.linkerd.io/Link CRD is missing: west does not serve multicluster.linkerd.io/v1alpha3 links (apply mc install\'s output there)\n    see docs/checks.md#l5d-multicluster-link-crd-exists for hints\n- Link resources are valid (skipped: "Link CRD exists" did not pass)\n',
    );
    expect(r.stderr).toBe("error: 1 of 17 checks failed (see the hints above)\n");
    const json = await runMc(["--kubeconfig", kubeconfig, "check", "-o", "json"]);
    expect(Object.values(results(json.stdout)).filter((s) => s === "skipped")).toHaveLength(16);
    // Linkerd's short format: only what did not pass, under its category, then the closing line.
    const short = await runMc(["--kubeconfig", kubeconfig, "check", "-o", "short"]);
    expect(short).toEqual({
      code: 1,
      stdout:
        "linkerd-multicluster\n--------------------\n× Link CRD exists\n    multicluster.linkerd.io/Link CRD is missing: west does not serve multicluster.linkerd.io/v1alpha3 links (apply mc install's output there)\n    see docs/checks.md#l5d-multicluster-link-crd-exists for hints\n\nStatus check results are ×\n",
      stderr: "error: 1 of 17 checks failed (see the hints above)\n",
    });
  });

  test("with the CRD and no Links every check passes, saying no links were detected", async () => {
    applyObjects(sb, [renderLinkCrd("test")]);
    const r = await runMc(["--kubeconfig", kubeconfig, "check"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("√ Link resources are valid\n    no links detected\n");
    expect(r.stdout).toEndWith("Status check results are √\n");
    expect(await runMc(["--kubeconfig", kubeconfig, "check", "-o", "short"])).toEqual({
      code: 0,
      stdout: "Status check results are √\n",
      stderr: "",
    });
  });

  test("an invalid Link fails with the field path that is wrong and the fix", async () => {
    applyObjects(sb, [
      {
        apiVersion: "multicluster.linkerd.io/v1alpha3",
        kind: "Link",
        metadata: { name: "bad", namespace: "default" },
        spec: { targetClusterName: "East_1", clusterCredentialsSecret: "cluster-credentials-east" },
      },
    ]);
    const r = await runMc(["--kubeconfig", kubeconfig, "check"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "× Link resources are valid\n    1 of 1 Links cannot be used:\n    * Link default/bad: spec.targetClusterName: must be a DNS-1123 label (lowercase letters, digits, '-'; at most 63), got \"East_1\"\n    see docs/checks.md#l5d-multicluster-links-are-valid for hints\n",
    );
  });
});

describe("mc check --wait", () => {
  test("retries a failing retryable check until it passes within the deadline", async () => {
    const s = await multiclusterSetup();
    try {
      await s.controllers.get("east")!.stop();
      let sleeps = 0;
      const report = await checkMulticluster({
        kubeconfig: s.westKubeconfig,
        linkerdNamespace: "linkerd",
        timeoutMs: 5000,
        waitMs: 60_000,
        // The pause between attempts is when the controller comes back.
        sleep: async () => {
          if (sleeps++ === 0) await s.startController("east");
        },
      });
      expect(report.success).toBe(true);
      expect(report.results.find((r) => r.id === "controller-running")).toMatchObject({ status: "success", attempts: 2 });
      expect(sleeps).toBe(1);
    } finally {
      await s.stop();
    }
  });
});
