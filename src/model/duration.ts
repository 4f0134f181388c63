// Go duration strings (`3s`, `1m30s`, `1.5h`, `500ms`), as Link specs and flags carry them:
// parsed to milliseconds once, written back the way Go's time.Duration.String() does. Pure.
import * as v from "valibot";
import { MAX_DURATION_MS } from "./limits.ts";

const UNIT_NS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  "\u00b5s": 1e3, // µ MICRO SIGN
  "\u03bcs": 1e3, // μ GREEK SMALL LETTER MU
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

export class DurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DurationError";
  }
}

/**
 * Parses a Go duration (time.ParseDuration): an optional sign and one or more decimal numbers,
 * each with a unit (ns, us, µs, ms, s, m, h); `"0"` alone is allowed. Returns milliseconds.
 */
export function parseDuration(text: string): number {
  let rest = text;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    sign = rest.startsWith("-") ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") throw new DurationError(`invalid duration ${JSON.stringify(text)}`);
  let ns = 0;
  while (rest !== "") {
    const m = /^(\d*)(?:\.(\d*))?([a-zµμ]*)/u.exec(rest);
    const whole = m?.[1] ?? "";
    const frac = m?.[2] ?? "";
    const unit = m?.[3] ?? "";
    if (!m || (whole === "" && frac === "")) throw new DurationError(`invalid duration ${JSON.stringify(text)}`);
    if (unit === "") throw new DurationError(`missing unit in duration ${JSON.stringify(text)}`);
    const scale = UNIT_NS[unit];
    if (scale === undefined) throw new DurationError(`unknown unit "${unit}" in duration ${JSON.stringify(text)}`);
    ns += Number(`${whole || "0"}.${frac || "0"}`) * scale;
    rest = rest.slice(m[0].length);
  }
  return (sign * ns) / 1e6;
}

/** Whether `text` parses as a Go duration. */
export function isDuration(text: string): boolean {
  try {
    parseDuration(text);
    return true;
  } catch {
    return false;
  }
}

export interface DurationRule {
  /** What a wrong value gets told, e.g. `must be a duration such as 30s or 2m`. */
  message: string;
  /** The shortest duration allowed, in ms (default 0). */
  min?: number;
  /** Only durations above zero. */
  positive?: boolean;
  /** 0 means "off" and is allowed below `min`. */
  zeroIsOff?: boolean;
  /** What a duration below the minimum gets told instead of `message`. */
  tooSmall?: string;
  /** The longest duration allowed, in ms (default MAX_DURATION_MS, a day: src/model/limits.ts). */
  max?: number;
  /** What a duration above the maximum gets told (default `must be at most <max>`). */
  tooLarge?: string;
  /** After `message`, for a bare number, suggest it in seconds: quoted (`"3s"`, a Link spec's string) or plain (`3s`, a flag). */
  bareNumber?: "quoted" | "plain";
  /** The value of "" (for Link fields checked later), instead of an error. */
  emptyAs?: number;
}

/**
 * The one duration check of mc, for Link fields and flags alike: a valibot action from a Go
 * duration string to milliseconds within [min, max], or one issue saying the fix (`rule`'s messages).
 */
export function duration(rule: DurationRule): v.RawTransformAction<string, number> {
  const min = rule.min ?? 0;
  const max = rule.max ?? MAX_DURATION_MS;
  return v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const text = dataset.value;
    if (text === "" && rule.emptyAs !== undefined) return rule.emptyAs;
    let ms: number | undefined;
    try {
      ms = parseDuration(text);
    } catch (err) {
      if (!(err instanceof DurationError)) throw err;
    }
    if (ms !== undefined && ms > max) {
      addIssue({ message: rule.tooLarge ?? `must be at most ${shortDuration(max)}` });
      return NEVER;
    }
    if (ms !== undefined && ms >= min && (!rule.positive || ms > 0)) return ms;
    if (ms === 0 && rule.zeroIsOff) return 0;
    const unit = rule.bareNumber === "quoted" ? `"${text}s"` : `${text}s`;
    const bare = rule.bareNumber && ms === undefined && /^\d+$/.test(text) ? ` (a bare number has no unit: write ${unit})` : "";
    addIssue({ message: ms !== undefined && rule.tooSmall ? rule.tooSmall : `${rule.message}${bare}` });
    return NEVER;
  });
}

/** Go's time.Duration.String(): `0s`, `500ms`, `3s`, `1m0s`, `1h2m3.5s`. */
export function formatDuration(ms: number): string {
  let ns = Math.round(ms * 1e6);
  if (ns === 0) return "0s";
  const sign = ns < 0 ? "-" : "";
  ns = Math.abs(ns);
  if (ns < 1e3) return `${sign}${ns}ns`;
  if (ns < 1e6) return `${sign}${fraction(ns, 1e3)}µs`;
  if (ns < 1e9) return `${sign}${fraction(ns, 1e6)}ms`;
  const hours = Math.floor(ns / 3600e9);
  const minutes = Math.floor((ns % 3600e9) / 60e9);
  const seconds = fraction(ns % 60e9, 1e9);
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** A duration the way people write it, Go-parsable: 1h, 10m, 1h30m, 2.5s (formatDuration without the zero terms). */
export function shortDuration(ms: number): string {
  return formatDuration(ms)
    .replace(/([hm])0s$/, "$1")
    .replace(/h0m$/, "h");
}

/** `value / unit` with the fraction's trailing zeros trimmed: 1500/1000 → "1.5". */
function fraction(value: number, unit: number): string {
  const whole = Math.floor(value / unit);
  const rest = value % unit;
  if (rest === 0) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(rest).padStart(digits, "0").replace(/0+$/, "")}`;
}
