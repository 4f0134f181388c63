// `mc gateways` as a user runs it: a subprocess against a sandbox source cluster. Pins stdout
// (data only), exit codes and the one-line error format.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alive, dead, gatewaysSandbox, mirrorService, type GatewaysSandbox } from "../gateways/fixtures.ts";
import { mc } from "../helpers/mc.ts";

let t: GatewaysSandbox;
let dir: string;
let kubeconfig: string;
beforeAll(async () => {
  t = await gatewaysSandbox();
  dir = mkdtempSync(join(tmpdir(), "mc-gateways-"));
  kubeconfig = join(dir, "west.kubeconfig");
  writeFileSync(kubeconfig, t.sb.kubeconfig);
  const now = new Date().toISOString();
  await t.addLink("west-2", { status: dead({ at: now }) });
  await t.addLink("east", { status: alive({ at: now }) });
  await t.add(mirrorService("web", "default", "east"));
});
afterAll(async () => {
  await t.sb.stop();
  rmSync(dir, { recursive: true, force: true });
});

const gateways = (...args: string[]) => mc(["gateways", "--kubeconfig", kubeconfig, ...args]);

describe("mc gateways", () => {
  test("prints the table on stdout, sorted by cluster, and nothing on stderr", async () => {
    const r = await gateways();
    expect(r).toEqual({
      code: 0,
      stderr: "",
      stdout: [
        "CLUSTER  ALIVE    NUM_SVC  LATENCY_P50  LATENCY_P95  LATENCY_P99",
        "east     True           1          3ms          9ms         14ms",
        "west-2   False          0            -            -            -",
        "",
      ].join("\n"),
    });
  });

  test("-o json prints an array of rows", async () => {
    const r = await gateways("-o", "json", "--cluster-name", "east");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        clusterName: "east",
        alive: true,
        stale: false,
        numberOfServices: 1,
        latency: { p50: "3ms", p95: "9ms", p99: "14ms" },
        lastProbeTime: expect.any(String),
      },
    ]);
  });

  test("--wait returns at once when every Link is fresh", async () => {
    const r = await gateways("--wait", "30s", "-o", "json");
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as unknown[]).length).toBe(2);
  });

  const bad: Array<[string, string[], string]> = [
    ["an unknown output format", ["-o", "yaml"], 'error: --output: must be one of table, json, got "yaml"\n'],
    [
      "a wait without a unit",
      ["--wait", "30"],
      'error: --wait: must be a duration such as 30s or 2m (a bare number has no unit: write 30s), got "30"\n',
    ],
    [
      "a cluster name that is not a DNS label",
      ["--cluster-name", "East_1"],
      `error: --cluster-name: must be a DNS-1123 label (lowercase letters, digits, '-'), got "East_1"\n`,
    ],
    ["a positional argument", ["east"], 'error: unexpected argument "east": mc gateways takes flags only (e.g. --cluster-name east)\n'],
    [
      "a namespace without Links",
      ["--namespace", "default"],
      "error: no Links in namespace default on west: link a target with `mc --context <target> link --cluster-name <name> | kubectl apply -f -`\n",
    ],
  ];
  for (const [what, args, stderr] of bad) {
    test(`${what} is one line naming the fix, exit 1, empty stdout`, async () => {
      const r = await gateways(...args);
      expect(r).toEqual({ code: 1, stdout: "", stderr });
    });
  }
});
