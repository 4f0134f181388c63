// dist/mc, the compiled binary the CLI and memory scenarios run: built by `bun run build` when
// asked, or when it is missing.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { say } from "./scenario.ts";

export const ROOT = join(import.meta.dir, "..", "..");
export const BINARY = join(ROOT, "dist", "mc");

export async function ensureBinary(build: boolean): Promise<string> {
  if (build || !existsSync(BINARY)) {
    say("bun run build (dist/mc)");
    const proc = Bun.spawn(["bun", "run", "build"], { cwd: ROOT, stdout: "ignore", stderr: "pipe" });
    if ((await proc.exited) !== 0)
      throw new Error(`bun run build failed: ${(await new Response(proc.stderr).text()).trim().split("\n").slice(-3).join(" ")}`);
  }
  return BINARY;
}

/** A TCP port nothing listens on right now. */
export function freePort(): number {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = s.port!;
  s.stop(true);
  return port;
}

/** Resident memory of a process, from /proc (Linux). */
export async function rssOf(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`no VmRSS for process ${pid}`);
  return kb * 1024;
}
