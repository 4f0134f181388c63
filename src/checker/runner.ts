// Runs checks in order and reports each result as it finishes. A fatal failure skips the rest; a check whose `needs` did not pass is
// skipped and says which; with a deadline, failing retryable checks run again until they pass or the deadline comes. The clock and sleep
// are injected, so tests never wait.
import { formatError } from "../errors.ts";
import type { Check, CheckOutcome, CheckReport, CheckResult } from "./types.ts";

export interface RunOptions {
  /** Called once per check, in order, as soon as its final result is known. */
  onResult?: (result: CheckResult) => void;
  /** Called before each retry of a failing check, so a long --wait shows what it waits for. */
  onRetry?: (check: { id: string; title: string }, outcome: CheckOutcome, attempt: number) => void;
  /** Epoch ms until which failing retryable checks are retried; none = no retries. */
  deadline?: number;
  /** Pause between attempts of a retrying check. */
  retryDelayMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export async function runChecks<C>(checks: readonly Check<C>[], ctx: C, opts: RunOptions = {}): Promise<CheckReport> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => Bun.sleep(ms));
  const retryDelayMs = opts.retryDelayMs ?? 1000;
  const results: CheckResult[] = [];
  const byId = new Map<string, CheckResult>();
  let fatal: CheckResult | undefined;
  for (const check of checks) {
    const blocker = fatal ?? (check.needs ?? []).map((id) => byId.get(id)).find((r) => r !== undefined && r.status !== "success");
    let result: CheckResult;
    if (blocker) {
      result = { ...base(check), status: "skipped", skippedBecause: blocker.title, attempts: 0 };
    } else {
      let attempts = 0;
      let outcome: CheckOutcome;
      for (;;) {
        attempts++;
        outcome = await attempt(check, ctx);
        if (outcome.ok || !check.retry || opts.deadline === undefined || now() + retryDelayMs > opts.deadline) break;
        opts.onRetry?.(check, outcome, attempts);
        await sleep(retryDelayMs);
      }
      result = toResult(check, outcome, attempts);
    }
    results.push(result);
    byId.set(check.id, result);
    if (check.severity === "fatal" && result.status !== "success" && !fatal) fatal = result;
    opts.onResult?.(result);
  }
  return { success: results.every((r) => r.status !== "error"), results };
}

/** A check that throws failed: its error (one line, redacted) is the message. */
async function attempt<C>(check: Check<C>, ctx: C): Promise<CheckOutcome> {
  try {
    return await check.run(ctx);
  } catch (err) {
    return { ok: false, message: formatError(err) };
  }
}

function base<C>(check: Check<C>): Pick<CheckResult, "id" | "title" | "severity" | "details"> {
  return { id: check.id, title: check.title, severity: check.severity, details: [] };
}

function toResult<C>(check: Check<C>, outcome: CheckOutcome, attempts: number): CheckResult {
  const status = outcome.ok ? "success" : check.severity === "warning" ? "warning" : "error";
  return {
    ...base(check),
    status,
    ...(outcome.message !== undefined && { message: outcome.message }),
    details: outcome.details ?? [],
    ...(status !== "success" && { hint: check.hint }),
    attempts,
  };
}
