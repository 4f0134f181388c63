// The runner: order, fatal and `needs` skips, thrown errors, --wait retries on an injected clock.
import { describe, expect, test } from "bun:test";
import { runChecks } from "../../src/checker/runner.ts";
import type { Check, CheckOutcome, CheckResult, Severity } from "../../src/checker/types.ts";

type Ctx = { ran: string[] };

function check(id: string, severity: Severity, outcome: CheckOutcome | (() => CheckOutcome), extra: Partial<Check<Ctx>> = {}): Check<Ctx> {
  return {
    id,
    title: `title of ${id}`,
    hint: `anchor-${id}`,
    severity,
    async run(ctx) {
      ctx.ran.push(id);
      return typeof outcome === "function" ? outcome() : outcome;
    },
    ...extra,
  };
}

const pass = { ok: true };
const fail = { ok: false, message: "broken" };

describe("runChecks", () => {
  test("runs every check in order and reports each result as it finishes", async () => {
    const seen: string[] = [];
    const ctx = { ran: [] as string[] };
    const report = await runChecks([check("a", "fatal", pass), check("b", "error", pass), check("c", "warning", pass)], ctx, {
      onResult: (r) => seen.push(`${r.id}:${r.status}`),
    });
    expect(ctx.ran).toEqual(["a", "b", "c"]);
    expect(seen).toEqual(["a:success", "b:success", "c:success"]);
    expect(report.success).toBe(true);
  });

  test("a failed fatal check skips every later check and names itself as the reason", async () => {
    const ctx = { ran: [] as string[] };
    const report = await runChecks([check("a", "fatal", fail), check("b", "error", pass), check("c", "warning", pass)], ctx);
    expect(ctx.ran).toEqual(["a"]);
    expect(report.results.map((r) => r.status)).toEqual(["error", "skipped", "skipped"]);
    expect(report.results[1]).toMatchObject({ skippedBecause: "title of a", attempts: 0 });
    expect(report.success).toBe(false);
  });

  test("a check whose needed check failed is skipped while unrelated checks still run", async () => {
    const ctx = { ran: [] as string[] };
    const report = await runChecks(
      [check("a", "error", fail), check("b", "error", pass, { needs: ["a"] }), check("c", "error", pass)],
      ctx,
    );
    expect(ctx.ran).toEqual(["a", "c"]);
    expect(report.results.map((r) => `${r.id}:${r.status}`)).toEqual(["a:error", "b:skipped", "c:success"]);
    expect(report.results[1]!.skippedBecause).toBe("title of a");
  });

  test("a failed warning is a warning with its hint, and the report still succeeds", async () => {
    const report = await runChecks([check("w", "warning", { ok: false, message: "hm", details: ["x"] })], { ran: [] });
    expect(report.results[0]).toMatchObject({ status: "warning", message: "hm", details: ["x"], hint: "anchor-w" });
    expect(report.success).toBe(true);
  });

  test("a passing check carries no hint", async () => {
    const report = await runChecks([check("a", "error", pass)], { ran: [] });
    expect(report.results[0]!.hint).toBeUndefined();
  });

  test("a check that throws fails with the error's one redacted line", async () => {
    const boom: Check<Ctx> = {
      ...check("a", "error", pass),
      run: async () => Promise.reject(new Error("GET failed\nAuthorization: Bearer abc.def")),
    };
    const report = await runChecks([boom], { ran: [] });
    expect(report.results[0]!.status).toBe("error");
    expect(report.results[0]!.message).toBe("GET failed Authorization: Bearer <redacted>");
  });

  test("without a deadline a failing retryable check runs once", async () => {
    const ctx = { ran: [] as string[] };
    await runChecks([check("r", "error", fail, { retry: true })], ctx, { sleep: async () => {} });
    expect(ctx.ran).toEqual(["r"]);
  });

  test("with a deadline a failing retryable check runs again until it passes", async () => {
    let clock = 0;
    let calls = 0;
    const flaky = check("r", "error", () => (++calls < 3 ? fail : pass), { retry: true });
    const report = await runChecks(
      [flaky],
      { ran: [] },
      { deadline: 10_000, now: () => clock, sleep: async (ms) => void (clock += ms), retryDelayMs: 1000 },
    );
    expect(report.results[0]).toMatchObject({ status: "success", attempts: 3 });
    expect(clock).toBe(2000);
  });

  test("retries stop at the deadline and the last failure is reported", async () => {
    let clock = 0;
    const results: CheckResult[] = [];
    const report = await runChecks(
      [check("r", "error", fail, { retry: true })],
      { ran: [] },
      {
        deadline: 3500,
        now: () => clock,
        sleep: async (ms) => void (clock += ms),
        retryDelayMs: 1000,
        onResult: (r) => results.push(r),
      },
    );
    expect(report.results[0]).toMatchObject({ status: "error", attempts: 4, message: "broken" });
    expect(clock).toBe(3000);
    expect(results).toHaveLength(1);
  });

  test("checks that are not retryable are not retried even with a deadline", async () => {
    const ctx = { ran: [] as string[] };
    await runChecks([check("n", "error", fail)], ctx, { deadline: 1e12, sleep: async () => {} });
    expect(ctx.ran).toEqual(["n"]);
  });
});

describe("progress while waiting", () => {
  test("each retry is announced with the failing outcome and the attempt number", async () => {
    let clock = 0;
    const seen: string[] = [];
    await runChecks(
      [check("r", "error", fail, { retry: true })],
      { ran: [] },
      {
        deadline: 2000,
        now: () => clock,
        sleep: async (ms) => void (clock += ms),
        onRetry: (c, outcome, attempt) => seen.push(`${c.id} ${outcome.message} #${attempt}`),
      },
    );
    expect(seen).toEqual(["r broken #1", "r broken #2"]);
  });
});
