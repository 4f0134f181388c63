// `mc gateways --watch`, kubectl's `get -w` habit: the table once, then a row again each time it changes — a Link's status written (woken
// by a watch on the Links), a gateway turning stale as time passes, a mirror count moving (re-read every `tickMs`). With `-o json`, one
// JSON row per line. Until `signal` aborts; a failed read is logged and tried again at the next tick.
import type { KubeClient } from "../kube/index.ts";
import { logger, type Logger } from "../log.ts";
import { linkResource } from "../model/link.ts";
import { sleep, systemClock, type Clock } from "../runtime/index.ts";
import { readGatewaysSnapshot, type GatewaysQuery } from "./read.ts";
import { columnWidths, tableLine, tableCells, type GatewayOutput } from "./render.ts";
import { gatewayRows, type GatewayRow } from "./rows.ts";

export interface WatchGatewaysOptions extends GatewaysQuery {
  client: KubeClient;
  output: GatewayOutput;
  write(text: string): void;
  signal: AbortSignal;
  /** How often rows are re-read without a Link event (staleness and counts change so); default 1 s. */
  tickMs?: number;
  clock?: Clock;
  log?: Logger;
}

export async function watchGateways(o: WatchGatewaysOptions): Promise<void> {
  const clock = o.clock ?? systemClock;
  const log = o.log ?? logger("gateways");
  const read = async (): Promise<GatewayRow[]> => {
    const snap = await readGatewaysSnapshot(o.client, o, log);
    return gatewayRows(snap.links, snap.serviceCounts, clock.now(), snap.invalid);
  };
  // The first read's errors are the command's (no Links, no CRD): one line, exit 1.
  const first = await read();
  let widths = columnWidths(first);
  const shown = new Map<string, string>();
  const show = (row: GatewayRow, force = false) => {
    const text = o.output === "json" ? JSON.stringify(row) : tableLine(tableCells(row), (widths = columnWidths([row], widths)));
    if (!force && shown.get(row.clusterName) === text) return;
    shown.set(row.clusterName, text);
    o.write(`${text}\n`);
  };
  if (o.output !== "json") o.write(`${tableLine(null, widths)}\n`);
  for (const row of first) show(row, true);

  const wake = linkEvents(o, log);
  try {
    while (!o.signal.aborted) {
      await Promise.race([wake.next(), sleep(clock, o.tickMs ?? 1000, o.signal)]);
      if (o.signal.aborted) break;
      try {
        for (const row of await read()) show(row);
      } catch (err) {
        log.warn(`reading the Links failed (${err instanceof Error ? err.message : String(err)}); trying again`);
      }
    }
  } finally {
    wake.stop();
  }
}

/** A promise per Link event in the namespace; the watch reopens when it ends. */
function linkEvents(o: WatchGatewaysOptions, log: Logger): { next(): Promise<void>; stop(): void } {
  let wakeUp: () => void = () => {};
  let pending = new Promise<void>((r) => (wakeUp = r));
  const stopper = new AbortController();
  const stopBoth = () => stopper.abort();
  o.signal.addEventListener("abort", stopBoth);
  void (async () => {
    while (!stopper.signal.aborted) {
      try {
        const stream = await o.client.watch(linkResource, { namespace: o.namespace, signal: stopper.signal });
        stopper.signal.addEventListener("abort", () => stream.cancel(), { once: true });
        for await (const _event of stream.events) wakeUp();
      } catch (err) {
        if (!stopper.signal.aborted) log.debug(`watch on Links ended (${err instanceof Error ? err.message : String(err)})`);
      }
      // Do not spin against a cluster that refuses: the tick reads meanwhile.
      if (!stopper.signal.aborted) await sleep(o.clock ?? systemClock, o.tickMs ?? 1000, stopper.signal);
    }
  })();
  return {
    next: () => pending.then(() => void (pending = new Promise<void>((r) => (wakeUp = r)))),
    stop: () => {
      o.signal.removeEventListener("abort", stopBoth);
      stopBoth();
    },
  };
}
