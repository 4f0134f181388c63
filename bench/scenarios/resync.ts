// Restart and resync with many Links, black box: `mc serve --all` as its own process over N Links × M exported Services, every API server an
// `mc sandbox` process (bench/lib/blackbox/linked.ts); started once to mirror everything, stopped, started again, at each size of a series.
import { resources } from "../../src/kube/index.ts";
import * as L from "../../src/model/labels.ts";
import { settled } from "../lib/blackbox/clusters.ts";
import { LINKED_NAMESPACES, linkName, startLinked, type LinkedClusters } from "../lib/blackbox/linked.ts";
import { watchWest, type WestView } from "../lib/blackbox/west-view.ts";
import { loadNow, sample, sampleAll, since } from "../lib/proc.ts";
import { number, numbers, say, size, type Scenario, type Table, type Target } from "../lib/scenario.ts";
import { mb, ms } from "../lib/stats.ts";
import type { Until } from "../../test/helpers/mc.ts";

// At each size (Links added to reach it, the targets' Services unchanged):
// - first start: `mc serve --all` started; the time until a watch on west has seen every mirror and
//   mc serve is settled (queue empty, every Service of every Link reconciled). Then stopped (SIGTERM:
//   Leases released, mirrors kept).
// - restart: started again; the time until it is settled again (converged), the mirror Services and
//   Endpoints written meanwhile as west's watch sees them (0 wanted: they were right), then west's
//   mirrors listed against the expected set: missing and extra (0 and 0 wanted). Once the resync is
//   under way for every Link on t0 (each has reconciled a Service: its lists are done, its watches
//   deliver what changes next), target t0's Service that sorts last is relabelled: the time from the
//   write's answer until west's watch sees every one of its mirrors (one per Link on t0) carry the label
//   (first and last; target under 1 s: live changes never wait behind the resync).
// Targets at 50 Links × 1,000 (50k mirrors): converged < 30 s, 0 writes, 0 missing, 0 extra; change < 1 s.

const GOAL_MIRRORS = 50_000;

interface StepFigures {
  links: number;
  mirrors: number;
  firstMs: number;
  firstCpuMs: number;
  convergedMs: number;
  writes: number;
  missing: number;
  extra: number;
  /** The change → its first and last mirror seen on west; NaN: the resync ended before the change could be made. */
  changeFirstMs: number;
  changeLastMs: number;
  changeMirrors: number;
  /** When the change was made: ms after the restart began, and Services reconciled by then (of `mirrors`). */
  changeAtMs: number;
  changeAtMirrors: number;
  serveCpuMs: number;
  servePeakRssBytes: number;
  /** Each sandbox's CPU during the restart. */
  sandboxCpuMs: Record<string, number>;
}

async function stopServe(p: Until): Promise<void> {
  p.proc.kill("SIGTERM");
  await p.proc.exited;
}

/** Index of the Service that sorts last by namespace/name (the resync's order), so its change waits for the whole resync unless it goes ahead. */
function lastKeyed(services: number): number {
  const key = (i: number) => `ns-${i % LINKED_NAMESPACES}/svc-${i}`;
  let last = 0;
  for (let i = 1; i < services; i++) if (key(i) > key(last)) last = i;
  return last;
}

/** mc serve's mc_mirrors (Services reconciled, every state) by Link. */
async function mirrorsPerLink(serving: Until): Promise<Map<string, number>> {
  const text = await (await fetch(`${serving.match[1]}/metrics`)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^mc_mirrors\{[^}]*target_cluster_name="([^"]+)"[^}]*\} (\S+)$/gm))
    out.set(m[1]!, (out.get(m[1]!) ?? 0) + Number(m[2]));
  return out;
}

/** West's mirror Services and Endpoints listed (as kubectl would) against every Link's expected mirrors. */
async function missingAndExtra(c: LinkedClusters, links: number, services: number): Promise<{ missing: number; extra: number }> {
  const expected = new Set<string>();
  for (let k = 0; k < links; k++) for (let i = 0; i < services; i++) expected.add(`ns-${i % LINKED_NAMESPACES}/svc-${i}-${linkName(k)}`);
  let missing = 0;
  let extra = 0;
  for (const res of [resources.service, resources.endpoints]) {
    const list = await c.west.client.list(res, { labelSelector: L.CLUSTER_NAME });
    const seen = new Set(
      list.items.filter((o) => o.metadata.namespace?.startsWith("ns-")).map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
    );
    for (const k of seen) if (!expected.has(k)) extra++;
    for (const k of expected) if (!seen.has(k)) missing++;
  }
  return { missing, extra };
}

