// Runs the real `mc` entry point as a subprocess, as a user's shell would.
import { join } from "node:path";
import { printsManifests, recordOutput } from "./capture.ts";

export const MC = join(import.meta.dir, "..", "..", "cmd", "mc.ts");

export interface McResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function mc(args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): Promise<McResult> {
  const proc = Bun.spawn(["bun", MC, ...args], {
    env: { ...process.env, NO_COLOR: "1", ...opts.env },
    stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  recordOutput(`mc ${args.join(" ")}`, `${stderr}${printsManifests(args) ? "" : stdout}`);
  return { code, stdout, stderr };
}

/** Starts a long-running `mc` command and resolves once stderr shows `ready`. */
export function mcUntil(args: string[], ready: RegExp): Promise<Until> {
  return spawnUntil(["bun", MC, ...args], ready);
}

export interface Until {
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  match: RegExpMatchArray;
  stderr: () => string;
}

/** Starts a long-running command and resolves once its stderr so far matches `ready`. */
export async function spawnUntil(cmd: string[], ready: RegExp, opts: { env?: Record<string, string>; cwd?: string } = {}): Promise<Until> {
  const proc = Bun.spawn(cmd, {
    env: opts.env ?? { ...process.env, NO_COLOR: "1" },
    cwd: opts.cwd,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let text = "";
  void proc.exited.then(() => recordOutput(cmd.join(" "), text));
  const reader = proc.stderr.getReader();
  for (;;) {
    const m = text.match(ready);
    if (m) {
      // keep draining so the child never blocks on a full pipe
      (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          text += new TextDecoder().decode(value);
        }
      })();
      return { proc, match: m, stderr: () => text };
    }
    const { value, done } = await reader.read();
    if (done) throw new Error(`${cmd.join(" ")} exited before ready: ${text}`);
    text += new TextDecoder().decode(value);
  }
}
