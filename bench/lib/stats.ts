// Figures: medians, percentiles, CPU time, and how they print.

export const median = (xs: readonly number[]): number => quantile(xs, 0.5);

/** The q-quantile by nearest rank (q = 0.99 → p99); NaN for no samples. */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** CPU time (user + system) this process has used, in ms. */
export const cpuMs = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/** Runs `fn`, returning its result with the wall and CPU ms it took. */
export async function measured<T>(fn: () => T | Promise<T>): Promise<{ value: T; wallMs: number; cpuMs: number }> {
  const c = cpuMs();
  const t = performance.now();
  const value = await fn();
  return { value, wallMs: performance.now() - t, cpuMs: cpuMs() - c };
}

export const ms = (x: number): string =>
  !Number.isFinite(x)
    ? "–"
    : x >= 10_000
      ? `${(x / 1000).toFixed(1)} s`
      : x >= 100
        ? `${x.toFixed(0)} ms`
        : x >= 1
          ? `${x.toFixed(1)} ms`
          : `${(x * 1000).toFixed(0)} µs`;
export const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MB`;
export const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
export const ratio = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(2)}` : "–");
export const perSecond = (count: number, wallMs: number): number => (count / wallMs) * 1000;
export const int = (x: number): string => (Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "–");