async function firstStart(c: LinkedClusters, view: WestView, n: number): Promise<{ ms: number; cpuMs: number }> {
  const t0 = performance.now();
  const serving = await c.serveAll();
  try {
    await view.until(() => view.mirrors.size >= n && view.ready.size >= n, `${n} mirrors with ready Endpoints`, 120_000 + n * 10);
    await settled(serving, 120_000 + n * 10, n);
    return { ms: performance.now() - t0, cpuMs: sample(serving.proc.pid).cpuMs };
  } finally {
    await stopServe(serving);
  }
}

async function restart(
  c: LinkedClusters,
  view: WestView,
  links: number,
  services: number,
): Promise<Omit<StepFigures, "firstMs" | "firstCpuMs">> {
  const n = links * services;
  const target = lastKeyed(services);
  const namespace = `ns-${target % LINKED_NAMESPACES}`;
  const name = `svc-${target}`;
  // Its mirrors: one per Link on t0 (Link k → target k mod T), by Link.
  const changed = new Map<string, string>();
  for (let k = 0; k < links; k += c.targets.length) changed.set(linkName(k), `${namespace}/${name}-${linkName(k)}`);
  const mirrorKeys = new Set(changed.values());
  let writes = 0;
  const count = (key: string) => void (!mirrorKeys.has(key) && writes++);
  const offs = [view.onService(count), view.onEndpoints(count)];
  const before = sampleAll(c.pids);
  const t0 = performance.now();
  const serving = await c.serveAll();
  try {
    let changeFirstMs = Number.NaN;
    let changeLastMs = Number.NaN;
    let changeAtMs = Number.NaN;
    let changeAtMirrors = 0;
    for (;;) {
      const perLink = await mirrorsPerLink(serving);
      const done = [...perLink.values()].reduce((a, b) => a + b, 0);
      if (done >= n) break;
      if ([...changed.keys()].every((k) => (perLink.get(k) ?? 0) > 0)) {
        changeAtMs = performance.now() - t0;
        changeAtMirrors = done;
        const value = `restart-${Date.now()}`;
        const seenAt = new Map<string, number>();
        const seen = new Promise<void>((resolve) => {
          const off = view.onService((key, obj, at) => {
            if (!mirrorKeys.has(key) || obj.metadata.labels?.restart !== value || seenAt.has(key)) return;
            seenAt.set(key, at);
            if (seenAt.size === changed.size) {
              off();
              resolve();
            }
          });
        });
        await c.targets[0]!.client.patch(
          resources.service,
          namespace,
          name,
          { metadata: { labels: { restart: value } } },
          { type: "merge" },
        );
        const acked = performance.now();
        await Promise.race([seen, Bun.sleep(60_000)]);
        const times = [...seenAt.values()];
        changeFirstMs = times.length ? Math.min(...times) - acked : Number.POSITIVE_INFINITY;
        changeLastMs = times.length === changed.size ? Math.max(...times) - acked : Number.POSITIVE_INFINITY;
        break;
      }
      await Bun.sleep(100); // each /metrics of 50 Links cost mc serve ~1.5 ms of CPU (its profile)
    }
    await settled(serving, 120_000 + n * 10, n);
    const convergedMs = performance.now() - t0;
    const serve = sample(serving.proc.pid);
    const sandboxes = since(before, c.pids);
    const { missing, extra } = await missingAndExtra(c, links, services);
    const f = {
      links,
      mirrors: n,
      convergedMs,
      writes,
      missing,
      extra,
      changeFirstMs,
      changeLastMs,
      changeMirrors: changed.size,
      changeAtMs,
      changeAtMirrors,
      serveCpuMs: serve.cpuMs,
      servePeakRssBytes: serve.peakRssBytes,
      sandboxCpuMs: Object.fromEntries(Object.entries(sandboxes).map(([k, v]) => [k, v.cpuMs])),
    };
    say(
      `restart ${links} Links, ${size(n)} mirrors: converged after ${ms(convergedMs)}, ${writes} writes, ${missing} missing, ${extra} extra; a change made after ${ms(changeAtMs)} (${changeAtMirrors} of ${n} reconciled) seen on its ${changed.size} mirror(s) after ${ms(changeFirstMs)} (first) to ${ms(changeLastMs)} (last); mc serve ${ms(serve.cpuMs)} CPU, peak RSS ${mb(serve.peakRssBytes)}`,
    );
    return f;
  } finally {
    for (const off of offs) off();
    await stopServe(serving);
  }
}

const changeText = (v: number) => (Number.isNaN(v) ? "– (resync over first)" : ms(v));

