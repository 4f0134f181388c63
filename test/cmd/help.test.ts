// Help is data: `--help`, `-h` and `mc help [command]` print usage on stdout and exit 0, so
// `mc link --help | head -1` and `mc help | less` work. A wrong invocation is an error on
// stderr with exit 1 and nothing on stdout.
import { describe, expect, test } from "bun:test";
import { MC } from "../helpers/mc.ts";
import { runMc } from "./run-mc.ts";

async function shell(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(["bash", "-o", "pipefail", "-c", script], {
    env: { ...process.env, NO_COLOR: "1", MC },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

describe("as a shell sees it", () => {
  test("mc link --help | head -1 prints the first usage line, and the pipeline exits 0", async () => {
    const full = await runMc(["link", "--help"]);
    const r = await shell('bun "$MC" link --help | head -1');
    expect(r).toEqual({ code: 0, stdout: `${full.stdout.split("\n")[0]}\n`, stderr: "" });
    expect(r.stdout).toStartWith("Print, for the source cluster, the credentials, Link and controller");
  });

  test("mc link --bogus is one error line on stderr, exit 1, nothing on stdout", async () => {
    const r = await shell('bun "$MC" link --bogus');
    expect(r).toEqual({ code: 1, stdout: "", stderr: "error: unknown flag: --bogus (see mc link --help)\n" });
  });
});

describe("every way to ask for help prints to stdout", () => {
  test.each([[["--help"]], [["-h"]], [["help"]], [[]], [["--context", "east"]]])("mc %p: the root usage, exit 0", async (argv) => {
    const r = await runMc(argv);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("\nUsage:\n  mc <command> [options]\n");
    expect(r.stdout).toMatch(/\n {2}link +Print, for the source cluster/);
  });

  test.each([
    [["link", "--help"]],
    [["link", "-h"]],
    [["help", "link"]],
    [["--kubeconfig", "/k", "help", "link"]],
    [["link", "--cluster-name", "east", "--help"]],
  ])("mc %p: mc link's usage, exit 0", async (argv) => {
    const r = await runMc(argv);
    expect(r).toEqual({ code: 0, stdout: (await runMc(["link", "--help"])).stdout, stderr: "" });
    expect(r.stdout).toContain("\nUsage:\n  mc link [options]\n");
    expect(r.stdout).toContain("\n  --federated-service-selector=SELECTOR\n");
  });
});

describe("a wrong invocation goes to stderr with exit 1", () => {
  test.each<[string[], string]>([
    [
      ["help", "frobnicate"],
      'error: unknown command "frobnicate" for "mc" (commands: install, link, link-gen, allow, unlink, uninstall, serve, gateways, check, sandbox, demo, completion; see mc --help)\n',
    ],
    [["--bogus"], "error: unknown flag: --bogus (see mc --help)\n"],
    [["unlink", "--bogus"], "error: unknown flag: --bogus (see mc unlink --help)\n"],
  ])("mc %p", async (argv, stderr) => {
    expect(await runMc(argv)).toEqual({ code: 1, stdout: "", stderr });
  });
});
