// The gateway liveness state machine: (state, probe outcome) → (state, transition). Pure: no clock, no I/O.

// Linkerd's (docs/linkerd-compatibility.md#prober), with two deliberate fixes (docs/decisions.md#d57):
// - The prober starts *alive*, as the controller does (linkerd/linkerd2#8590: no fail-fast before the
//   first probe). Linkerd's worker starts not-alive while its watcher starts alive, so a gateway
//   that is dead from the start is never reported dead there; here it is, after the threshold.
// - `consecutiveFailures` keeps counting past the threshold (Linkerd does too) and resets on
//   the first success; one success flips a dead gateway back to alive.
// And one addition, opt-in (`--fast-failure-detection`, docs/decisions.md#d62, #d121, #d153): a failed
// probe is confirmed by re-probes at period/10 (`nextRoundDelayMs`), so the threshold is reached
// in about period + (threshold − 1) × period/10 rather than threshold × period; and a probe left
// unanswered for period/30 is a failed one (`probeDeadlineMs`), so a hung gateway is no slower.

/** Why a probe failed. A round over several targets fails when any target fails. */
export type ProbeFailure =
  | { kind: "status"; status: number }
  | { kind: "timeout"; timeoutMs: number }
  | { kind: "transport"; message: string }
  | { kind: "no-targets" };

/** One probe round's outcome, at clock time `at` (epoch ms). */
export type ProbeOutcome = { ok: true; at: number; latencyMs: number } | { ok: false; at: number; failure: ProbeFailure };

export interface LivenessState {
  alive: boolean;
  consecutiveFailures: number;
  /** Probe rounds seen so far. */
  probes: number;
  /** Epoch ms of the last probe; undefined before the first. */
  lastProbeAt?: number;
  /**
   * Epoch ms when `alive` last changed, or when the first probe established it (as a
   * Kubernetes condition's lastTransitionTime); undefined before the first probe.
   */
  lastTransitionAt?: number;
}

export type Transition = "became-dead" | "became-alive";

export interface LivenessStep {
  state: LivenessState;
  /** Set only when `alive` flipped: the controller hears exactly these. */
  transition?: Transition;
}

/** Before any probe: assumed alive, like the controller's endpoints. */
export function initialLiveness(): LivenessState {
  return { alive: true, consecutiveFailures: 0, probes: 0 };
}

/**
 * The next state after one probe round. Below `failureThreshold` consecutive failures nothing
 * changes but the count; at the threshold an alive gateway becomes dead; one success makes a
 * dead gateway alive again. A timeout is a failure like any other.
 */
export function nextLiveness(state: LivenessState, outcome: ProbeOutcome, failureThreshold: number): LivenessStep {
  const threshold = Math.max(1, Math.floor(failureThreshold));
  const first = state.probes === 0;
  const consecutiveFailures = outcome.ok ? 0 : state.consecutiveFailures + 1;
  const alive = outcome.ok ? true : state.alive && consecutiveFailures < threshold;
  const flipped = alive !== state.alive;
  // The first probe always sets it, so after one probe it is always defined.
  const lastTransitionAt = flipped || first ? outcome.at : state.lastTransitionAt;
  const next: LivenessState = { alive, consecutiveFailures, probes: state.probes + 1, lastProbeAt: outcome.at };
  if (lastTransitionAt !== undefined) next.lastTransitionAt = lastTransitionAt;
  return flipped ? { state: next, transition: alive ? "became-alive" : "became-dead" } : { state: next };
}

/** When rounds run: the Link's probeSpec, and whether failures are confirmed fast (`--fast-failure-detection`). */
export interface ProbeSchedule {
  periodMs: number;
  failureThreshold: number;
  fastFailureDetection: boolean;
}

/**
 * Is the prober confirming a failure? With fast failure detection, an alive gateway whose last
 * probe failed, short of the threshold, is probed again at period/10 until the threshold decides
 * it (dead) or a success ends it; otherwise, and always while healthy or dead, once a period.
 */
export function isConfirming(state: LivenessState, s: ProbeSchedule): boolean {
  return (
    s.fastFailureDetection &&
    state.alive &&
    state.consecutiveFailures > 0 &&
    state.consecutiveFailures < Math.max(1, Math.floor(s.failureThreshold))
  );
}

/**
 * How long after a round started the next one starts: a period plus `jitter` (in [0, period/10),
 * as Linkerd), or period/10 without jitter while confirming a failure.
 */
export function nextRoundDelayMs(state: LivenessState, s: ProbeSchedule, jitter: number): number {
  return isConfirming(state, s) ? s.periodMs / 10 : s.periodMs + jitter;
}

/**
 * How long one probe may go unanswered before it counts as failed. Without fast failure detection
 * the Link's timeout (Linkerd's: a hung gateway costs threshold × timeout). With it, once the
 * gateway has answered in the last minute: period/30, or twice its slowest recent answer (p99)
 * when it is that slow — a slow gateway is not a hung one — never more than the timeout. With no
 * answer to go by (`slowestRecentMs` undefined), the timeout. period/30 is what fits: the verdict
 * comes at most period + jitter + (threshold − 1) × period/10 + this after the last answer,
 * < 3000 + 300 + 600 + 100 = 4000 ms at Linkerd's 3 s × 3 (docs/decisions.md#d153).
 */
export function probeDeadlineMs(s: ProbeSchedule, timeoutMs: number, slowestRecentMs: number | undefined): number {
  if (!s.fastFailureDetection || slowestRecentMs === undefined) return timeoutMs;
  return Math.min(timeoutMs, Math.max(s.periodMs / 30, 2 * slowestRecentMs));
}

/** `HTTP 500`, `timeout after 1000ms`, `connection refused`: for logs and errors. */
export function describeFailure(f: ProbeFailure): string {
  switch (f.kind) {
    case "status":
      return `HTTP ${f.status}`;
    case "timeout":
      return `no answer within ${f.timeoutMs}ms`;
    case "transport":
      return f.message;
    case "no-targets":
      return "no address to probe";
  }
}
