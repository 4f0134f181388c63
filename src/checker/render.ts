// How check results look: Linkerd's table (a category header, √ × ‼ lines, indented detail
// lines, a hint pointing at docs/checks.md) printed line by line as checks finish, or one JSON
// object in the shape of `linkerd check -o json`. Pure: results in, text out; no colour.
import type { CheckReport, CheckResult } from "./types.ts";

/** The only category mc check has, named as Linkerd names it. */
const CATEGORY = "linkerd-multicluster";
/** Where each check is explained; a hint is this plus `#<anchor>`. */
const CHECKS_DOC = "docs/checks.md";

const SYMBOL = { success: "√", error: "×", warning: "‼", skipped: "-" } as const;
const INDENT = "    ";

const hintLink = (anchor: string): string => `${CHECKS_DOC}#${anchor}`;

/** The category header, printed before the first result. */
export function renderHeader(): string {
  return `${CATEGORY}\n${"-".repeat(CATEGORY.length)}\n`;
}

/** One check: its line, then message, details and hint, each indented. */
export function renderResult(r: CheckResult): string {
  if (r.status === "skipped") return `${SYMBOL.skipped} ${r.title} (skipped: "${r.skippedBecause ?? ""}" did not pass)\n`;
  const lines = [`${SYMBOL[r.status]} ${r.title}`];
  if (r.message) lines.push(INDENT + r.message);
  for (const d of r.details) lines.push(`${INDENT}* ${d}`);
  if (r.hint && r.status !== "success") lines.push(`${INDENT}see ${hintLink(r.hint)} for hints`);
  return `${lines.join("\n")}\n`;
}

/** The closing line: √ all passed, ‼ only warnings, × any error. */
export function renderSummary(report: CheckReport): string {
  const symbol = !report.success ? SYMBOL.error : report.results.some((r) => r.status === "warning") ? SYMBOL.warning : SYMBOL.success;
  return `\nStatus check results are ${symbol}\n`;
}

/** The whole table at once (tests, and anyone holding a finished report). */
export function renderTable(report: CheckReport): string {
  return renderHeader() + report.results.map(renderResult).join("") + renderSummary(report);
}

interface JsonCheck {
  id: string;
  description: string;
  result: CheckResult["status"];
  severity: CheckResult["severity"];
  error?: string;
  details: string[];
  hint?: string;
  skippedBecause?: string;
}

export interface JsonReport {
  success: boolean;
  categories: { categoryName: string; checks: JsonCheck[] }[];
}

/** `linkerd check -o json`'s shape (success, categories[].checks[] with description/result/error/hint), plus id and details. */
export function toJsonReport(report: CheckReport): JsonReport {
  const checks = report.results.map(
    (r): JsonCheck => ({
      id: r.id,
      description: r.title,
      result: r.status,
      severity: r.severity,
      ...(r.message !== undefined && { error: r.message }),
      details: r.details,
      ...(r.hint !== undefined && { hint: hintLink(r.hint) }),
      ...(r.skippedBecause !== undefined && { skippedBecause: r.skippedBecause }),
    }),
  );
  return { success: report.success, categories: [{ categoryName: CATEGORY, checks }] };
}

export function renderJson(report: CheckReport): string {
  return `${JSON.stringify(toJsonReport(report), null, 2)}\n`;
}
