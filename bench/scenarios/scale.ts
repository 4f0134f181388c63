// The one-process scale point: one `mc serve --all` as its own process with L Links (default 100) to one east of S exported Services
// (default 100: L × S = 10k mirrors), each Service's Endpoints holding E ready addresses (default 20: every Link watches them all, so the
// process holds L × S × E = 200k target endpoints). The sandboxes run in the bench process.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { settled } from "../lib/blackbox/clusters.ts";
import { mirrorCounter, spawnServeAll, startManyLinks } from "../lib/many-links.ts";
import { loadNow, sample } from "../lib/proc.ts";
import { number, say, size, type Scenario } from "../lib/scenario.ts";
import { mb, median, ms } from "../lib/stats.ts";

// Printed: the time until west holds every mirror and mc serve is settled (queue empty, every Service
// reconciled), then, at rest (nothing changing; each Link probes every 3 s and re-checks its mirrors
// every minute, mc serve's default), its RSS (median of samples a second apart) and CPU per wall
// second over the rest window (65 s: one refresh of every Link), both read from /proc. Targets: RSS <
// 1 GiB, CPU < 1 core at rest.

const GIB = 1024 ** 3;

export const scale: Scenario = {
  name: "scale",
  title: "One `mc serve --all` process: 100 Links, 10k mirrors, 200k target endpoints; RSS and CPU at rest",
  flags: {
    links: { default: "100", description: "Links in west, all to the same east" },
    services: { default: "100", description: "exported Services in east (each Link mirrors all: links × services mirrors)" },
    addresses: { default: "20", description: "ready addresses in each exported Service's Endpoints" },
    "rest-seconds": {
      default: "65",
      description: "how long the process is watched at rest (the default covers one 1m --endpoint-refresh-period of every Link)",
    },
  },
  async run(flags) {
    const links = number("links", flags.links!);
    const services = number("services", flags.services!);
    const addresses = number("addresses", flags.addresses!);
    const restMs = number("rest-seconds", flags["rest-seconds"]!) * 1000;
    const mirrors = links * services;
    const load = loadNow();
    say(
      `load at start ${load}; ${links} Links × ${services} exported Services (${size(mirrors)} mirrors), ${addresses} addresses each (${size(mirrors * addresses)} target endpoints)`,
    );
    const dir = await mkdtemp(join(tmpdir(), "mc-bench-scale-"));
    const c = await startManyLinks(links, services, dir, addresses);
    const counter = mirrorCounter(c.west);
    try {
      const t0 = performance.now();
      const serving = await spawnServeAll(c.westPath, c.gatewayPort);
      const pid = serving.proc.pid;
      try {
        const timeout = 120_000 + mirrors * 60;
        while (counter.total() < mirrors) {
          if (serving.proc.exitCode !== null)
            throw new Error(`mc serve exited (${serving.proc.exitCode}) before mirroring: ${serving.stderr().slice(-2000)}`);
          if (performance.now() - t0 > timeout) throw new Error(`only ${counter.total()} of ${mirrors} mirrors after ${ms(timeout)}`);
          await Bun.sleep(200);
        }
        const mirroredMs = performance.now() - t0;
        await settled(serving, timeout, mirrors);
        const settledMs = performance.now() - t0;
        const synced = sample(pid);
        say(
          `${size(mirrors)} mirrors in ${ms(mirroredMs)}, settled in ${ms(settledMs)}; mc serve ${ms(synced.cpuMs)} CPU, RSS ${mb(synced.rssBytes)}, peak ${mb(synced.peakRssBytes)}`,
        );
        // At rest: CPU over the window, RSS sampled each second of it.
        const before = sample(pid);
        const w0 = performance.now();
        const rss: number[] = [];
        while (performance.now() - w0 < restMs) {
          await Bun.sleep(1000);
          rss.push(sample(pid).rssBytes);
        }
        const after = sample(pid);
        const cores = (after.cpuMs - before.cpuMs) / (performance.now() - w0);
        const restRss = median(rss);
        say(`at rest for ${ms(restMs)}: RSS ${mb(restRss)} (peak ${mb(after.peakRssBytes)}), ${cores.toFixed(3)} cores`);
        return {
          tables: [
            {
              headers: [
                "Links",
                "mirrors",
                "target endpoints",
                "start → all mirrored (settled)",
                "CPU to settle",
                "RSS at rest",
                "peak RSS",
                "CPU at rest",
              ],
              rows: [
                [
                  String(links),
                  size(mirrors),
                  size(mirrors * addresses),
                  `${ms(mirroredMs)} (${ms(settledMs)})`,
                  ms(synced.cpuMs),
                  mb(restRss),
                  mb(after.peakRssBytes),
                  `${cores.toFixed(3)} cores`,
                ],
              ],
            },
          ],
          targets: [
            { name: `scale: RSS at rest, ${links} Links, ${size(mirrors)} mirrors`, want: "< 1 GiB", got: mb(restRss), met: restRss < GIB },
            {
              name: `scale: CPU at rest, ${links} Links, ${size(mirrors)} mirrors`,
              want: "< 1 core",
              got: `${cores.toFixed(3)} cores`,
              met: cores < 1,
            },
          ],
          figures: {
            links,
            services,
            addresses,
            mirrors,
            loadAtStart: load,
            mirroredMs,
            settledMs,
            settleCpuMs: synced.cpuMs,
            restMs,
            restRssBytes: restRss,
            peakRssBytes: after.peakRssBytes,
            restCores: cores,
          },
          notes: [
            `Load average at start: ${load} (1, 5, 15 min). Figures measured on a loaded machine are not results.`,
            "mc serve --all runs as its own process; both sandboxes run in the bench process. Every Link targets the same east, so each Link's caches hold all of east's Services and Endpoints: the process holds links × services × addresses target endpoints.",
          ],
        };
      } finally {
        serving.proc.kill("SIGTERM");
        await serving.proc.exited;
      }
    } finally {
      counter.close();
      await c.stop();
      await rm(dir, { recursive: true, force: true });
    }
  },
};
