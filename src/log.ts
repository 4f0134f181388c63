// Logging: consola writing to stderr only (stdout is for data), tagged per component. consola is
// loaded on the first message, not at import: a command that logs nothing (`mc --help`,
// `mc --version`) does not pay for it.
import type { ConsolaInstance } from "consola";
import { redact } from "./errors.ts";

export type LogLevel = "error" | "warn" | "info" | "debug" | "trace";
const LEVELS: Record<LogLevel, number> = { error: 0, warn: 1, info: 3, debug: 4, trace: 5 };

export type LogFormat = "plain" | "json";

let level: LogLevel = "info";
let format: LogFormat = "plain";
/** Made on first use, and again after a level or format change. */
let root: ConsolaInstance | undefined;
const current = (): ConsolaInstance => (root ??= make());

/** One JSON object per line on stderr: `{"time","level","component","msg"}` (for `--log-format json`). */
const jsonReporter = {
  log(entry: { type: string; tag?: string; args: unknown[]; date: Date }) {
    const msg = entry.args.map((a) => (typeof a === "string" ? a : String(a))).join(" ");
    process.stderr.write(`${JSON.stringify({ time: entry.date.toISOString(), level: entry.type, component: entry.tag || undefined, msg })}\n`);
  },
};

function make(): ConsolaInstance {
  const { createConsola } = require("consola") as typeof import("consola");
  return createConsola({
    level: LEVELS[level],
    stdout: process.stderr,
    stderr: process.stderr,
    ...(format === "json" ? { reporters: [jsonReporter] } : {}),
    formatOptions: { date: false, colors: !process.env.NO_COLOR && process.stderr.isTTY === true },
  });
}

export function setLogLevel(next: LogLevel): void {
  level = next;
  root = undefined;
}

export function setLogFormat(next: LogFormat): void {
  format = next;
  root = undefined;
}


export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

/**
 * A logger tagged with a component (`mirror:east`); every message is redacted. The tagged
 * consola is made once per root (a level or format change makes a new root), and a message
 * below the level costs nothing: the controller's per-object debug lines are on its hot path.
 */
export function logger(tag: string): Logger {
  let from: ConsolaInstance | undefined;
  let tagged: ConsolaInstance | undefined;
  const out = () => {
    const r = current();
    if (from !== r) [from, tagged] = [r, r.withTag(tag)];
    return tagged!;
  };
  const at = (l: LogLevel, write: (c: ConsolaInstance, m: string) => void) => (m: string) => {
    if (LEVELS[l] <= LEVELS[level]) write(out(), redact(m));
  };
  return {
    error: at("error", (c, m) => c.error(m)),
    warn: at("warn", (c, m) => c.warn(m)),
    info: at("info", (c, m) => c.info(m)),
    debug: at("debug", (c, m) => c.debug(m)),
  };
}
