// Idle resync: with N mirrored and nothing changing, K refresh periods of the controller's timer
// (each re-resolves the gateway and requeues every key); the writes they make (target 0) and the
// CPU time the process spends per period, sandboxes included.
import type { MirrorController } from "../../src/mirror/controller.ts";
import { withMirrors } from "../lib/controller.ts";
import { diff } from "../lib/pair.ts";
import { number, say, size, type Scenario } from "../lib/scenario.ts";
import { cpuMs, measured, median, ms } from "../lib/stats.ts";

const NAMESPACES = 50;

/** Resolves once the refresh timer has fired and its refresh finished (polled: the timer has no event). */
async function nextRefresh(c: MirrorController): Promise<void> {
  const before = c.refreshing;
  while (c.refreshing === before) await Bun.sleep(10);
  await c.refreshing;
}

export const idle: Scenario = {
  name: "idle",
  title: "Idle resync: refresh periods with nothing to do",
  flags: {
    mirrors: { default: "1000", description: "exported Services mirrored before the idle periods" },
    periods: { default: "5", description: "refresh periods (K)" },
    "period-ms": { default: "2000", description: "the controller's refresh period (--endpoint-refresh-period)" },
  },
  async run(flags) {
    const n = number("mirrors", flags.mirrors!);
    const k = number("periods", flags.periods!);
    const periodMs = number("period-ms", flags["period-ms"]!);
    return withMirrors(n, { namespaces: NAMESPACES, probePeriod: "3s" }, { endpointRefreshPeriod: periodMs }, async (_pair, m) => {
      // The prober's first round writes status.gateway once: let it happen before the window.
      const prober = m.controller.probe!;
      await m.until(() => prober.health().lastProbeTime !== undefined, "the first probe", 30_000);
      await Bun.sleep(200);
      await m.settle();
      say(`${size(n)} mirrored; ${k} refresh periods of ${ms(periodMs)}`);
      const before = m.ledger.snapshot();
      const cpu0 = cpuMs();
      const t0 = performance.now();
      for (let i = 0; i < k; i++) {
        await nextRefresh(m.controller);
        await m.controller.drain();
      }
      const wallMs = performance.now() - t0;
      const cpu = cpuMs() - cpu0;
      // One refresh by hand, timed from its start until every requeued key has run.
      const drains: number[] = [];
      for (let i = 0; i < 3; i++)
        drains.push((await measured(async () => (await m.controller.refresh(), await m.controller.drain()))).wallMs);
      await m.settle();
      const writes = diff(m.ledger.snapshot(), before);
      // The leader renews its Lease whatever the controller does: counted apart.
      const resyncWrites = writes.total - writes.lease;
      const perPeriod = cpu / k;
      return {
        tables: [
          {
            headers: [
              "mirrors",
              "periods",
              "writes (Lease renewals apart)",
              "Lease renewals",
              "CPU per period",
              "CPU share",
              "one refresh until its keys have run",
            ],
            rows: [
              [
                size(n),
                String(k),
                String(resyncWrites),
                String(writes.lease),
                ms(perPeriod),
                `${((cpu / wallMs) * 100).toFixed(1)} %`,
                ms(median(drains)),
              ],
            ],
          },
        ],
        targets: [
          { name: "writes in idle refresh periods", want: "0", got: String(resyncWrites), met: resyncWrites === 0 },
          { name: `CPU per idle refresh of ${size(n)} mirrors`, want: "", got: ms(perPeriod) },
        ],
        figures: { mirrors: n, periods: k, periodMs, writes, cpuMs: cpu, wallMs, cpuPerPeriodMs: perPeriod, drainMs: drains },
        notes: ["CPU is the whole process's (controller and both sandboxes, which serve nothing while idle but bookmarks and probes)."],
      };
    });
  },
};
