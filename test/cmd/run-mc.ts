// Runs `mc` in this process (no Bun start-up, no import cost per call), capturing what it
// writes to stdout and stderr and its exit code. Global flags live in no module, so runs share nothing.
import { run } from "../../cmd/mc.ts";
import { setLogLevel } from "../../src/log.ts";
import { debugLogs, printsManifests, recordOutput } from "../helpers/capture.ts";

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runMc(argv: string[]): Promise<RunResult> {
  const out: string[] = [];
  const err: string[] = [];
  const stdoutWrite = process.stdout.write;
  const stderrWrite = process.stderr.write;
  const capture = (sink: string[]) =>
    ((chunk: string | Uint8Array) => {
      sink.push(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk));
      return true;
    }) as typeof process.stdout.write;
  process.stdout.write = capture(out);
  process.stderr.write = capture(err);
  try {
    // A command logs at its own level (tests compare its stderr); in-process controllers stay at debug.
    if (debugLogs) setLogLevel("info");
    const code = await run(argv).finally(() => debugLogs && setLogLevel("debug"));
    const result = { code, stdout: out.join(""), stderr: err.join("") };
    recordOutput(`mc ${argv.join(" ")} (in-process)`, `${result.stderr}${printsManifests(argv) ? "" : result.stdout}`);
    return result;
  } finally {
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
  }
}
