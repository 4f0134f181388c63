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
/** The root's short way for plain lines (plain format only). */
let rootFast: PlainFast | undefined;
const current = (): ConsolaInstance => (root ??= make());

/** One JSON object per line on stderr: `{"time","level","component","msg"}` (for `--log-format json`). */
const jsonReporter = {
  log(entry: { type: string; tag?: string; args: unknown[]; date: Date }) {
    const msg = entry.args.map((a) => (typeof a === "string" ? a : String(a))).join(" ");
    flushLogs();
    process.stderr.write(
      `${JSON.stringify({ time: entry.date.toISOString(), level: entry.type, component: entry.tag || undefined, msg })}\n`,
    );
  },
};

type Out = NodeJS.WriteStream & { __write?: (s: string) => boolean };
type Write = (this: Out, s: string) => unknown;

/**
 * Plain info and debug lines are held a few milliseconds and written together: one `write` (one
 * syscall) for the lines of many reconciles instead of one each (see docs/decisions.md, D171).
 */
let held = "";
let heldTo: Out | undefined;
let heldWrite: Write | undefined;
let flushScheduled = false;
let exitHooked = false;
/** How long a line may be held, and how much text: beyond it, it is written at once. */
const HOLD_MS = 10;
const HOLD_MAX = 64 * 1024;

/**
 * Writes the plain lines held, now. Called HOLD_MS after the first of them, before any other line
 * (a warning, an error, a JSON line, `error: ...`), when a command returns, and at exit or an
 * uncaught exception. Each held line goes to the `write` its stream had when it was logged.
 */
export function flushLogs(): void {
  if (held === "") return;
  const [text, to, write] = [held, heldTo, heldWrite];
  held = "";
  heldTo = heldWrite = undefined;
  write!.call(to!, text);
}

function writeLine(out: Out, text: string, hold: boolean): void {
  const write: Write = out.__write ?? out.write;
  if (held !== "" && (heldTo !== out || heldWrite !== write)) flushLogs();
  if (!hold) {
    write.call(out, text);
    return;
  }
  held += text;
  heldTo = out;
  heldWrite = write;
  if (held.length >= HOLD_MAX) flushLogs();
  else if (!flushScheduled) {
    flushScheduled = true;
    // Unref'd: a process with nothing else to do exits at once, and writes what is held on "exit".
    setTimeout(() => {
      flushScheduled = false;
      flushLogs();
    }, HOLD_MS).unref();
  }
  if (!exitHooked) {
    exitHooked = true;
    process.on("exit", () => flushLogs());
    process.on("uncaughtExceptionMonitor", () => flushLogs());
  }
}

export type Formatting = ConsolaReporter & { formatLogObj(logObj: LogObject, opts: Record<string, unknown>): string };

/** consola's record of a tagged instance's last line (its throttle of repeated lines: `_logFn`). */
interface LastLog {
  count?: number;
  time?: Date;
  serialized?: string;
  object?: LogObject;
  timeout?: ReturnType<typeof setTimeout>;
}

export interface PlainFast extends ConsolaReporter {
  /**
   * Writes an info or debug line of one message the short way — without consola's `_logFn`, doing
   * its bookkeeping of repeats — when it is plain and not a repeat consola would hold back; false
   * when consola must write it.
   */
  line(c: ConsolaInstance, type: "info" | "debug", message: string): boolean;
}

/**
 * consola's own reporter, with a short way for the lines a controller writes per object: an info
 * or debug line of one plain string, not on a terminal, is the line consola would make for it —
 * its `[tag] icon ` prefix (made by consola once per tag and type) and the message — without
 * consola measuring its width character by character (≈50 µs a line, a tenth of a sync's CPU).
 * Anything else (a terminal, a warning's badge, backticks or underscores consola would style, a
 * newline) goes to consola whole. With `hold`, the short way's lines are held (writeLine) and written together.
 */
