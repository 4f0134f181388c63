// Floors and ceilings on durations (docs/decisions.md#d25, #d120): no duration below its floor or above its ceiling gets in — not through
// the API server (the CRD's patterns, driven here with the real kubectl against a sandbox), not through the Link parser, not through a
// flag. Each refusal is one line naming the field; and no timer fires early, however long its wait.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { renderLinkCrd } from "../../src/manifests/crd.ts";
import { parseLink } from "../../src/model/link.ts";
import { setLongTimer, systemClock } from "../../src/runtime/clock.ts";
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
  test.skipIf(!hasKubectl)(
    needsKubectl("refuses a probe period under 1s and a probe timeout under 100ms, naming the field; takes values at the floors"),
    async () => {
      await ok(["apply", "-f", "-"], JSON.stringify(renderLinkCrd("mc/test")));
      await ok(["create", "namespace", "linkerd-multicluster"]);
      await ok(["apply", "-f", "-"], JSON.stringify(linkObject({ probe: { path: "/ready", port: "4191", period: "3s" } })));
      const patch = (probeSpec: Record<string, string>) =>
        kubectl(["patch", "link", "east", "-n", "linkerd-multicluster", "--type", "merge", "-p", JSON.stringify({ spec: { probeSpec } })]);

      const period = await patch({ period: "1ns" });
      expect(period.code).toBe(1);
      expect(period.stderr).toContain(
        'The Link "east" is invalid: spec.probeSpec.period: Invalid value: "1ns": spec.probeSpec.period in body should match',
      );
      const timeout = await patch({ timeout: "10ms" });
      expect(timeout.code).toBe(1);
      expect(timeout.stderr).toContain('spec.probeSpec.timeout: Invalid value: "10ms": spec.probeSpec.timeout in body should match');
      const stored = JSON.parse(await ok(["get", "link", "east", "-n", "linkerd-multicluster", "-o", "json"]));
      expect(stored.spec.probeSpec).toMatchObject({ period: "3s", timeout: "30s" });

      expect((await patch({ period: "1s", timeout: "100ms" })).code).toBe(0);
      expect((await patch({ period: "1m30s", timeout: "0.5s" })).code).toBe(0);

      // Ceilings: 1000h would overflow a timer (it fired at once: 180 probes/s); 1h is the most.
      const long = await patch({ period: "1000h" });
      expect(long.code).toBe(1);
      expect(long.stderr).toContain('spec.probeSpec.period: Invalid value: "1000h": spec.probeSpec.period in body should match');
      const longTimeout = await patch({ timeout: "3601s" });
      expect(longTimeout.code).toBe(1);
      expect(longTimeout.stderr).toContain('spec.probeSpec.timeout: Invalid value: "3601s": spec.probeSpec.timeout in body should match');
      expect((await patch({ period: "1h", timeout: "60m" })).code).toBe(0);
      expect((await patch({ period: "1h2m3s" })).code).toBe(1);
    },
  );
});

describe("the Link parser", () => {
  const link = (probeSpec: Record<string, string>) => () =>
    parseLink({
      apiVersion: "multicluster.linkerd.io/v1alpha3",
      kind: "Link",
      metadata: { name: "east" },
      spec: { targetClusterName: "east", clusterCredentialsSecret: "c", probeSpec: { path: "/ready", port: "4191", ...probeSpec } },
    });

  test("refuses a probe period or timeout over 1h, naming the field, the ceiling and the fix", () => {
    expect(link({ period: "1000h" })).toThrow(
      'Link east: spec.probeSpec.period: must be at most 1h (longer leaves a dead gateway unnoticed), e.g. "3s", got "1000h"',
    );
    expect(link({ period: "3s", timeout: "2h" })).toThrow(
      'Link east: spec.probeSpec.timeout: must be at most 1h (a probe that long tells nothing), e.g. "30s", got "2h"',
    );
    // A sum of terms the CRD's pattern cannot add up is refused here.
    expect(link({ period: "30m31m" })).toThrow("spec.probeSpec.period: must be at most 1h");
    expect(link({ period: "1h", timeout: "3600s" })().probe).toMatchObject({ periodMs: 3_600_000, timeoutMs: 3_600_000 });
  });
});

