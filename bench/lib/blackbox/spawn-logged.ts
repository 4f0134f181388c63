// A long-running process of a benchmark whose stderr goes to a file, as a container runtime writes a container's log, not to a pipe the
// bench process must drain while it is busy with its own watches: with the pipe, a profile of mc serve's 10k sync put 15 % of its
// samples in `write`; with the file, 4.6 % (its wall time was the same within the noise).
import { readFileSync } from "node:fs";
import type { Until } from "../../../test/helpers/mc.ts";

/** Starts `cmd` (`env` added to this process's) with stderr appended to `logPath`; resolves once the log so far matches `ready` (read every 25 ms). */
export async function spawnLogged(cmd: string[], ready: RegExp, logPath: string, env: Record<string, string> = {}): Promise<Until> {
  const proc = Bun.spawn(cmd, {
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdin: "ignore",
    stdout: "ignore",
    stderr: Bun.file(logPath),
  });
  const log = () => {
    try {
      return readFileSync(logPath, "utf8");
    } catch {
      return "";
    }
  };
  for (;;) {
    const m = log().match(ready);
    if (m) return { proc: proc as unknown as Until["proc"], match: m, stderr: log };
    if (proc.exitCode !== null) throw new Error(`${cmd.join(" ")} exited (${proc.exitCode}) before ready: ${log().slice(-2000)}`);
    await Bun.sleep(25);
  }
}
