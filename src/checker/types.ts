// `mc check` as data: each check is `{ id, title, hint, severity, run }`; the runner runs them
// in order and turns each outcome into a CheckResult that the renderers print. Pure types.

/**
 * fatal: when it fails, every later check is skipped (nothing after it could mean anything).
 * error: a failure makes `mc check` exit 1. warning: printed as ‼, exit code stays 0.
 */
export type Severity = "fatal" | "error" | "warning";

/** What a check's `run` returns. */
export interface CheckOutcome {
  ok: boolean;
  /** One line: what is wrong (on failure), or a note (on success). */
  message?: string;
  /** Lines below it: one per link or object (`east: …`). */
  details?: string[];
}

export interface Check<C> {
  /** Stable machine name, e.g. `remote-access`: JSON output, `needs` and tests use it. */
  id: string;
  /** The line Linkerd prints, e.g. `Link CRD exists`. */
  title: string;
  /** The section of docs/checks.md that explains it (Linkerd's anchor where one exists). */
  hint: string;
  severity: Severity;
  /** `--wait` re-runs it while it fails (states that converge: controller start, probes, sync). */
  retry?: boolean;
  /** Ids of earlier checks whose results it builds on; if one did not pass, this one is skipped. */
  needs?: readonly string[];
  run(ctx: C): Promise<CheckOutcome>;
}

/** success √ · error × · warning ‼ · skipped (could not run, and says why). */
type CheckStatus = "success" | "error" | "warning" | "skipped";

export interface CheckResult {
  id: string;
  title: string;
  severity: Severity;
  status: CheckStatus;
  message?: string;
  details: string[];
  /** The hint anchor (rendered as a link to docs/checks.md); set on error and warning. */
  hint?: string;
  /** Set on skipped: the title of the check that had to pass first. */
  skippedBecause?: string;
  /** How many times it ran (more than 1 only with --wait). */
  attempts: number;
}

export interface CheckReport {
  /** False when any check ended as an error (warnings and skips alone do not fail). */
  success: boolean;
  results: CheckResult[];
}
