// Probe latency over a sliding window (the last minute, as PR4710's `mc gateways` asked
// Prometheus for): successful probes only, percentiles by nearest rank. Pure: callers pass
// the time; windows are immutable.

const LATENCY_WINDOW_MS = 60_000;
/** A bound on memory for very short periods (a 10 ms period gives 6,000 samples a minute). */
export const MAX_LATENCY_SAMPLES = 10_000;

export interface LatencySample {
  /** Epoch ms of the probe. */
  at: number;
  ms: number;
}

/** Samples in time order, oldest first. */
export type LatencyWindow = readonly LatencySample[];

export interface LatencyPercentiles {
  p50: number;
  p95: number;
  p99: number;
}

/** Only the samples newer than `now - windowMs`. */
export function pruneLatency(window: LatencyWindow, now: number, windowMs = LATENCY_WINDOW_MS): LatencyWindow {
  const from = now - windowMs;
  let i = 0;
  while (i < window.length && window[i]!.at <= from) i++;
  return i === 0 ? window : window.slice(i);
}

/** The window with one more sample, pruned to the last `windowMs` and at most MAX_LATENCY_SAMPLES. */
export function addLatency(window: LatencyWindow, sample: LatencySample, windowMs = LATENCY_WINDOW_MS): LatencyWindow {
  const kept = pruneLatency(window, sample.at, windowMs);
  const start = Math.max(0, kept.length + 1 - MAX_LATENCY_SAMPLES);
  return [...kept.slice(start), sample];
}

/** p50/p95/p99 of the samples in the window at `now`; undefined when there are none. */
export function latencyPercentiles(window: LatencyWindow, now: number, windowMs = LATENCY_WINDOW_MS): LatencyPercentiles | undefined {
  const values = pruneLatency(window, now, windowMs)
    .map((s) => s.ms)
    .sort((a, b) => a - b);
  if (values.length === 0) return undefined;
  return { p50: nearestRank(values, 0.5), p95: nearestRank(values, 0.95), p99: nearestRank(values, 0.99) };
}

/** The smallest value with at least q of the samples at or below it. */
function nearestRank(sorted: number[], q: number): number {
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1]!;
}

/** `12ms`: whole milliseconds, a valid Go duration (the CRD's `format: duration`). */
export function formatLatency(ms: number): string {
  return `${Math.max(0, Math.round(ms))}ms`;
}
