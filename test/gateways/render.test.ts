// `mc gateways`: the rows read from Links and mirrors, and the table and JSON output.
import { describe, expect, test } from "bun:test";
import { aliveCell, renderGatewaysJson, renderGatewaysTable, tableCells } from "../../src/gateways/render.ts";
import { gatewayRows, type GatewayRow } from "../../src/gateways/rows.ts";
import { ago, alive, dead, link, NOW } from "./fixtures.ts";
import { expectGolden } from "./golden.ts";

/** Five targets: alive, dead, stale (controller stopped), never reported, slow period; one gateway-less. */
function sampleRows(): GatewayRow[] {
  const links = [
    link("west", { status: alive({ at: ago(2_000) }) }),
    link("east", { status: dead({ at: ago(1_000) }) }),
    link("north", { status: alive({ at: ago(45_000) }) }),
    link("south"),
    link("far-away-cluster", { period: "20s", status: alive({ at: ago(45_000), latency: { p50: "120ms", p95: "480ms", p99: "1250ms" } }) }),
    link("flat", { probe: false }),
  ];
  return gatewayRows(
    links,
    new Map([
      ["east", 3],
      ["west", 12],
      ["north", 1],
      ["flat", 4],
    ]),
    NOW,
  );
}

describe("gateway rows", () => {
  test("one row per probed Link, sorted by cluster; gateway-less Links are not shown", () => {
    expect(sampleRows().map((r) => r.clusterName)).toEqual(["east", "far-away-cluster", "north", "south", "west"]);
  });

  test("a Link that never reported is stale and not alive", () => {
    const south = sampleRows().find((r) => r.clusterName === "south");
    expect(south).toEqual({
      clusterName: "south",
      alive: false,
      stale: true,
      numberOfServices: 0,
      latency: { p50: null, p95: null, p99: null },
      lastProbeTime: null,
    });
  });

  test("ALIVE reads True, False, or stale when the status is too old to say", () => {
    expect(sampleRows().map((r) => [r.clusterName, aliveCell(r)])).toEqual([
      ["east", "False"],
      ["far-away-cluster", "True"],
      ["north", "stale"],
      ["south", "stale"],
      ["west", "True"],
    ]);
  });

  test("latencies show only for a fresh, alive gateway", () => {
    const cells = Object.fromEntries(sampleRows().map((r) => [r.clusterName, tableCells(r).slice(3)]));
    expect(cells).toEqual({
      east: ["-", "-", "-"],
      "far-away-cluster": ["120ms", "480ms", "1250ms"],
      north: ["-", "-", "-"],
      south: ["-", "-", "-"],
      west: ["3ms", "9ms", "14ms"],
    });
  });
});

describe("mc gateways output", () => {
  test("table golden", () => {
    expectGolden("table.txt", renderGatewaysTable(sampleRows()));
  });

  test("JSON golden", () => {
    expectGolden("gateways.json", renderGatewaysJson(sampleRows()));
  });

  test("with no rows the table is its header and the JSON an empty array, never null", () => {
    expect(renderGatewaysTable([])).toBe("CLUSTER  ALIVE    NUM_SVC  LATENCY_P50  LATENCY_P95  LATENCY_P99\n");
    expect(renderGatewaysJson([])).toBe("[]\n");
  });

  test("JSON keys come in the documented order", () => {
    const [row] = JSON.parse(renderGatewaysJson(sampleRows())) as Array<Record<string, unknown>>;
    expect(Object.keys(row!)).toEqual(["clusterName", "alive", "stale", "numberOfServices", "latency", "lastProbeTime"]);
  });
});