describe("timers", () => {
  test("a wait over 2^31−1 ms does not fire at once (setTimeout's would: it overflows to 1 ms)", async () => {
    const fired: string[] = [];
    const cancelLong = systemClock.setTimer(1000 * 3600_000, () => fired.push("1000h"));
    const cancelJust = setLongTimer(2 ** 31, () => fired.push("2^31"));
    await new Promise<void>((resolve) => setLongTimer(30, () => resolve()));
    cancelLong();
    cancelJust();
    expect(fired).toEqual([]);
  });

  test("a wait longer than one step is the sum of its steps, and cancelling it between steps stops it", async () => {
    const start = Date.now();
    const at = await new Promise<number>((resolve) => setLongTimer(45, () => resolve(Date.now()), 10));
    expect(at - start).toBeGreaterThanOrEqual(44);
    let fired = false;
    const cancel = setLongTimer(40, () => (fired = true), 10);
    await new Promise<void>((resolve) => setLongTimer(15, () => resolve()));
    cancel();
    await new Promise<void>((resolve) => setLongTimer(50, () => resolve()));
    expect(fired).toBe(false);
  });
});

describe("flags", () => {
  test.each<[string[], string]>([
    [
      ["serve", "east", "--endpoint-refresh-period", "1ns"],
      'error: --endpoint-refresh-period: must be at least 10s (each period re-checks every mirror), got "1ns"\n',
    ],
    [
      ["serve", "east", "--endpoint-refresh-period=9s"],
      'error: --endpoint-refresh-period: must be at least 10s (each period re-checks every mirror), got "9s"\n',
    ],
    [
      ["serve", "east", "--status-interval=1ns"],
      'error: --status-interval: must be at least 1s (each one may write the Link), got "1ns"\n',
    ],
    [["check", "--timeout", "1ms"], 'error: --timeout: must be at least 100ms, e.g. 10s, got "1ms"\n'],
    // Each in an order the Lease accepts (duration > deadline > retry), so only the floor refuses it.
    [
      [
        "serve",
        "east",
        "--leader-elect-lease-duration",
        "900ms",
        "--leader-elect-renew-deadline",
        "600ms",
        "--leader-elect-retry-period",
        "100ms",
      ],
      'error: --leader-elect-lease-duration: must be at least 1s (a standby would take over from a live leader), got "900ms"\n',
    ],
    [
      [
        "serve",
        "east",
        "--leader-elect-lease-duration",
        "1s",
        "--leader-elect-renew-deadline",
        "400ms",
        "--leader-elect-retry-period",
        "100ms",
      ],
      'error: --leader-elect-renew-deadline: must be at least 500ms (the leader would step down at the first slow answer), got "400ms"\n',
    ],
    // Ceilings: each of these overflowed a timer, which then fired at once (~700 LISTs/s, ~460 Lease writes/s).
    [
      ["serve", "east", "--endpoint-refresh-period", "1000h"],
      'error: --endpoint-refresh-period: must be at most 24h (it repairs what an event missed), e.g. 1m, got "1000h"\n',
    ],
    [
      ["serve", "east", "--status-interval=2h"],
      'error: --status-interval: must be at most 1h (status.gateway would go stale), e.g. 10s, got "2h"\n',
    ],
    [
      [
        "serve",
        "east",
        "--leader-elect-lease-duration",
        "1000h",
        "--leader-elect-renew-deadline",
        "999h",
        "--leader-elect-retry-period",
        "998h",
      ],
      'error: --leader-elect-lease-duration: must be at most 10m (a dead leader\'s Lease blocks the next one this long), e.g. 30s, got "1000h"\n',
    ],
    [
      ["serve", "east", "--leader-elect-lease-duration", "5m", "--leader-elect-renew-deadline", "4m", "--leader-elect-retry-period", "11m"],
      'error: --leader-elect-retry-period: must be at most 10m (a standby notices a free Lease this late), e.g. 2s, got "11m"\n',
    ],
    [["check", "--timeout", "1000h"], 'error: --timeout: must be at most 1h, e.g. 10s, got "1000h"\n'],
    [["check", "--wait", "1000h"], 'error: --wait: must be at most 24h, got "1000h"\n'],
    [["sandbox", "--drop-watches-every", "1000h"], 'error: --drop-watches-every: must be at most 24h, got "1000h"\n'],
    [["install", "--gateway-probe-seconds", "3601"], "error: --gateway-probe-seconds: must be at most 3600 (seconds), got 3601\n"],
  ])("mc %p is refused in one line naming the flag, before any cluster is touched", async (args, stderr) => {
    const r = await mc(["--kubeconfig", "/nonexistent/kubeconfig", ...args]);
    expect(r).toEqual({ code: 1, stdout: "", stderr });
  });
});
