// `mc serve --status-interval`: a Go duration, validated before any cluster is contacted (one
// line naming the flag), and — run as a real process against two sandboxes — the pace at which
// a steady gateway's status.gateway is rewritten in the Link.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import { linkResource, type GatewayStatus } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import { runMc } from "../cmd/run-mc.ts";
import { MC } from "../helpers/mc.ts";
import { startFakeGateway, waitFor, type FakeGateway } from "../helpers/clusters.ts";
import { credentialsSecret, linkObject, remoteEndpoints, remoteService } from "../mirror/fixtures.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";

let pair: Pair;
let gateway: FakeGateway;
let westKubeconfig: string;
beforeAll(async () => {
  pair = await startPair();
  gateway = startFakeGateway();
  westKubeconfig = join(mkdtempSync(join(tmpdir(), "mc-status-interval-")), "west.kubeconfig");
  writeFileSync(westKubeconfig, pair.west.kubeconfig, { mode: 0o600 });
});
afterAll(async () => {
  await gateway.kill();
  await pair.stop();
});

describe("mc serve --status-interval", () => {
  const NO_DURATION = "must be a positive Go duration such as 1m or 30s";
  const TOO_SHORT = "must be at least 1s (each one may write the Link)";
  test.each<[string, string, string]>([
    ["a bare number", "5", NO_DURATION],
    ["zero", "0s", TOO_SHORT],
    ["a negative duration", "-10s", TOO_SHORT],
    ["something that is no duration", "often", NO_DURATION],
    ["a duration under the 1s floor", "999ms", TOO_SHORT],
  ])("%s is a one-line error naming the flag, exit code 1", async (_what, value, message) => {
    const r = await runMc(["serve", "east", `--status-interval=${value}`]);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 1,
      stdout: "",
      stderr: `error: --status-interval: ${message}, got ${JSON.stringify(value)}\n`,
    });
  });

  test("a running mc serve rewrites a steady gateway's status at that pace, and stops on SIGTERM", async () => {
    await pair.eastClient.create(resources.service, remoteService());
    await pair.eastClient.create(resources.endpoints, remoteEndpoints());
    await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
    await pair.westClient.create(
      linkResource,
      linkObject({ gatewayAddress: "192.0.2.10", probe: { path: "/ready", port: String(gateway.port), period: "1s" } }),
    );
    const intervalMs = 1500; // the floors: probes every 1s, a status interval of 1s at the fastest
    const writes: Array<{ at: number; lastProbeTime: string }> = [];
    const seen = (o: KubeObject | undefined) => {
      const t = (o as { status?: { gateway?: GatewayStatus } } | undefined)?.status?.gateway?.lastProbeTime;
      if (t && writes.at(-1)?.lastProbeTime !== t) writes.push({ at: performance.now(), lastProbeTime: t });
      return writes.length >= 4;
    };
    const watching = waitFor(
      pair.westClient,
      linkResource,
      DEFAULT_NAMESPACE,
      "east",
      seen,
      "4 status.gateway writes from mc serve",
      20_000,
    );
    const args = [
      "--kubeconfig",
      westKubeconfig,
      "serve",
      "east",
      "--leader-elect=false",
      `--probe-address=127.0.0.1:${gateway.port}`,
      "--admin-addr",
      "127.0.0.1:0",
      "--status-interval",
      `${intervalMs}ms`,
    ];
    const proc = Bun.spawn(["bun", MC, ...args], {
      env: { ...process.env, NO_COLOR: "1" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const stderr = new Response(proc.stderr).text();
    try {
      await watching;
    } catch (err) {
      proc.kill("SIGTERM");
      throw new Error(`${(err as Error).message}; mc serve said:\n${await stderr}`);
    }
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    const gaps = writes.slice(1).map((w, i) => Math.round(w.at - writes[i]!.at));
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(intervalMs - 50);
      expect(gap).toBeLessThan(2 * intervalMs);
    }
    expect(await stderr).toContain("probing gateway east at /ready every 1s");
  }, 30_000);
});
