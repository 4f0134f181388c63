// The `mc` root command: help, version, global flags, and a stray argument refused by every command.
import { describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { extractGlobals } from "../../src/cli/globals.ts";
import { mc } from "../helpers/mc.ts";
import { runMc } from "./run-mc.ts";

describe("mc root command", () => {
  test("--version prints the package version on stdout", async () => {
    const r = await mc(["--version"]);
    expect(r).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  test("--help prints usage on stdout and nothing on stderr", async () => {
    const r = await mc(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("sandbox");
  });

  test("an unknown command is one line on stderr and exit 1", async () => {
    const r = await mc(["frobnicate"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain('unknown command "frobnicate"');
  });

  test("an unknown flag names the flag", async () => {
    const r = await mc(["sandbox", "--nme", "x", "--kubeconfig", "/tmp/x"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("error: unknown flag: --nme (see mc sandbox --help)\n");
  });

  test("a bad flag value names the flag, the rule and the value", async () => {
    const r = await mc(["sandbox", "--name", "East_1", "--kubeconfig", "/tmp/x"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: --name: must be a DNS-1123 label (lowercase letters, digits, '-'), got "East_1"\n`);
  });
});

describe("global flags", () => {
  test("are found before or after the subcommand, with = or a separate value", () => {
    const before = extractGlobals(["--context", "east", "link", "--cluster-name", "east"]);
    expect(before.rest).toEqual(["link", "--cluster-name", "east"]);
    expect(before.globals.context).toBe("east");
    const after = extractGlobals(["link", "--kubeconfig=/k", "-v", "--cluster-name", "east"]);
    expect(after.rest).toEqual(["link", "--cluster-name", "east"]);
    expect(after.globals).toMatchObject({ kubeconfig: "/k", verbose: true });
  });

  test("stop at -- and need a value", () => {
    expect(extractGlobals(["x", "--", "--context", "a"]).rest).toEqual(["x", "--", "--context", "a"]);
    expect(() => extractGlobals(["--context"])).toThrow(/--context: needs a value/);
  });
});

describe("a stray argument is refused by every command, before anything runs", () => {
  test.each<[string[], string]>([
    [["demo", "--hold", "false"], 'unexpected argument "false": boolean flags take their value after =, e.g. --hold=false'],
    [
      ["sandbox", "--tls", "false", "--kubeconfig", "/tmp/never-written"],
      'unexpected argument "false": boolean flags take their value after =, e.g. --tls=false',
    ],
    [["sandbox", "east", "--kubeconfig", "/tmp/never-written"], 'unexpected argument "east": mc sandbox takes flags only'],
    [["serve", "east", "west"], 'unexpected argument "west": mc serve takes only flags and LINK'],
    [
      ["serve", "east", "--leader-elect", "false"],
      'unexpected argument "false": boolean flags take their value after =, e.g. --leader-elect=false',
    ],
    [["install", "--ignore-cluster", "--ha", "1"], 'unexpected argument "1": boolean flags take their value after =, e.g. --ha=1'],
    [["uninstall", "all"], 'unexpected argument "all": mc uninstall takes flags only'],
  ])("mc %p", async (argv, message) => {
    expect(await runMc(argv)).toEqual({ code: 1, stdout: "", stderr: `error: ${message}\n` });
  });
});
