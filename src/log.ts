// Logging: consola writing to stderr only (stdout is for data), tagged per component.
import { createConsola, type ConsolaInstance } from "consola";
import { redact } from "./errors.ts";

export type LogLevel = "error" | "warn" | "info" | "debug" | "trace";
const LEVELS: Record<LogLevel, number> = { error: 0, warn: 1, info: 3, debug: 4, trace: 5 };

let level: LogLevel = "info";
let root: ConsolaInstance = make();

function make(): ConsolaInstance {
  return createConsola({
    level: LEVELS[level],
    stdout: process.stderr,
    stderr: process.stderr,
    formatOptions: { date: false, colors: !process.env.NO_COLOR && process.stderr.isTTY === true },
  });
}

export function setLogLevel(next: LogLevel): void {
  level = next;
  root = make();
}

export function isLogLevel(value: string): value is LogLevel {
  return value in LEVELS;
}

export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

/** A logger tagged with a component (`mirror:east`); every message is redacted. */
export function logger(tag: string): Logger {
  const out = () => root.withTag(tag);
  return {
    error: (m) => out().error(redact(m)),
    warn: (m) => out().warn(redact(m)),
    info: (m) => out().info(redact(m)),
    debug: (m) => out().debug(redact(m)),
  };
}
