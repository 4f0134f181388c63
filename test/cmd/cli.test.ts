import { describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { extractGlobals, globals } from "../../cmd/globals.ts";
import { mc } from "../helpers/mc.ts";

describe("mc root command", () => {
  test("--version prints the package version on stdout", async () => {
    const r = await mc(["--version"]);
    expect(r).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  test("--help prints usage on stderr and nothing on stdout", async () => {
    const r = await mc(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("sandbox");
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
    Object.assign(globals, { context: undefined, kubeconfig: undefined, verbose: false });
    expect(extractGlobals(["--context", "east", "link", "--cluster-name", "east"])).toEqual(["link", "--cluster-name", "east"]);
    expect(globals.context).toBe("east");
    expect(extractGlobals(["link", "--kubeconfig=/k", "-v", "--cluster-name", "east"])).toEqual(["link", "--cluster-name", "east"]);
    expect(globals).toMatchObject({ kubeconfig: "/k", verbose: true });
  });

  test("stop at -- and need a value", () => {
    expect(extractGlobals(["x", "--", "--context", "a"])).toEqual(["x", "--", "--context", "a"]);
    expect(() => extractGlobals(["--context"])).toThrow(/--context: needs a value/);
  });
});
