// Review: a global flag without a value is one line that names the flag and the fix — readable,
// not mangled by the credential redaction (which reads `kubeconfig:`/`kubeconfig=` as a secret).
import { expect, test } from "bun:test";
import { runMc } from "../cmd/run-mc.ts";

test.each([[["--kubeconfig"]], [["gateways", "--kubeconfig"]], [["--kubeconfig="]]])(
  "mc %p says how to pass a kubeconfig",
  async (argv) => {
    const r = await runMc(argv);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).not.toContain("<redacted>");
    expect(r.stderr).toBe("error: --kubeconfig needs a value, e.g. --kubeconfig ./east.kubeconfig\n");
  },
);

test("mc --context without a value names the flag", async () => {
  const r = await runMc(["--context"]);
  expect(r).toEqual({ code: 1, stdout: "", stderr: "error: --context: needs a value, e.g. --context east\n" });
});

test("a global flag error is the user's to fix: one line and no stack, even with -v", async () => {
  const r = await runMc(["-v", "--context"]);
  expect(r).toEqual({ code: 1, stdout: "", stderr: "error: --context: needs a value, e.g. --context east\n" });
});

test("global flags belong to one run: the next run does not inherit them", async () => {
  const first = await runMc(["--kubeconfig", "/nonexistent/kubeconfig", "uninstall"]);
  expect(first.stderr).toBe("error: kubeconfig /nonexistent/kubeconfig: no such file\n");
  const second = await runMc(["sandbox"]);
  expect(second).toEqual({
    code: 1,
    stdout: "",
    stderr: "error: --kubeconfig: needs a path to write the sandbox's kubeconfig to, e.g. --kubeconfig ./east.kubeconfig\n",
  });
});
