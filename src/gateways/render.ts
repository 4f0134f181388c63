// `mc gateways` output: Linkerd's table (CLUSTER ALIVE NUM_SVC LATENCY_P50 LATENCY_P95
// LATENCY_P99; names left-aligned, numbers right-aligned, two spaces between columns) and an
// indented JSON array, never `null`. Pure.
import type { GatewayRow } from "./rows.ts";

export const GATEWAY_OUTPUTS = ["table", "json"] as const;
export type GatewayOutput = (typeof GATEWAY_OUTPUTS)[number];

interface Column {
  header: string;
  /** Minimum width (Linkerd's); columns grow to their widest value. */
  width: number;
  left: boolean;
}

const COLUMNS: Column[] = [
  { header: "CLUSTER", width: 7, left: true },
  { header: "ALIVE", width: 5, left: true },
  { header: "NUM_SVC", width: 9, left: false },
  { header: "LATENCY_P50", width: 11, left: false },
  { header: "LATENCY_P95", width: 11, left: false },
  { header: "LATENCY_P99", width: 11, left: false },
];

/** `True`/`False` as Linkerd prints them; `stale` when the status is too old to say; `invalid` for a Link that does not parse. */
export function aliveCell(row: GatewayRow): string {
  if (row.problem !== undefined) return "invalid";
  if (row.stale) return "stale";
  return row.alive ? "True" : "False";
}

/** The table cells of a row: latencies only for a fresh, alive gateway, `-` otherwise. */
export function tableCells(row: GatewayRow): string[] {
  const shown = !row.stale && row.alive;
  const latency = (v: string | null) => (shown && v !== null ? v : "-");
  return [
    row.clusterName,
    aliveCell(row),
    String(row.numberOfServices),
    latency(row.latency.p50),
    latency(row.latency.p95),
    latency(row.latency.p99),
  ];
}

/** Each column's width: Linkerd's minimum, grown to the header, the values and `at least`. */
export function columnWidths(rows: readonly GatewayRow[], atLeast: readonly number[] = []): number[] {
  const cells = rows.map(tableCells);
  return COLUMNS.map((c, i) => Math.max(c.width, c.header.length, atLeast[i] ?? 0, ...cells.map((r) => r[i]!.length)));
}

/** One line of the table (the header for null): names left-aligned, numbers right-aligned. */
export function tableLine(cells: readonly string[] | null, widths: readonly number[]): string {
  return (cells ?? COLUMNS.map((c) => c.header))
    .map((v, i) => (COLUMNS[i]!.left ? v.padEnd(widths[i]!) : v.padStart(widths[i]!)))
    .join("  ")
    .trimEnd();
}

export function renderGatewaysTable(rows: readonly GatewayRow[]): string {
  const widths = columnWidths(rows);
  return `${[tableLine(null, widths), ...rows.map((r) => tableLine(tableCells(r), widths))].join("\n")}\n`;
}

export function renderGatewaysJson(rows: readonly GatewayRow[]): string {
  return `${JSON.stringify(rows, null, 2)}\n`;
}

export function renderGateways(rows: readonly GatewayRow[], output: GatewayOutput): string {
  return output === "json" ? renderGatewaysJson(rows) : renderGatewaysTable(rows);
}