export const resync: Scenario = {
  name: "resync",
  title: "Black box: `mc serve --all` restarted over N Links × M exported Services: converged, writes, missing/extra, a change during it",
  flags: {
    links: { default: "10,25,50", description: "Links at each size of the series (each mirrors its target's --services)" },
    services: { default: "1000", description: "exported Services in each target sandbox" },
    targets: { default: "5", description: "target `mc sandbox` processes; Link k points to target k mod this" },
  },
  async run(flags) {
    const series = numbers("links", flags.links!);
    if (series.some((l, i) => i > 0 && l <= series[i - 1]!)) throw new Error(`--links: increasing sizes, got ${flags.links}`);
    const services = number("services", flags.services!);
    const targetCount = number("targets", flags.targets!);
    if (targetCount > series[0]!) throw new Error(`--targets: at most the first --links (${series[0]}), got ${targetCount}`);
    const load = loadNow();
    say(
      `load at start ${load}; ${series.join(", ")} Links × ${services} exported Services (${series.map((l) => size(l * services)).join(", ")} mirrors) on ${targetCount} target sandbox(es)`,
    );
    const c = await startLinked(targetCount, services);
    const steps: StepFigures[] = [];
    try {
      say(`${targetCount} × ${size(services)} exported Services seeded`);
      const view = await watchWest(c.west.client, "*");
      try {
        for (const links of series) {
          await c.linkUpTo(links);
          const n = links * services;
          const first = await firstStart(c, view, n);
          say(`first start ${links} Links: ${size(n)} mirrors, settled after ${ms(first.ms)}, mc serve ${ms(first.cpuMs)} CPU`);
          steps.push({ ...(await restart(c, view, links, services)), firstMs: first.ms, firstCpuMs: first.cpuMs });
        }
      } finally {
        await view.stop();
      }
    } finally {
      await c.stop();
    }
    const tables: Table[] = [
      {
        title: `mc serve --all restarted, ${services} exported Services per Link, ${targetCount} target sandbox(es)`,
        headers: [
          "Links",
          "mirrors",
          "first start → settled",
          "restart → converged",
          "writes",
          "missing",
          "extra",
          "a change during the resync (made after, reconciled by then) → first / last of its mirrors seen",
          "mc serve CPU (restart)",
          "mc serve peak RSS",
        ],
        rows: steps.map((s) => [
          String(s.links),
          size(s.mirrors),
          ms(s.firstMs),
          ms(s.convergedMs),
          String(s.writes),
          String(s.missing),
          String(s.extra),
          `(${changeText(s.changeAtMs)}, ${size(s.changeAtMirrors)}) → ${changeText(s.changeFirstMs)} / ${changeText(s.changeLastMs)} (${s.changeMirrors} mirrors)`,
          ms(s.serveCpuMs),
          mb(s.servePeakRssBytes),
        ]),
      },
      {
        title: "restart: each sandbox's CPU",
        headers: ["Links", ...Object.keys(c.pids)],
        rows: steps.map((s) => [String(s.links), ...Object.keys(c.pids).map((k) => ms(s.sandboxCpuMs[k] ?? Number.NaN))]),
      },
    ];
    const last = steps.at(-1)!;
    const judged = last.mirrors >= GOAL_MIRRORS;
    const targets: Target[] = [
      {
        name: `resync: restart converged, ${last.links} Links × ${size(services)}`,
        want: "< 30 s, 0 writes, 0 missing, 0 extra",
        got: `${ms(last.convergedMs)}, ${last.writes} writes, ${last.missing} missing, ${last.extra} extra`,
        met: judged ? last.convergedMs < 30_000 && last.writes === 0 && last.missing === 0 && last.extra === 0 : undefined,
      },
      {
        name: `resync: a change during the resync → its last mirror, ${last.links} Links × ${size(services)}`,
        want: "< 1 s",
        got: changeText(last.changeLastMs),
        met: judged && !Number.isNaN(last.changeLastMs) ? last.changeLastMs < 1000 : undefined,
      },
    ];
    return {
      tables,
      targets,
      figures: { series, services, targets: targetCount, loadAtStart: load, steps },
      notes: [
        `Load average at start: ${load} (1, 5, 15 min). Figures measured on a loaded machine are not results.`,
        `Every API server (${targetCount} target sandbox(es), west) and mc serve --all are separate processes; Link k points to target k mod ${targetCount} (several Links naming one cluster), so a change on t0 has a mirror per Link on t0. The bench process seeds, links and watches west.`,
        `A target's verdict is given at ${size(GOAL_MIRRORS)} mirrors or more only.`,
      ],
    };
  },
};
