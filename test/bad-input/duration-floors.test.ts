// Floors on durations (docs/decisions.md#d25): no duration below its floor gets in — not through
// the API server (the CRD's patterns, driven here with the real kubectl against a sandbox), not
// through the Link parser, not through a flag. Each refusal is one line naming the field.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { renderLinkCrd } from "../../src/manifests/crd.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { hasKubectl, kubectlFor, needsKubectl, type Kubectl } from "../helpers/kubectl.ts";
import { mc } from "../helpers/mc.ts";
import { linkObject } from "../mirror/fixtures.ts";

let sb: Sandbox;
let kubectl: Kubectl;

beforeAll(async () => {
  sb = await startSandbox({ name: "west" });
  kubectl = kubectlFor(sb.kubeconfig);
});
afterAll(() => sb?.stop());

async function ok(args: string[], stdin?: string): Promise<string> {
  const r = await kubectl(args, stdin === undefined ? {} : { stdin });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} → ${r.code}: ${r.stderr}`);
  return r.stdout;
}

describe("the Link CRD, through kubectl", () => {
  test.skipIf(!hasKubectl)(needsKubectl("refuses a probe period under 1s and a probe timeout under 100ms, naming the field; takes values at the floors"), async () => {
    await ok(["apply", "-f", "-"], JSON.stringify(renderLinkCrd("mc/test")));
    await ok(["create", "namespace", "linkerd-multicluster"]);
    await ok(["apply", "-f", "-"], JSON.stringify(linkObject({ probe: { path: "/ready", port: "4191", period: "3s" } })));
    const patch = (probeSpec: Record<string, string>) => kubectl(["patch", "link", "east", "-n", "linkerd-multicluster", "--type", "merge", "-p", JSON.stringify({ spec: { probeSpec } })]);

    const period = await patch({ period: "1ns" });
    expect(period.code).toBe(1);
    expect(period.stderr).toContain('The Link "east" is invalid: spec.probeSpec.period: Invalid value: "1ns": spec.probeSpec.period in body should match');
    const timeout = await patch({ timeout: "10ms" });
    expect(timeout.code).toBe(1);
    expect(timeout.stderr).toContain('spec.probeSpec.timeout: Invalid value: "10ms": spec.probeSpec.timeout in body should match');
    const stored = JSON.parse(await ok(["get", "link", "east", "-n", "linkerd-multicluster", "-o", "json"]));
    expect(stored.spec.probeSpec).toMatchObject({ period: "3s", timeout: "30s" });

    expect((await patch({ period: "1s", timeout: "100ms" })).code).toBe(0);
    expect((await patch({ period: "1m30s", timeout: "0.5s" })).code).toBe(0);
  });
});

describe("flags", () => {
  test.each<[string[], string]>([
    [["serve", "east", "--endpoint-refresh-period", "1ns"], 'error: --endpoint-refresh-period: must be at least 10s (each period re-checks every mirror), got "1ns"\n'],
    [["serve", "east", "--endpoint-refresh-period=9s"], 'error: --endpoint-refresh-period: must be at least 10s (each period re-checks every mirror), got "9s"\n'],
    [["serve", "east", "--status-interval=1ns"], 'error: --status-interval: must be at least 1s (each one may write the Link), got "1ns"\n'],
    [["check", "--timeout", "1ms"], 'error: --timeout: must be at least 100ms, e.g. 10s, got "1ms"\n'],
    // Each in an order the Lease accepts (duration > deadline > retry), so only the floor refuses it.
    [["serve", "east", "--leader-elect-lease-duration", "900ms", "--leader-elect-renew-deadline", "600ms", "--leader-elect-retry-period", "100ms"], 'error: --leader-elect-lease-duration: must be at least 1s (a standby would take over from a live leader), got "900ms"\n'],
    [["serve", "east", "--leader-elect-lease-duration", "1s", "--leader-elect-renew-deadline", "400ms", "--leader-elect-retry-period", "100ms"], 'error: --leader-elect-renew-deadline: must be at least 500ms (the leader would step down at the first slow answer), got "400ms"\n'],
  ])("mc %p is refused in one line naming the flag, before any cluster is touched", async (args, stderr) => {
    const r = await mc(["--kubeconfig", "/nonexistent/kubeconfig", ...args]);
    expect(r).toEqual({ code: 1, stdout: "", stderr });
  });
});
