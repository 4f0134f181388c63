// Which processes a run of the real-cluster tier started: one file per owning process under /run/mc-test-kube (or $TMPDIR when /run is not
// writable), a line "pid binary" per process. A run killed before it could clean up leaves its file; the next start reaps it, killing each
// recorded pid that still runs that binary (checked in /proc, so a reused pid is left alone).
import { appendFileSync, mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alive } from "../helpers/pid.ts";

function dir(): string {
  for (const d of ["/run/mc-test-kube", join(tmpdir(), "mc-test-kube")]) {
    try {
      mkdirSync(d, { recursive: true });
      return d;
    } catch {}
  }
  throw new Error("no directory for the real-cluster process registry");
}

export function recordPid(pid: number, binary: string): void {
  appendFileSync(join(dir(), String(process.pid)), `${pid} ${binary}\n`);
}

/** Forgets this process's record (after a clean stop). */
export function clearRecord(): void {
  rmSync(join(dir(), String(process.pid)), { force: true });
}

/** Kills what dead owners left running; returns how many processes were killed. */
export function reapOrphans(): number {
  const d = dir();
  let killed = 0;
  for (const owner of readdirSync(d)) {
    if (!/^\d+$/.test(owner) || alive(Number(owner))) continue;
    for (const line of readFileSync(join(d, owner), "utf8").split("\n")) {
      const [pid, binary] = line.split(" ");
      if (!pid || !binary) continue;
      let cmd = "";
      try {
        cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] ?? "";
      } catch {}
      if (cmd !== binary) continue;
      try {
        process.kill(Number(pid), "SIGKILL");
        killed++;
      } catch {}
    }
    rmSync(join(d, owner), { force: true });
  }
  return killed;
}
