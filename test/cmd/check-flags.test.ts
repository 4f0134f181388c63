// Bad input to mc check, unlink and uninstall: one line naming the flag and the fix, exit 1,
// nothing on stdout. Plus subprocess runs that pin the exit codes a shell sees.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderLinkCrd } from "../../src/manifests/crd.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { applyObjects } from "../helpers/apply.ts";
import { mc } from "../helpers/mc.ts";
import { runMc } from "./run-mc.ts";

let sb: Sandbox;
let kubeconfig: string;
beforeAll(async () => {
  kubeconfig = join(mkdtempSync(join(tmpdir(), "mc-check-flags-")), "kubeconfig");
  sb = await startSandbox({ name: "west", kubeconfigPath: kubeconfig });
});
afterAll(() => sb.stop());

const cases: Array<[string, string[], string]> = [
  ["check -o yaml", ["check", "-o", "yaml"], '--output: must be one of table, json, short, got "yaml"'],
  ["check --wait without a unit", ["check", "--wait", "5"], '--wait: must be a duration such as 5m (0s: no retries), got "5"'],
  ["check --timeout 0s", ["check", "--timeout", "0s"], '--timeout: must be at least 100ms, e.g. 10s, got "0s"'],
  ["check with an argument", ["check", "east"], 'unexpected argument "east": mc check takes flags only'],
  ["check with an unknown flag", ["check", "--namespace", "x"], "unknown flag: --namespace (see mc check --help)"],
  [
    "unlink without --cluster-name",
    ["unlink"],
    '--cluster-name: is required: the target cluster\'s name, e.g. --cluster-name east, got ""',
  ],
  [
    "unlink with a bad cluster name",
    ["unlink", "--cluster-name", "East_1"],
    `--cluster-name: must be a DNS-1123 label (lowercase letters, digits, '-'), got "East_1"`,
  ],
  ["unlink -o table", ["unlink", "--cluster-name", "east", "-o", "table"], '--output: must be one of yaml, json, got "table"'],
  ["uninstall -o table", ["uninstall", "-o", "table"], '--output: must be one of yaml, json, got "table"'],
];

describe("bad input", () => {
  test.each(cases)("%s is one line naming the flag, exit 1, empty stdout", async (_name, args, message) => {
    const r = await runMc(["--kubeconfig", kubeconfig, ...args]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: `error: ${message}\n` });
  });

  test("a kubeconfig that does not exist is one line and nothing on stdout", async () => {
    const r = await runMc(["--kubeconfig", "/nonexistent/kubeconfig", "check"]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: "error: kubeconfig /nonexistent/kubeconfig: no such file\n" });
  });
});

describe("exit codes seen by a shell", () => {
  test("mc check exits 1 when a check fails and 0 once everything passes", async () => {
    const failing = await mc(["--kubeconfig", kubeconfig, "check"]);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toStartWith("linkerd-multicluster\n--------------------\n× Link CRD exists\n");
    expect(failing.stderr).toBe("error: 1 of 17 checks failed (see the hints above)\n");
    applyObjects(sb, [renderLinkCrd("test")]);
    const passing = await mc(["--kubeconfig", kubeconfig, "check", "-o", "json"]);
    expect(passing.code).toBe(0);
    expect(JSON.parse(passing.stdout).success).toBe(true);
  });
});