export function plainFast(inner: Formatting, hold = false): PlainFast {
  const prefixes = new Map<string, string | null>();
  /** The stream a plain line goes to and its prefix, or undefined when consola must write it. */
  const plain = (logObj: LogObject, options: LogObject & Record<string, unknown>): [Out, string] | undefined => {
    const message = logObj.args[0];
    const out = options.stdout as Out | undefined;
    const ok =
      out !== undefined &&
      !(out.columns > 0) &&
      (logObj.type === "info" || logObj.type === "debug") &&
      logObj.args.length === 1 &&
      typeof message === "string" &&
      message !== "" &&
      !/[\n`_%]/.test(message);
    if (!ok) return undefined;
    const key = `${logObj.type}\0${logObj.tag}`;
    let prefix = prefixes.get(key);
    if (prefix === undefined) {
      const probe = inner.formatLogObj({ ...logObj, args: ["\u0001"] }, { columns: 0, ...(options.formatOptions as object) });
      prefix = probe.endsWith("\u0001") && !probe.slice(0, -1).includes("\u0001") ? probe.slice(0, -1) : null;
      prefixes.set(key, prefix);
    }
    return prefix === null ? undefined : [out, prefix];
  };
  return {
    log(logObj, ctx) {
      const to = plain(logObj, ctx.options as never);
      if (to === undefined) {
        flushLogs();
        return inner.log(logObj, ctx);
      }
      writeLine(to[0], `${to[1]}${logObj.args[0]}\n`, hold);
    },
    line(c, type, message) {
      const { options } = c;
      const level = options.types[type]?.level ?? 3;
      if (level > c.level) return true;
      const tag = typeof options.defaults.tag === "string" ? options.defaults.tag : "";
      const logObj = { date: new Date(), args: [message], type, level, tag } as LogObject;
      const to = plain(logObj, options as never);
      if (to === undefined) return false;
      // consola's `_logFn` for this line: a pending "(repeated n times)", or a repeat it holds back, is its to write.
      const last = (c as unknown as { _lastLog: LastLog })._lastLog;
      if ((last.count || 0) - options.throttleMin > 0) return false;
      const diff = last.time ? logObj.date.getTime() - last.time.getTime() : 0;
      const serialized = diff < options.throttle ? JSON.stringify([type, tag, logObj.args]) : undefined;
      const same = serialized !== undefined && last.serialized === serialized;
      if (same && (last.count || 0) + 1 > options.throttleMin) return false;
      if (last.timeout !== undefined) clearTimeout(last.timeout);
      last.time = logObj.date;
      if (serialized !== undefined) last.serialized = serialized;
      if (same) last.count = (last.count || 0) + 1;
      last.object = logObj;
      writeLine(to[0], `${to[1]}${message}\n`, hold);
      return true;
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
  rootFast = undefined;
  if (format === "plain" && c.options.reporters.length === 1 && typeof (inner as Partial<Formatting>).formatLogObj === "function")
    c.setReporters([(rootFast = plainFast(inner as Formatting, true))]);
  return c;
}

export function setLogLevel(next: LogLevel): void {
  flushLogs();
  level = next;
  root = undefined;
}

export function setLogFormat(next: LogFormat): void {
  flushLogs();
  format = next;
  root = undefined;
}

export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
  /**
   * False when debug lines are dropped: guards a debug line whose message costs something to build
   * (`if (log.debugging !== false) log.debug(...)`). A logger without it takes every line.
   */
  readonly debugging?: boolean;
}

/**
 * A logger tagged with a component (`mirror:east`); every message is redacted. The tagged
 * consola is made once per root (a level or format change makes a new root), and a message
 * below the level costs nothing: the controller's per-object debug lines are on its hot path.
 * A plain info or debug line takes the root's short way (PlainFast.line) when it can.
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
  const fast = (type: "info" | "debug") => (c: ConsolaInstance, m: string) => {
    if (!rootFast?.line(c, type, m)) c[type](m);
  };
  return {
    error: at("error", (c, m) => c.error(m)),
    warn: at("warn", (c, m) => c.warn(m)),
    info: at("info", fast("info")),
    debug: at("debug", fast("debug")),
    get debugging() {
      return LEVELS.debug <= LEVELS[level];
    },
  };
}
