// What a benchmark scenario is: a name, its flags (sizes and the like, with defaults), and a run
// that prints as it goes and returns its figures: tables for the Markdown result, targets with
// their verdicts, and the raw numbers for the JSON one.

export interface Flag {
  default: string;
  description: string;
}

export interface Table {
  title?: string;
  headers: string[];
  rows: string[][];
}

export interface Target {
  /** What is measured, e.g. "controller / limit at 10k". */
  name: string;
  /** The goal, e.g. "≥ 0.8". */
  want: string;
  got: string;
  /** undefined: informational (no goal, or not measured in this run). */
  met?: boolean;
}

export interface ScenarioResult {
  tables: Table[];
  targets: Target[];
  /** The raw figures, for the JSON result. */
  figures: Record<string, unknown>;
  notes?: string[];
}

export interface Scenario {
  name: string;
  title: string;
  flags: Record<string, Flag>;
  /** In-process (controller, sandboxes and limit in one process): a diagnostic, not what a user meets (the README says so). */
  diagnostic?: boolean;
  run(flags: Record<string, string>): Promise<ScenarioResult>;
  /** Where a run with these flags is stored, when not under `name` (e.g. `sync-real` for `--backend real`). */
  resultName?(flags: Record<string, string>): string;
}

/** `"1000,10000"` → [1000, 10000]; each must be a positive integer. */
export function numbers(flag: string, text: string): number[] {
  const out = text.split(",").map((s) => Number(s.trim()));
  if (out.length === 0 || out.some((n) => !Number.isInteger(n) || n <= 0))
    throw new Error(`--${flag}: must be positive whole numbers separated by commas, got ${JSON.stringify(text)}`);
  return out;
}

export function number(flag: string, text: string): number {
  const [n] = numbers(flag, text);
  if (text.includes(",")) throw new Error(`--${flag}: one number, got ${JSON.stringify(text)}`);
  return n!;
}

export const yes = (text: string): boolean => text === "true" || text === "1" || text === "";

/** A scenario's progress line on stderr (stdout carries the results). */
export const say = (line: string): void => void process.stderr.write(`  ${line}\n`);

/** "1k" for 1000, "10k", "50k"; other numbers as they are. */
export const size = (n: number): string => (n % 1000 === 0 ? `${n / 1000}k` : String(n));
