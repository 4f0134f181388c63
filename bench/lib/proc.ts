// What a process costs, read from /proc (Linux): CPU time (user + system, all threads) and
// resident memory now and at its peak. The black-box benchmarks read every process this way —
// API servers, the controller, the limit client — so each is measured alone, whatever runs it.
import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat's times (getconf CLK_TCK: 100 on Linux). */
const TICKS = 100;

export interface ProcSample {
  cpuMs: number;
  rssBytes: number;
  /** Peak resident memory since the process started (VmHWM). */
  peakRssBytes: number;
}

/** CPU and memory of process `pid` now. */
export function sample(pid: number): ProcSample {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) in parentheses: utime is the 14th field, stime the 15th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN) * 1024;
  return { cpuMs, rssBytes: kb("VmRSS"), peakRssBytes: kb("VmHWM") };
}

/** The CPU each named process used between `before` and now, with its memory now. */
export function since(before: Record<string, ProcSample>, pids: Record<string, number>): Record<string, ProcSample> {
  const out: Record<string, ProcSample> = {};
  for (const [name, pid] of Object.entries(pids)) {
    const now = sample(pid);
    out[name] = { ...now, cpuMs: now.cpuMs - (before[name]?.cpuMs ?? 0) };
  }
  return out;
}

export const sampleAll = (pids: Record<string, number>): Record<string, ProcSample> =>
  Object.fromEntries(Object.entries(pids).map(([n, p]) => [n, sample(p)]));

/** The 1-, 5- and 15-minute load averages now (every black-box result prints them). */
export const loadNow = (): string => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
