// For the test that greps everything the suites print for secrets (test/security/ enforced-suites.test.ts): with MC_TEST_OUTPUT_DIR set,
// the output of every mc run — in-process (runMc) or as a process (mc, spawnUntil) — and every line a recording log is told is also
// appended to a file there; with MC_TEST_LOG_LEVEL=debug, in-process logs are at debug.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { setLogLevel } from "../../src/log.ts";

// Manifest output (mc install, allow and link print Secrets to apply) is the product, not a log: left
// out.

const dir = process.env.MC_TEST_OUTPUT_DIR;
/** Suites run with every log at debug (mc serve processes get --log-level=debug). */
export const debugLogs = process.env.MC_TEST_LOG_LEVEL === "debug";
if (debugLogs) setLogLevel("debug");

const MANIFEST_COMMANDS = new Set(["install", "allow", "link"]);

/** Whether an mc command's stdout is manifests to apply (which may carry Secrets by design). */
export function printsManifests(argv: readonly string[]): boolean {
  return argv.some((a) => MANIFEST_COMMANDS.has(a));
}

export function recordOutput(what: string, text: string): void {
  if (!dir || text === "") return;
  appendFileSync(join(dir, `${process.pid}.log`), `--- ${what}\n${text}\n`);
}
