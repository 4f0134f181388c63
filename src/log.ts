// Logging: consola writing to stderr only (stdout is for data), tagged per component. consola is
// loaded on the first message, not at import: a command that logs nothing (`mc --help`,
// `mc --version`) does not pay for it.
import type { ConsolaInstance, ConsolaReporter, LogObject } from "consola";
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
    process.stderr.write(
      `${JSON.stringify({ time: entry.date.toISOString(), level: entry.type, component: entry.tag || undefined, msg })}\n`,
    );
  },
};

export type Formatting = ConsolaReporter & { formatLogObj(logObj: LogObject, opts: Record<string, unknown>): string };

/**
 * consola's own reporter, with a short way for the lines a controller writes per object: an info
 * or debug line of one plain string, not on a terminal, is the line consola would make for it —
 * its `[tag] icon ` prefix (made by consola once per tag and type) and the message — without
 * consola measuring its width character by character (≈50 µs a line, a tenth of a sync's CPU).
 * Anything else (a terminal, a warning's badge, backticks or underscores consola would style, a
 * newline) goes to consola whole.
 */
export function plainFast(inner: Formatting): ConsolaReporter {
  const prefixes = new Map<string, string | null>();
  return {
    log(logObj, ctx) {
      const message = logObj.args[0];
      const out = ctx.options.stdout as (NodeJS.WriteStream & { __write?: (s: string) => boolean }) | undefined;
      const plain =
        out !== undefined &&
        !(out.columns > 0) &&
        (logObj.type === "info" || logObj.type === "debug") &&
        logObj.args.length === 1 &&
        typeof message === "string" &&
        message !== "" &&
        !/[\n`_%]/.test(message);
      if (!plain) return inner.log(logObj, ctx);
      const key = `${logObj.type}\0${logObj.tag}`;
      let prefix = prefixes.get(key);
      if (prefix === undefined) {
        const probe = inner.formatLogObj({ ...logObj, args: ["\u0001"] }, { columns: 0, ...ctx.options.formatOptions });
        prefix = probe.endsWith("\u0001") && !probe.slice(0, -1).includes("\u0001") ? probe.slice(0, -1) : null;
        prefixes.set(key, prefix);
      }
      if (prefix === null) return inner.log(logObj, ctx);
      (out.__write ?? out.write).call(out, `${prefix}${message}\n`);
    },
  };
}

function make(): ConsolaInstance {
  const { createConsola } = require("consola") as typeof import("consola");
  const c = createConsola({
    level: LEVELS[level],
    stdout: process.stderr,
    stderr: process.stderr,
    ...(format === "json" ? { reporters: [jsonReporter] } : {}),
    formatOptions: { date: false, colors: !process.env.NO_COLOR && process.stderr.isTTY === true },
  });
  const [inner] = c.options.reporters;
  if (format === "plain" && c.options.reporters.length === 1 && typeof (inner as Partial<Formatting>).formatLogObj === "function")
    c.setReporters([plainFast(inner as Formatting)]);
  return c;
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
