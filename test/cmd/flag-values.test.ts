// Review: flag values as pflag (kubectl, linkerd) reads them. A boolean flag's `=value` is
// ParseBool's (true/false/1/0/t/f/True/FALSE…), anything else is a one-line error with empty
// stdout — never silently `true`. Short flags take `-o json`, `-o=json` and `-ojson` alike.
import { describe, expect, test } from "bun:test";
import { runMc } from "../cmd/run-mc.ts";

const install = (...flags: string[]) => runMc(["install", "--ignore-cluster", ...flags]);
const kinds = (yaml: string) => yaml.split("\n").filter((l) => l.startsWith("kind:")).length;
/** The gateway's Deployment (the local mirror's is rendered either way). */
const GATEWAY_DEPLOYMENT = /kind: Deployment\nmetadata:\n {2}name: linkerd-gateway\n/;

describe("boolean flag values", () => {
  test.each(["false", "False", "FALSE", "0", "f", "F"])("--gateway=%s leaves the gateway out", async (value) => {
    const r = await install(`--gateway=${value}`);
    expect(r.code).toBe(0);
    expect(kinds(r.stdout)).toBe(kinds((await install("--gateway=false")).stdout));
    expect(r.stdout).not.toMatch(GATEWAY_DEPLOYMENT);
  });

  test.each(["true", "True", "TRUE", "1", "t", "T"])("--gateway=%s keeps it", async (value) => {
    const r = await install(`--gateway=${value}`);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(GATEWAY_DEPLOYMENT);
  });

  test.each([
    ["--gateway=maybe", "--gateway", "maybe"],
    ["--gateway=", "--gateway", ""],
    ["--ha=no", "--ha", "no"],
  ])("%s is one line naming the flag, exit 1, empty stdout", async (arg, flag, value) => {
    const r = await install(arg);
    expect(r).toEqual({ code: 1, stdout: "", stderr: `error: ${flag}: must be true or false, got ${JSON.stringify(value)}\n` });
  });

  test("a bad boolean value fails before any cluster read", async () => {
    const r = await runMc(["--kubeconfig", "/nonexistent/kubeconfig", "link", "--cluster-name", "east", "--controller=nope"]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: 'error: --controller: must be true, false or shared, got "nope"\n' });
  });
});

describe("short flags with attached values", () => {
  test.each([[["-o", "json"]], [["-o=json"]], [["-ojson"]], [["--output=json"]]])("%p prints a JSON List", async (args) => {
    const r = await install(...args);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).kind).toBe("List");
  });
});
