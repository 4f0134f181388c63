// `bun run bench [scenario …] [--flag=value …]`: runs the named scenarios (default: all, in the order below), prints their figures, writes
// bench/results/<scenario>.{json,md} and rebuilds the README's performance table from the latest result of each. A flag applies to every
// selected scenario that has it (`--sizes=1000`); `--sync.sizes=1000` to one only. `--list` shows them all.
import { setLogLevel } from "../src/log.ts";
import { describeMachine, machineLine } from "./lib/machine.ts";
import { latestResults, markdownTable, saveResult, updateReadme } from "./lib/report.ts";
import type { Scenario } from "./lib/scenario.ts";
import { cli } from "./scenarios/cli.ts";
import { blackbox } from "./scenarios/blackbox.ts";
import { churn } from "./scenarios/churn.ts";
import { failure } from "./scenarios/failure.ts";
import { flip } from "./scenarios/flip.ts";
import { idle } from "./scenarios/idle.ts";
import { mcs } from "./scenarios/mcs.ts";
import { memory } from "./scenarios/memory.ts";
import { resync } from "./scenarios/resync.ts";
import { sandbox } from "./scenarios/sandbox.ts";
import { scale } from "./scenarios/scale.ts";
import { slices } from "./scenarios/slices.ts";
import { sync } from "./scenarios/sync.ts";

const SCENARIOS: readonly Scenario[] = [blackbox, resync, sandbox, sync, idle, churn, flip, slices, mcs, memory, scale, failure, cli];

function usage(): string {
  const lines = ["usage: bun run bench [scenario …] [--flag=value …] [--scenario.flag=value …] [--list]", "", "scenarios:"];
  for (const s of SCENARIOS) {
    lines.push(`  ${s.name.padEnd(9)} ${s.title}`);
    for (const [name, f] of Object.entries(s.flags)) lines.push(`      --${name}=${f.default || "…"}`.padEnd(34) + f.description);
  }
  return lines.join("\n");
}

function parse(argv: string[]): { selected: Scenario[]; flags: Map<Scenario, Record<string, string>> } {
  const names: string[] = [];
  const given: Array<[string | undefined, string, string]> = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--list" || arg === "--help" || arg === "-h") {
      console.log(usage());
      process.exit(0);
    }
    const m = /^--(?:([a-z]+)\.)?([a-z][a-z-]*)(?:=(.*))?$/.exec(arg);
    if (m) {
      // `--flag value` as well as `--flag=value`: the next word is the value of a flag that takes one
      // (`--parts sync`), and of a yes/no flag unless it names a scenario (`--large sync`).
      const next = argv[i + 1];
      const takesValue = SCENARIOS.some((s) => m[2]! in s.flags && !["true", "false"].includes(s.flags[m[2]!]!.default));
      const spaced =
        m[3] === undefined && next !== undefined && !next.startsWith("-") && (takesValue || !SCENARIOS.some((s) => s.name === next));
      given.push([m[1], m[2]!, spaced ? argv[++i]! : (m[3] ?? "true")]);
    } else if (!arg.startsWith("-")) names.push(arg);
    else throw new Error(`unknown argument ${arg} (see --list)`);
  }
  for (const n of names)
    if (!SCENARIOS.some((s) => s.name === n))
      throw new Error(`unknown scenario ${n} (scenarios: ${SCENARIOS.map((s) => s.name).join(", ")})`);
  const selected = names.length > 0 ? SCENARIOS.filter((s) => names.includes(s.name)) : [...SCENARIOS];
  const flags = new Map<Scenario, Record<string, string>>();
  for (const s of selected) flags.set(s, {});
  for (const [scope, name, value] of given) {
    const takers = selected.filter((s) => (scope === undefined || s.name === scope) && name in s.flags);
    if (takers.length === 0) throw new Error(`--${scope ? `${scope}.` : ""}${name}: no selected scenario has this flag (see --list)`);
    for (const s of takers) flags.get(s)![name] = value;
  }
  return { selected, flags };
}

let parsed: ReturnType<typeof parse>;
try {
  parsed = parse(process.argv.slice(2));
} catch (err) {
  console.error(`bench: ${(err as Error).message}`);
  process.exit(2);
}
setLogLevel("warn");
const machine = describeMachine();
console.log(`mc benchmarks on ${machineLine(machine)}`);
let failed = false;
for (const s of parsed.selected) {
  const given = parsed.flags.get(s)!;
  const flags = Object.fromEntries(Object.entries(s.flags).map(([k, f]) => [k, given[k] ?? f.default]));
  console.log(`\n## ${s.name}: ${s.title}`);
  const started = performance.now();
  try {
    const result = await s.run(flags);
    const stored = await saveResult(
      s,
      given,
      result,
      { ...machine, date: new Date().toISOString().replace(/\.\d+Z$/, "Z") },
      performance.now() - started,
    );
    for (const t of result.tables) console.log(`\n${markdownTable(t)}`);
    for (const t of result.targets) console.log(`  ${t.met === undefined ? " " : t.met ? "✓" : "✗"} ${t.name}: ${t.got} (goal ${t.want})`);
    for (const n of result.notes ?? []) console.log(`  note: ${n}`);
    console.log(`  (${(stored.wallMs / 1000).toFixed(0)} s; bench/results/${stored.scenario}.md)`);
  } catch (err) {
    failed = true;
    console.log(`  FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  }
}
if (
  await updateReadme(
    await latestResults(
      SCENARIOS.flatMap((s) =>
        s.name === "blackbox" ? ["blackbox", "blackbox-real", "blackbox-slices", "blackbox-real-slices"] : [s.name],
      ),
    ),
    new Set(SCENARIOS.filter((s) => s.diagnostic).map((s) => s.name)),
  )
)
  console.log("\nREADME.md: performance table updated");
process.exit(failed ? 1 : 0);
