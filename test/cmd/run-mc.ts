// Runs `mc` in this process (no Bun start-up, no import cost per call), capturing what it
// writes to stdout and stderr and its exit code. Global flags live in no module, so runs share nothing.
import { run } from "../../cmd/mc.ts";

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
    const code = await run(argv);
    return { code, stdout: out.join(""), stderr: err.join("") };
  } finally {
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
  }
}
