// Results on disk: bench/results/<scenario>.json (figures, targets, the machine) and .md (its
// tables), and the README's performance table, rebuilt from the latest result of every scenario
// between its markers.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { machineLine, type Machine } from "./machine.ts";
import type { Scenario, ScenarioResult, Table, Target } from "./scenario.ts";

export const RESULTS_DIR = join(import.meta.dir, "..", "results");
const README = join(import.meta.dir, "..", "..", "README.md");
const START = "<!-- bench:start (bun run bench rewrites this table) -->";
const END = "<!-- bench:end -->";

export interface StoredResult extends ScenarioResult {
  /** The result's name (the scenario's, or its resultName). */
  scenario: string;
  /** The scenario that ran, when its result is stored under another name. */
  command?: string;
  title: string;
  flags: Record<string, string>;
  machine: Machine;
  wallMs: number;
}

export function markdownTable(t: Table): string {
  const line = (cells: string[]) => `| ${cells.map((c) => c.replaceAll("|", "\\|")).join(" | ")} |`;
  return [t.title ? `**${t.title}**\n` : "", line(t.headers), line(t.headers.map(() => "---")), ...t.rows.map(line)]
    .filter(Boolean)
    .join("\n");
}

const verdict = (t: Target) => (t.met === undefined ? "" : t.met ? "met" : "missed");

export function markdownResult(r: StoredResult): string {
  const flags = Object.entries(r.flags)
    .map(([k, v]) => `--${k}=${v}`)
    .join(" ");
  const parts = [
    `# ${r.title}`,
    `\`bun run bench ${r.command ?? r.scenario}${flags ? ` ${flags}` : ""}\` — ${machineLine(r.machine)}; took ${(r.wallMs / 1000).toFixed(0)} s.`,
    ...r.tables.map(markdownTable),
  ];
  if (r.targets.length > 0)
    parts.push(
      markdownTable({
        title: "Targets",
        headers: ["target", "goal", "measured", ""],
        rows: r.targets.map((t) => [t.name, t.want, t.got, verdict(t)]),
      }),
    );
  if (r.notes?.length) parts.push(r.notes.map((n) => `- ${n}`).join("\n"));
  return `${parts.join("\n\n")}\n`;
}

export async function saveResult(
  s: Scenario,
  flags: Record<string, string>,
  result: ScenarioResult,
  machine: Machine,
  wallMs: number,
): Promise<StoredResult> {
  const name = s.resultName?.(flags) ?? s.name;
  const stored: StoredResult = {
    scenario: name,
    ...(name !== s.name && { command: s.name }),
    title: s.title,
    flags,
    machine,
    wallMs: Math.round(wallMs),
    ...result,
  };
  await Bun.write(join(RESULTS_DIR, `${name}.json`), `${JSON.stringify(stored, null, 2)}\n`);
  await Bun.write(join(RESULTS_DIR, `${name}.md`), markdownResult(stored));
  return stored;
}

/** Every scenario's latest stored result, in the order given. */
export async function latestResults(order: readonly string[]): Promise<StoredResult[]> {
  if (!existsSync(RESULTS_DIR)) return [];
  const names = readdirSync(RESULTS_DIR)
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.slice(0, -5));
  const sorted = [...order.filter((n) => names.includes(n)), ...names.filter((n) => !order.includes(n)).sort()];
  return Promise.all(sorted.map(async (n) => (await Bun.file(join(RESULTS_DIR, `${n}.json`)).json()) as StoredResult));
}

/** The README table: one row per target of every scenario's latest result; `diagnostic` scenarios (in-process) are labelled so. */
export async function updateReadme(results: readonly StoredResult[], diagnostic: ReadonlySet<string> = new Set()): Promise<boolean> {
  const text = await Bun.file(README).text();
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  if (from < 0 || to < from) return false;
  const rows = results.flatMap((r) =>
    r.targets.map((t) => [
      `[${r.scenario}](bench/results/${r.scenario}.md)${diagnostic.has(r.scenario) ? " (in-process, diagnostic)" : ""}`,
      t.name,
      t.want,
      t.got,
      verdict(t),
      `${r.machine.date.slice(0, 10)}, ${r.machine.commit}, load ${r.machine.loadAtStart}`,
    ]),
  );
  const machines = [...new Set(results.map((r) => `${r.machine.cores} cores (${r.machine.cpu}), bun ${r.machine.bun}`))];
  const table = markdownTable({ headers: ["scenario", "measure", "goal", "latest", "", "run (date, commit, load at start)"], rows });
  const explained =
    diagnostic.size > 0
      ? ` The black-box rows are the figures a user meets (every API server, the controller and the limit client as processes); the ${[...diagnostic].join(", ")} rows run all of them in one process and stay as a diagnostic.`
      : "";
  const body = `${START}\n${table}\n\nMeasured on ${machines.join("; ")}. Each scenario's figures, machine and flags: \`bench/results/\`.${explained}\n${END}`;
  await Bun.write(README, text.slice(0, from) + body + text.slice(to + END.length));
  return true;
}
