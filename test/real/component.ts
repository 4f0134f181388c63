// One process of a real test cluster (etcd, kube-apiserver, …): started from the cached binaries with its output in a log file, waited on
// until its health endpoint answers, stopped or killed by its own pid. Every pid started is recorded in the run's registry file
// (registry.ts), so a run that died without cleaning up is reaped by the next one.
import { appendFileSync, openSync, closeSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { recordPid } from "./registry.ts";

export interface ComponentSpec {
  name: string;
  binary: string;
  args: string[];
  logFile: string;
  /** Resolves true once the process serves; polled every 100 ms. */
  ready: () => Promise<boolean>;
}

export class Component {
  private proc: Subprocess | undefined;

  constructor(readonly spec: ComponentSpec) {}

  get pid(): number | undefined {
    return this.proc?.exitCode === null ? this.proc.pid : undefined;
  }

  get running(): boolean {
    return this.proc !== undefined && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Starts the process and waits until it is ready (default 60 s). */
  async start(timeoutMs = 60_000): Promise<void> {
    if (this.running) return;
    appendFileSync(this.spec.logFile, `--- start ${new Date().toISOString()}\n`);
    const fd = openSync(this.spec.logFile, "a");
    try {
      this.proc = Bun.spawn([this.spec.binary, ...this.spec.args], { stdout: fd, stderr: fd, stdin: "ignore" });
    } finally {
      closeSync(fd);
    }
    recordPid(this.proc.pid, this.spec.binary);
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      if (!this.running)
        throw new Error(`${this.spec.name} exited (${this.proc.exitCode ?? this.proc.signalCode}) while starting:\n${await this.tail()}`);
      if (await this.spec.ready().catch(() => false)) return;
      if (performance.now() > deadline) throw new Error(`${this.spec.name} not ready after ${timeoutMs} ms:\n${await this.tail()}`);
      await Bun.sleep(100);
    }
  }

  /** Sends `signal` and waits for the exit; SIGTERM escalates to SIGKILL after 10 s. */
  async stop(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): Promise<void> {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
    await proc.exited;
    clearTimeout(timer);
  }

  /** Synchronous SIGKILL, for an exit handler. */
  killNow(): void {
    if (this.running) this.proc?.kill("SIGKILL");
  }

  async tail(lines = 15): Promise<string> {
    const text = await Bun.file(this.spec.logFile)
      .text()
      .catch(() => "");
    return text.trimEnd().split("\n").slice(-lines).join("\n");
  }
}

/** Free loopback TCP ports, each taken by binding port 0 and released at once. */
export function freePorts(n: number): number[] {
  const listeners = Array.from({ length: n }, () => Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } }));
  const ports = listeners.map((l) => l.port);
  for (const l of listeners) l.stop(true);
  return ports;
}

export const logPath = (dir: string, name: string) => join(dir, `${name}.log`);
