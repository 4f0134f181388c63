// Shell completion as bash runs it: the script `mc completion bash` prints, sourced in a bash subprocess with bash-completion, asked for
// COMPREPLY the way readline asks on TAB. Commands, flags, -o values, Link names from the cluster and contexts from the kubeconfig; nothing
// on stderr and no hang when the cluster is down or silent.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { SHELLS } from "../../src/cli/completion.ts";
import { gatewaysSandbox, type GatewaysSandbox } from "../gateways/fixtures.ts";
import { MC, mc } from "../helpers/mc.ts";

const BASH_COMPLETION = "/usr/share/bash-completion/bash_completion";
const hasBashCompletion = await Bun.file(BASH_COMPLETION).exists();

let west: GatewaysSandbox;
let dir: string;
let kubeconfig: string;
let down: string;
let silent: string;
let blackhole: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  west = await gatewaysSandbox();
  await west.addLink("east");
  await west.addLink("north");
  dir = mkdtempSync(join(tmpdir(), "mc-completion-"));
  // Two contexts on the same sandbox: west (the sandbox's own) and west-admin.
  const config = parse(west.sb.kubeconfig) as { contexts: Array<{ name: string; context: unknown }> };
  config.contexts.push({ ...config.contexts[0]!, name: "west-admin" });
  kubeconfig = join(dir, "west.kubeconfig");
  writeFileSync(kubeconfig, stringify(config));
  // A cluster nobody listens on, and one that accepts and never answers.
  blackhole = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Promise<Response>(() => {}) });
  down = join(dir, "down.kubeconfig");
  writeFileSync(down, west.sb.kubeconfig.replace(/http:\/\/127\.0\.0\.1:\d+/, "http://127.0.0.1:1"));
  silent = join(dir, "silent.kubeconfig");
  writeFileSync(silent, west.sb.kubeconfig.replace(/http:\/\/127\.0\.0\.1:\d+/, `http://127.0.0.1:${blackhole.port}`));
});

afterAll(async () => {
  blackhole?.stop(true);
  await west?.sb.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * Each line typed, then TAB: COMPREPLY, one reply per line, and bash's stderr. COMP_WORDS is split
 * as readline splits it (on spaces and on `=`).
 */
async function tab(lines: string[]): Promise<{ replies: string[][]; stderr: string }> {
  const script = `
set -u
source ${BASH_COMPLETION}
mc() { bun "$MC" "$@"; }
source <(mc completion bash)
# readline's compopt works only inside a completion it started; here the test is readline.
compopt() { :; }
try() {
  COMP_LINE="$1"; COMP_POINT=\${#COMP_LINE}
  read -ra COMP_WORDS <<< "\${1//=/ = }"
  [[ "$1" == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
  COMPREPLY=()
  __mc_complete
  printf '%s\\n' "\${COMPREPLY[@]}" "--end--"
}
${lines.map((l) => `try ${JSON.stringify(l)}`).join("\n")}
`;
  const proc = Bun.spawn(["bash", "-c", script], {
    env: { ...process.env, MC, NO_COLOR: "1", HOME: dir, KUBECONFIG: "" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const replies = out
    .split("--end--\n")
    .slice(0, lines.length)
    .map((r) => r.split("\n").filter(Boolean));
  return { replies, stderr };
}

describe.skipIf(!hasBashCompletion)("bash, with the script mc completion bash prints (skipped without the bash-completion package)", () => {
  test("completes commands, flags and -o values, with --flag= as well as -o VALUE", async () => {
    const { replies, stderr } = await tab([
      "mc ",
      "mc li",
      "mc install -o ",
      "mc install --output=j",
      "mc link --cluster-n",
      "mc completion ",
      "mc gateways -o js",
    ]);
    const [all, li, output, eq, flag, shells, gw] = replies;
    expect(all).toEqual(expect.arrayContaining(["install", "link", "serve", "check", "completion"]));
    expect(all).not.toContain("complete");
    expect(li?.toSorted()).toEqual(["link", "link-gen"]);
    expect(output?.toSorted()).toEqual(["json", "yaml"]);
    expect(eq).toEqual(["--output=json"]);
    expect(flag).toEqual(["--cluster-name"]);
    expect(shells).toEqual([...SHELLS]);
    expect(gw).toEqual(["json"]);
    expect(stderr).toBe("");
  }, 30_000);

  test("completes Link names from the cluster and contexts from the kubeconfig", async () => {
    const k = `--kubeconfig ${kubeconfig}`;
    const { replies, stderr } = await tab([
      `mc ${k} unlink --cluster-name `,
      `mc ${k} serve `,
      `mc ${k} gateways --cluster-name n`,
      `mc ${k} --context `,
      `mc ${k} --context west-`,
    ]);
    const [unlink, serve, north, contexts, admin] = replies;
    expect(unlink?.toSorted()).toEqual(["east", "north"]);
    expect(serve?.toSorted()).toEqual(["east", "north"]);
    expect(north).toEqual(["north"]);
    expect(contexts?.toSorted()).toEqual(["west", "west-admin"]);
    expect(admin).toEqual(["west-admin"]);
    expect(stderr).toBe("");
  }, 30_000);

  test("a cluster that is down, or that never answers, completes no Link, prints nothing on stderr, and does not hang", async () => {
    const started = performance.now();
    const { replies, stderr } = await tab([`mc --kubeconfig ${down} unlink --cluster-name `, `mc --kubeconfig ${silent} serve `]);
    expect(replies).toEqual([[], []]);
    expect(stderr).toBe("");
    // Two bun start-ups and one 1.5 s timeout, with room for a loaded machine.
    expect(performance.now() - started).toBeLessThan(15_000);
  }, 30_000);
});

describe("the scripts and the callback", () => {
  test.each(SHELLS.map((s) => [s]))("mc completion %s prints a script that calls back mc complete", async (shell) => {
    const r = await mc(["completion", shell]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/mc complete '?--'?/);
  });

  test("an unknown shell is one line naming the choices", async () => {
    const r = await mc(["completion", "tcsh"]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: 'error: SHELL: must be one of bash, zsh, fish, powershell, got "tcsh" (e.g. mc completion bash)\n',
    });
  });

  test("the callback itself is silent on stderr when the cluster is down", async () => {
    const r = await mc(["complete", "--", "--kubeconfig", down, "unlink", "--cluster-name", ""]);
    expect(r).toEqual({ code: 0, stdout: ":4\n", stderr: "" });
  });

  test("--help after the callback's -- is a word to complete, not a request for help", async () => {
    const r = await mc(["complete", "--", "install", "--help", "--out"]);
    expect(r.stdout).toBe("--output\tOutput format: yaml or json\n:4\n");
  });
});
