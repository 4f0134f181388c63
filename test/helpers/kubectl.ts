// Runs the real kubectl against a sandbox, the way a user would: default validation, a
// per-test cache dir, no colour.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The suites drive kubectl's server-side field validation and `--subresource` (GA in 1.27). */
const MIN_MINOR = 27;

function kubectlMinor(): number | undefined {
  if (Bun.which("kubectl") === null) return undefined;
  const r = Bun.spawnSync(["kubectl", "version", "--client", "-o", "json"], { stdout: "pipe", stderr: "ignore" });
  try {
    const minor = Number.parseInt(JSON.parse(r.stdout.toString()).clientVersion.minor, 10);
    return Number.isFinite(minor) ? minor : undefined;
  } catch {
    return undefined;
  }
}

const minor = kubectlMinor();
/** A kubectl new enough for these tests is on PATH (Debian's kubernetes-client 1.20 is not). */
export const hasKubectl = minor !== undefined && minor >= MIN_MINOR;
/** Why kubectl-driven tests are skipped, for their names. */
export const kubectlSkipReason = minor === undefined ? "no kubectl on PATH" : `kubectl 1.${minor} on PATH is older than 1.${MIN_MINOR}`;
/** A test name that says why it is skipped when it is. */
export const needsKubectl = (name: string): string => (hasKubectl ? name : `${name} (skipped: ${kubectlSkipReason})`);

export interface Kubectl {
  (args: string[], opts?: { stdin?: string }): Promise<KubectlResult>;
  /** The kubeconfig file kubectl reads. */
  kubeconfigPath: string;
  /** Starts kubectl and returns the process, for long-running calls like `get --watch`. */
  spawn(args: string[]): Bun.Subprocess<"ignore", "pipe", "pipe">;
}

export function kubectlFor(kubeconfigText: string): Kubectl {
  const dir = mkdtempSync(join(tmpdir(), "mc-kubectl-"));
  const kubeconfigPath = join(dir, "kubeconfig");
  writeFileSync(kubeconfigPath, kubeconfigText, { mode: 0o600 });
  const base = ["--kubeconfig", kubeconfigPath, "--cache-dir", join(dir, "cache")];
  const env = { ...process.env, NO_COLOR: "1", HOME: dir, KUBECONFIG: "" };
  const run = (async (args: string[], opts: { stdin?: string } = {}) => {
    const proc = Bun.spawn(["kubectl", ...base, ...args], {
      env,
      stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, stdout, stderr };
  }) as Kubectl;
  run.kubeconfigPath = kubeconfigPath;
  run.spawn = (args) => Bun.spawn(["kubectl", ...base, ...args], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  return run;
}

/** Calls that must succeed with nothing on stderr (no warnings about the server); `kubectl` is looked up at each call. */
export function strictCalls(kubectl: () => Kubectl): {
  ok(args: string[], stdin?: string): Promise<string>;
  getJson(args: string[]): Promise<any>;
} {
  const ok = async (args: string[], stdin?: string) => {
    const r = await kubectl()(args, { stdin });
    if (r.code !== 0 || r.stderr.trim() !== "")
      throw new Error(`kubectl ${args.join(" ")} → ${r.code}\nstderr: ${r.stderr}\nstdout: ${r.stdout}`);
    return r.stdout;
  };
  return { ok, getJson: async (args) => JSON.parse(await ok([...args, "-o", "json"])) };
}
