// `bun run fidelity`: every kubectl case of cases.ts against a sandbox and a real kube-apiserver (test/real: `bun run kube:build` first,
// root for its gateway host), the outputs normalised (normalize.ts) and compared.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import YAML from "yaml";
import { startSandbox } from "../../src/sandbox/index.ts";
import { kubectlFor, type Kubectl } from "../helpers/kubectl.ts";
import { whyNoRealClusters } from "../real/backend.ts";
import { startRealClusters } from "../real/clusters.ts";
import { CASES, type Case } from "./cases.ts";
import { normalize } from "./normalize.ts";

// A difference is either fixed in the sandbox or listed with its reason in differences.yaml; the run
// fails on any unlisted difference (and on a listed one that no longer differs, so the list stays
// true) and ends with `fidelity: N cases, D differences (L listed)`. `--only TEXT` runs the cases
// whose name has it; `--sandbox-only` runs the sandbox side alone (no comparison), to try cases
// without a real server.

interface Side {
  name: string;
  kubectl: Kubectl;
  stop(): Promise<void>;
}

const args = process.argv.slice(2);
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;
const sandboxOnly = args.includes("--sandbox-only");

async function sandboxSide(): Promise<Side> {
  const sb = await startSandbox({ name: "fidelity", tls: true, enforceRbac: true });
  return { name: "sandbox", kubectl: kubectlFor(sb.kubeconfig), stop: () => sb.stop() };
}

async function realSide(): Promise<Side> {
  const why = whyNoRealClusters();
  if (why) throw new Error(`fidelity needs a real API server: ${why}`);
  const clusters = await startRealClusters({ linkerd: false });
  return { name: "real", kubectl: kubectlFor(clusters.east.kubeconfig), stop: () => clusters.stop() };
}

/** One case on one side: its transcript (compared steps only), normalised. */
async function runCase(side: Side, c: Case, index: number): Promise<string> {
  const ns = `fid-${index}`;
  const vars: Record<string, string> = { NS: ns };
  const fill = (s: string) => s.replace(/\$([A-Z]+)/g, (m, v: string) => vars[v] ?? m);
  await side.kubectl(["create", "namespace", ns]);
  const out: string[] = [];
  for (const step of c.steps) {
    const argv = step.args.map(fill);
    const stdin = step.stdin === undefined ? undefined : fill(step.stdin);
    let r = await side.kubectl(argv, stdin === undefined ? {} : { stdin });
    const until = step.until;
    if (until !== undefined) {
      const deadline = performance.now() + 20_000;
      const met = () =>
        typeof until === "string" ? `${r.stdout}${r.stderr}`.includes(until) : until.test(r.stdout) || until.test(r.stderr);
      while (!met() && performance.now() < deadline) {
        await Bun.sleep(250); // a controller's own time: polled, as a user would re-run kubectl
        r = await side.kubectl(argv, stdin === undefined ? {} : { stdin });
      }
    }
    if (step.save) vars[step.save] = r.stdout.trim();
    if (step.setup) {
      if (r.code !== 0) out.push(`! setup failed: kubectl ${argv.join(" ")}\n${r.stderr}`);
      continue;
    }
    out.push(
      `$ kubectl ${argv.join(" ")}\nexit ${r.code}\n${r.stdout}${r.stdout && !r.stdout.endsWith("\n") ? "\n" : ""}--- stderr\n${r.stderr}`,
    );
  }
  void side.kubectl(["delete", "namespace", ns, "--wait=false"]);
  return normalize(out.join("\n"));
}

/** The lines of `a` and `b` that differ, as a short unified listing. */
function diffLines(a: string, b: string): string {
  const x = a.split("\n");
  const y = b.split("\n");
  const out: string[] = [];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] === y[i]) continue;
    if (x[i] !== undefined) out.push(`  - sandbox: ${x[i]}`);
    if (y[i] !== undefined) out.push(`  + real:    ${y[i]}`);
  }
  return out.join("\n");
}

interface Listed {
  case: string;
  reason: string;
}

const listed: Listed[] =
  (YAML.parse(readFileSync(join(import.meta.dir, "differences.yaml"), "utf8")) as { differences?: Listed[] } | null)?.differences ?? [];
const cases = CASES.map((c, i) => ({ c, i })).filter(({ c }) => only === undefined || c.name.includes(only));

const sandbox = await sandboxSide();
const real = sandboxOnly ? undefined : await realSide();
let differences = 0;
let unlisted = 0;
let stale = 0;
try {
  for (const { c, i } of cases) {
    const [a, b] = await Promise.all([runCase(sandbox, c, i), real ? runCase(real, c, i) : Promise.resolve(undefined)]);
    const known = listed.find((l) => l.case === c.name);
    if (b === undefined) {
      console.log(`# ${c.name}\n${a}`);
      continue;
    }
    if (a === b) {
      if (known) {
        stale++;
        console.log(`✗ ${c.name}: listed as a difference but the outputs agree (remove it from differences.yaml)`);
      } else console.log(`✓ ${c.name}`);
      continue;
    }
    differences++;
    if (known) {
      console.log(`≠ ${c.name} (listed: ${known.reason})`);
      continue;
    }
    unlisted++;
    console.log(`✗ ${c.name}: differs\n${diffLines(a, b)}`);
  }
} finally {
  await Promise.all([sandbox.stop(), real?.stop()]);
}
if (real) console.log(`fidelity: ${cases.length} cases, ${differences} differences (${differences - unlisted} listed)`);
process.exit(unlisted > 0 || stale > 0 ? 1 : 0);
