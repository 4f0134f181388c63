// The staleness rule `mc gateways` and `mc check` share (moved here from test/gateways/render.test.ts).
import { describe, expect, test } from "bun:test";
import { isStale, staleAfterMs } from "../../src/model/staleness.ts";

const NOW = Date.parse("2026-12-02T10:00:30Z");
const ago = (ms: number) => new Date(NOW - ms).toISOString();

describe("gateway status staleness", () => {
  test("a status is stale after 3 probe periods, and never before 30 s", () => {
    expect(staleAfterMs(3_000)).toBe(30_000);
    expect(staleAfterMs(20_000)).toBe(60_000);
    const at = (ms: number) => ({ lastProbeTime: ago(ms) });
    expect(isStale(at(30_000), 3_000, NOW)).toBe(false);
    expect(isStale(at(30_001), 3_000, NOW)).toBe(true);
    expect(isStale(at(59_000), 20_000, NOW)).toBe(false);
    expect(isStale(at(-5_000), 3_000, NOW)).toBe(false); // the controller's clock is ahead: still fresh
    expect(isStale(undefined, 3_000, NOW)).toBe(true);
    expect(isStale({ lastProbeTime: "yesterday" }, 3_000, NOW)).toBe(true);
  });
});
