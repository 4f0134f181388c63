// Where the black-box processes run: west's API server processes on a core of their own, every other process on the other cores.
// As in a cluster (kube-apiserver on control-plane nodes, a controller on a worker), the controller never takes the server's CPU.
import { availableParallelism } from "node:os";
import { readFileSync } from "node:fs";

// On a 2-core machine sharing the cores, mc serve's CPU came out of west's: the ratio then measured the controller's CPU cost as
// much as whether it fills the pipe (docs/decisions.md D177).

export interface Pinning {
  /** CPU list (taskset -c) for west's server processes. */
  west: string;
  /** CPU list for every other process. */
  others: string;
}

/** The pinning for this machine, or why there is none (fewer than 2 CPUs, no taskset). */
export function planPinning(): Pinning | string {
  const cpus = availableParallelism();
  if (cpus < 2) return `${cpus} CPU: nothing to pin apart`;
  if (Bun.which("taskset") === null) return "no taskset (util-linux)";
  return { west: String(cpus - 1), others: cpus === 2 ? "0" : `0-${cpus - 2}` };
}

/** Sets the CPU affinity of every thread of `pid` (threads and children made later inherit it); throws when taskset fails. */
export function pin(pid: number, cpus: string): void {
  const r = Bun.spawnSync(["taskset", "-a", "-p", "-c", cpus, String(pid)], { stdout: "ignore", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`taskset -a -p -c ${cpus} ${pid}: ${r.stderr.toString().trim()}`);
}

/** The CPU list a process may run on, from /proc (`Cpus_allowed_list`). */
export function allowedCpus(pid: number): string {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/^Cpus_allowed_list:\s*(\S+)/m);
  return m ? m[1]! : "?";
}
