// `mc gateways --watch` against a sandbox: the table once, then a row again each time it
// changes — a status written (seen by the watch on Links, no tick needed), a new Link, a gateway
// turning stale as the (manual) clock moves — and never a row that did not change.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { watchGateways } from "../../src/gateways/watch.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { runMc } from "../cmd/run-mc.ts";
import { alive, dead, gatewaysSandbox, NS, type GatewaysSandbox } from "./fixtures.ts";

let t: GatewaysSandbox;
beforeAll(async () => {
  t = await gatewaysSandbox();
});
afterAll(async () => {
  await t.sb.stop();
});

/** What the watch wrote, line by line, and a wait for a line that matches. */
function screen() {
  const lines: string[] = [];
  const waiters: Array<{ re: RegExp; resolve: () => void }> = [];
  return {
    lines,
    write(text: string) {
      for (const line of text.split("\n").filter(Boolean)) {
        lines.push(line);
        for (const w of waiters.filter((w) => w.re.test(line))) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    },
    until(re: RegExp): Promise<void> {
      if (lines.some((l) => re.test(l))) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ re, resolve }));
    },
  };
}

test("the table, then each changed row once: a status written, a new Link, a gateway gone stale", async () => {
  const clock = new ManualClock(Date.now());
  const at = () => new Date(clock.now()).toISOString();
  await t.addLink("east", { status: alive({ at: at() }) });
  const out = screen();
  const stop = new AbortController();
  const watching = watchGateways({
    client: t.client,
    namespace: NS,
    output: "table",
    write: out.write,
    signal: stop.signal,
    clock,
    tickMs: 1000,
  });
  await out.until(/^east +True/);

  await t.setStatus("east", dead({ at: at() }));
  await out.until(/^east +False/);
  await t.addLink("north", { status: alive({ at: at() }) });
  await out.until(/^north +True/);
  // Time passes with no probe written: both turn stale at the next tick.
  clock.advance(10 * 60_000);
  await out.until(/^north +stale/);
  await out.until(/^east +stale/);
  stop.abort();
  await watching;

  expect(out.lines[0]).toMatch(/^CLUSTER +ALIVE +NUM_SVC +LATENCY_P50 +LATENCY_P95 +LATENCY_P99$/);
  const rows = out.lines.slice(1).map((l) => l.split(/ +/).slice(0, 2).join(" "));
  expect(rows.filter((r) => r.startsWith("east "))).toEqual(["east True", "east False", "east stale"]);
  // north may show first as created, before its status is written (stale): then True, then stale.
  const north = rows.filter((r) => r.startsWith("north "));
  expect(north.slice(-2)).toEqual(["north True", "north stale"]);
  expect(north.filter((r, i) => r === north[i - 1])).toEqual([]);
  // Every row under the header has the header's columns.
  const width = out.lines[0]!.indexOf("ALIVE");
  for (const line of out.lines.slice(1)) expect(line.slice(width - 2, width)).toBe("  ");
});

test("--watch and --wait together are refused, naming both", async () => {
  const r = await runMc(["gateways", "--watch", "--wait", "10s"]);
  expect(r).toEqual({
    code: 1,
    stdout: "",
    stderr: "error: --wait and --watch are mutually exclusive: --watch shows each status as it comes\n",
  });
});

test("-o json: one JSON row per line, the first for each Link, then one per change", async () => {
  const clock = new ManualClock(Date.now());
  const at = () => new Date(clock.now()).toISOString();
  await t.addLink("south", { status: alive({ at: at() }) });
  const out = screen();
  const stop = new AbortController();
  const watching = watchGateways({
    client: t.client,
    namespace: NS,
    clusterName: "south",
    output: "json",
    write: out.write,
    signal: stop.signal,
    clock,
  });
  await out.until(/"clusterName":"south".*"alive":true/);
  await t.setStatus("south", dead({ at: at() }));
  await out.until(/"clusterName":"south".*"alive":false/);
  stop.abort();
  await watching;
  const rows = out.lines.map((l) => JSON.parse(l) as { clusterName: string; alive: boolean });
  expect(rows.map((r) => [r.clusterName, r.alive])).toEqual([
    ["south", true],
    ["south", false],
  ]);
});
