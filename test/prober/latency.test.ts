// The probe latency window: p50, p95 and p99 over the last probes.
import { describe, expect, test } from "bun:test";
import {
  addLatency,
  formatLatency,
  latencyPercentiles,
  MAX_LATENCY_SAMPLES,
  pruneLatency,
  type LatencyWindow,
} from "../../src/prober/latency.ts";

function windowOf(samples: Array<[at: number, ms: number]>): LatencyWindow {
  return samples.reduce<LatencyWindow>((w, [at, ms]) => addLatency(w, { at, ms }), []);
}

describe("probe latency window", () => {
  test("no samples give no percentiles", () => {
    expect(latencyPercentiles([], 0)).toBeUndefined();
  });

  test("one sample is every percentile", () => {
    expect(latencyPercentiles(windowOf([[1000, 12]]), 1000)).toEqual({ p50: 12, p95: 12, p99: 12 });
  });

  test("percentiles are by nearest rank over the samples, in any order", () => {
    // 1..100 ms, shuffled: p50 = 50, p95 = 95, p99 = 99.
    const values = Array.from({ length: 100 }, (_, i) => ((i * 37) % 100) + 1);
    const w = windowOf(values.map((ms, i) => [i * 10, ms]));
    expect(latencyPercentiles(w, 1000)).toEqual({ p50: 50, p95: 95, p99: 99 });
  });

  test("a slow tail shows in p95 and p99 but not in p50", () => {
    const w = windowOf([...Array.from({ length: 18 }, (_, i): [number, number] => [i, 5]), [18, 200], [19, 300]]);
    expect(latencyPercentiles(w, 20)).toEqual({ p50: 5, p95: 200, p99: 300 });
  });

  test("only the last minute counts", () => {
    const w = windowOf([
      [0, 500],
      [30_000, 10],
      [59_000, 20],
    ]);
    expect(latencyPercentiles(w, 59_000)).toEqual({ p50: 20, p95: 500, p99: 500 });
    expect(latencyPercentiles(w, 60_000)).toEqual({ p50: 10, p95: 20, p99: 20 }); // the 500 ms sample is exactly a minute old
    expect(latencyPercentiles(w, 90_000)).toEqual({ p50: 20, p95: 20, p99: 20 });
    expect(latencyPercentiles(w, 119_000)).toBeUndefined();
  });

  test("adding prunes old samples and never modifies the window it was given", () => {
    const w1 = windowOf([[0, 1]]);
    const w2 = addLatency(w1, { at: 61_000, ms: 2 });
    expect(w1).toEqual([{ at: 0, ms: 1 }]);
    expect(w2).toEqual([{ at: 61_000, ms: 2 }]);
    expect(pruneLatency(w2, 61_000)).toBe(w2);
  });

  test("the window holds at most MAX_LATENCY_SAMPLES", () => {
    let w: LatencyWindow = Array.from({ length: MAX_LATENCY_SAMPLES }, (_, i) => ({ at: i, ms: i }));
    for (let i = MAX_LATENCY_SAMPLES; i < MAX_LATENCY_SAMPLES + 5; i++) w = addLatency(w, { at: i, ms: i });
    expect(w).toHaveLength(MAX_LATENCY_SAMPLES);
    expect(w[0]).toEqual({ at: 5, ms: 5 });
  });

  test("latencies print as whole milliseconds, a Go duration", () => {
    expect(formatLatency(12)).toBe("12ms");
    expect(formatLatency(0.4)).toBe("0ms");
    expect(formatLatency(12.5)).toBe("13ms");
    expect(formatLatency(-1)).toBe("0ms");
  });
});
