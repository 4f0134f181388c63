// The multicluster end-to-end suites — gateway health and status pacing (test/e2e), mc check
// against live clusters (test/checker), mc unlink / uninstall (test/cmd/unlink-e2e) — run again
// whole with MC_ENFORCE_RBAC=1: every sandbox authorizes every request and each controller runs
// as the ServiceAccount `mc link` renders, reaching the target with the token `mc install`
// renders (test/helpers/setup.ts). They pass exactly as with admin rights.
import { expect, test } from "bun:test";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const SUITES = ["test/e2e", "test/checker", "test/cmd/unlink-e2e.test.ts", "test/security/enforcement-probe.test.ts"];

test(`with RBAC enforced, ${SUITES.join(", ")} pass`, async () => {
  const proc = Bun.spawn(["bun", "test", ...SUITES], { cwd: ROOT, env: { ...process.env, MC_ENFORCE_RBAC: "1", NO_COLOR: "1" }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const text = out + err;
  const failed = text.split("\n").filter((l) => l.startsWith("(fail)"));
  expect(failed).toEqual([]);
  expect(text).toContain("(pass) multiclusterSetup enforces RBAC under MC_ENFORCE_RBAC=1");
  expect(text).toMatch(/\n 0 fail\n/);
  expect(code).toBe(0);
}, 120_000);
