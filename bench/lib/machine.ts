// What the figures were measured on, written with every result: CPU, cores, memory, OS, Bun,
// the commit, and how busy the machine was when the run started (other work skews timings).
import { availableParallelism, cpus, loadavg, platform, release, totalmem } from "node:os";

export interface Machine {
  cpu: string;
  cores: number;
  memoryMB: number;
  os: string;
  bun: string;
  commit: string;
  /** 1-minute load average at the start of the run. */
  loadAtStart: number;
  date: string;
}

export function describeMachine(): Machine {
  const git = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: import.meta.dir, stderr: "ignore" });
  const dirty = Bun.spawnSync(["git", "status", "--porcelain", "--untracked-files=no"], { cwd: import.meta.dir, stderr: "ignore" });
  const commit = git.success ? git.stdout.toString().trim() + (dirty.stdout.toString().trim() ? "+changes" : "") : "unknown";
  return {
    cpu: cpus()[0]?.model.trim() ?? "unknown",
    cores: availableParallelism(),
    memoryMB: Math.round(totalmem() / 2 ** 20),
    os: `${platform()} ${release()}`,
    bun: Bun.version,
    commit,
    loadAtStart: Number(loadavg()[0]!.toFixed(2)),
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
  };
}

export const machineLine = (m: Machine): string =>
  `${m.cores} cores (${m.cpu}), ${(m.memoryMB / 1024).toFixed(1)} GB, ${m.os}, bun ${m.bun}, commit ${m.commit}, load ${m.loadAtStart} at start, ${m.date}`;
