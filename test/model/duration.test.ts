// Go durations: parsed and formatted, and the one check for Link fields and flags.
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { duration, DurationError, formatDuration, isDuration, parseDuration, type DurationRule } from "../../src/model/duration.ts";

describe("Go durations", () => {
  test.each([
    ["3s", 3000],
    ["30s", 30_000],
    ["1m30s", 90_000],
    ["1.5h", 5_400_000],
    ["500ms", 500],
    ["1500us", 1.5],
    ["1500µs", 1.5],
    ["2000000ns", 2],
    ["0", 0],
    ["+5s", 5000],
    ["-1m", -60_000],
    [".5s", 500],
    ["1h2m3s4ms", 3_723_004],
  ])("%s parses to %d ms", (text, ms) => {
    expect(parseDuration(text)).toBeCloseTo(ms, 9);
  });

  test.each(["", "3", "s", "3x", "1.2.3s", "3 s", "-", "1s2", "ms"])("%p is not a duration", (text) => {
    expect(() => parseDuration(text)).toThrow(DurationError);
    expect(isDuration(text)).toBe(false);
  });

  test.each([
    [0, "0s"],
    [3000, "3s"],
    [60_000, "1m0s"],
    [90_500, "1m30.5s"],
    [3_600_000, "1h0m0s"],
    [3_723_004, "1h2m3.004s"],
    [500, "500ms"],
    [1.5, "1.5ms"],
    [0.0015, "1.5µs"],
    [0.000_002, "2ns"],
    [-3000, "-3s"],
  ])("%d ms is written as %s, as Go's Duration.String() writes it", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  test("formatting and parsing round-trip", () => {
    for (const ms of [1, 3000, 12_345, 86_400_000, 0.25]) expect(parseDuration(formatDuration(ms))).toBeCloseTo(ms, 9);
  });
});

describe("duration(): the one check for Link fields and flags", () => {
  const check = (rule: DurationRule, text: string) => {
    const r = v.safeParse(v.pipe(v.string(), duration(rule)), text);
    return r.success ? r.output : r.issues[0].message;
  };
  const flag: DurationRule = { message: "must be a duration such as 30s or 2m", bareNumber: "plain" };
  const field: DurationRule = {
    message: 'must be a Go duration such as "3s"',
    positive: true,
    tooSmall: 'must be a positive duration, e.g. "3s"',
    bareNumber: "quoted",
    emptyAs: 0,
  };

  test.each<[string, DurationRule, string, number | string]>([
    ["a duration becomes ms", flag, "1m30s", 90_000],
    ["zero is allowed by default", flag, "0s", 0],
    ["below the minimum gets the message", flag, "-1s", "must be a duration such as 30s or 2m"],
    [
      "a bare number is told its unit, flag style",
      flag,
      "30",
      "must be a duration such as 30s or 2m (a bare number has no unit: write 30s)",
    ],
    [
      "a bare number is told its unit, Link style",
      field,
      "3",
      'must be a Go duration such as "3s" (a bare number has no unit: write "3s")',
    ],
    ["no hint unless asked", { message: "must be a duration such as 5m" }, "5", "must be a duration such as 5m"],
    ["positive refuses zero with tooSmall", field, "0s", 'must be a positive duration, e.g. "3s"'],
    [
      "positive without tooSmall gets the message",
      { message: "must be a positive Go duration such as 1m or 30s", positive: true },
      "0s",
      "must be a positive Go duration such as 1m or 30s",
    ],
    ["min is inclusive, in ms", { message: "must be a duration such as 10s", min: 1 }, "1ms", 1],
    ["below min", { message: "must be a duration such as 10s", min: 1 }, "500us", "must be a duration such as 10s"],
    ["emptyAs stands in for an empty string", field, "", 0],
    ["without emptyAs, empty is wrong", flag, "", "must be a duration such as 30s or 2m"],
  ])("%s", (_what, rule, text, expected) => {
    expect(check(rule, text)).toEqual(expected);
  });
});
