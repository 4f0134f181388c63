// Churn latency: with N mirrored, exported Services in east change (a label on every change, the port on every other) at a steady rate; for
// each change, the time from the write's return in east to the mirror in west carrying it, as a watch on west (HTTP, the mirrors' label
// selector) sees it. p50/p95/p99/max per rate. A change overtaken by the next one to the same Service counts as seen when that one is.
import * as L from "../../src/model/labels.ts";
import { mirrorName } from "../../src/model/names.ts";
import { withMirrors } from "../lib/controller.ts";
import { CLUSTER, type Pair } from "../lib/pair.ts";
import { number, numbers, say, size, type Scenario } from "../lib/scenario.ts";
import { ms, quantile } from "../lib/stats.ts";

// Target: p99 ≤ 50 ms at 100 changes/s.

const NAMESPACES = 50;

interface RateFigures {
  rate: number;
  changes: number;
  achievedRate: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  unseen: number;
}

/** A watch on west's mirror Services: calls `onLabel(service, churn)` for every event carrying the label. */
async function watchMirrors(pair: Pair, onLabel: (mirror: string, seq: number, at: number) => void): Promise<() => void> {
  const ac = new AbortController();
  const selector = encodeURIComponent(`${L.CLUSTER_NAME}=${CLUSTER}`);
  const res = await fetch(
    `${pair.west.url}/api/v1/services?watch=true&labelSelector=${selector}&resourceVersion=${pair.west.store.resourceVersion}`,
    { signal: ac.signal },
  );
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        const at = performance.now();
        buffer += decoder.decode(value, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (!line.trim()) continue;
          const e = JSON.parse(line) as {
            type: string;
            object: { metadata: { name: string; namespace: string; labels?: Record<string, string> } };
          };
          const seq = e.object.metadata.labels?.churn;
          if (e.type !== "ERROR" && seq !== undefined) onLabel(`${e.object.metadata.namespace}/${e.object.metadata.name}`, Number(seq), at);
        }
      }
    } catch {
      // aborted
    }
  })();
  return () => ac.abort();
}

async function churnAt(pair: Pair, n: number, rate: number, durationMs: number, firstSeq: number): Promise<RateFigures> {
  const services = pair.east.api.registry.findKind("v1", "Service")!;
  const total = Math.max(20, Math.round((rate * durationMs) / 1000));
  const acked = new Map<number, number>();
  const latencies: number[] = [];
  /** mirror ns/name → seqs written, not yet seen. */
  const pending = new Map<string, number[]>();
  let allSeen: () => void = () => {};
  let outstanding = total;
  const stop = await watchMirrors(pair, (mirror, seq, at) => {
    const waiting = pending.get(mirror);
    if (!waiting) return;
    while (waiting.length > 0 && waiting[0]! <= seq) {
      const s = waiting.shift()!;
      latencies.push(at - acked.get(s)!);
      if (--outstanding === 0) allSeen();
    }
  });
  const done = new Promise<void>((resolve) => (allSeen = resolve));
  const t0 = performance.now();
  for (let j = 0; j < total; ) {
    const now = performance.now();
    while (j < total && t0 + (j * 1000) / rate <= now) {
      const seq = firstSeq + j;
      const i = seq % n;
      const namespace = `ns-${i % NAMESPACES}`;
      const name = `svc-${i}`;
      const current = pair.east.api.get(services, namespace, name);
      const spec = current.spec as { ports: Array<{ port: number }> };
      const ports = seq % 2 === 0 ? spec.ports.map((p, k) => (k === 0 ? { ...p, port: p.port === 80 ? 81 : 80 } : p)) : spec.ports;
      const mirror = `${namespace}/${mirrorName(name, CLUSTER)}`;
      pending.set(mirror, [...(pending.get(mirror) ?? []), seq]);
      pair.east.api.update(
        services,
        namespace,
        name,
        {
          ...current,
          metadata: { ...current.metadata, labels: { ...current.metadata.labels, churn: String(seq) } },
          spec: { ...spec, ports },
        },
        { fieldManager: "mc-bench" },
      );
      acked.set(seq, performance.now());
      j++;
    }
    if (j < total) await Bun.sleep(Math.max(0, t0 + (j * 1000) / rate - performance.now()));
  }
  const writeMs = performance.now() - t0;
  const timeout = new Promise<void>((resolve) => setTimeout(resolve, 60_000));
  await Promise.race([done, timeout]);
  stop();
  const f: RateFigures = {
    rate,
    changes: total,
    achievedRate: (total / writeMs) * 1000,
    p50: quantile(latencies, 0.5),
    p95: quantile(latencies, 0.95),
    p99: quantile(latencies, 0.99),
    max: Math.max(...latencies),
    unseen: outstanding,
  };
  say(`${rate}/s: ${total} changes, p50 ${ms(f.p50)} p99 ${ms(f.p99)} max ${ms(f.max)}${f.unseen ? `, ${f.unseen} never seen` : ""}`);
  return f;
}

export const churn: Scenario = {
  name: "churn",
  diagnostic: true,
  title: "In-process diagnostic. Churn latency: target change → mirror updated",
  flags: {
    mirrors: { default: "1000", description: "exported Services mirrored" },
    rates: { default: "10,100,1000", description: "changes per second" },
    "duration-ms": { default: "5000", description: "how long each rate runs (at least 20 changes)" },
  },
  async run(flags) {
    const n = number("mirrors", flags.mirrors!);
    const rates = numbers("rates", flags.rates!);
    const durationMs = number("duration-ms", flags["duration-ms"]!);
    return withMirrors(n, { namespaces: NAMESPACES, probePeriod: "3s" }, {}, async (pair, m) => {
      say(`${size(n)} mirrored`);
      const results: RateFigures[] = [];
      let seq = 0;
      for (const rate of rates) {
        results.push(await churnAt(pair, n, rate, durationMs, seq));
        seq += results[results.length - 1]!.changes;
        await m.settle();
      }
      const at100 = results.find((r) => r.rate === 100);
      return {
        tables: [
          {
            headers: ["changes/s (asked)", "achieved", "changes", "p50", "p95", "p99", "max", "never seen"],
            rows: results.map((r) => [
              String(r.rate),
              r.achievedRate.toFixed(0),
              String(r.changes),
              ms(r.p50),
              ms(r.p95),
              ms(r.p99),
              ms(r.max),
              String(r.unseen),
            ]),
          },
        ],
        targets: at100
          ? [
              {
                name: `churn p99 at 100 changes/s (${size(n)} mirrors)`,
                want: "≤ 50 ms",
                got: ms(at100.p99),
                met: at100.p99 <= 50 && at100.unseen === 0,
              },
            ]
          : [],
        figures: { mirrors: n, durationMs, rates: results },
        notes: ["Writes go through east's API in-process; the latency ends when west's watch stream delivers the mirror's event."],
      };
    });
  },
};
