import { describe, expect, test } from "bun:test";
import { DurationError, formatDuration, isDuration, parseDuration } from "../../src/model/duration.ts";

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
