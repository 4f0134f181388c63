// The gateway liveness state machine and when the next probe round runs.
import { describe, expect, test } from "bun:test";
import {
  describeFailure,
  initialLiveness,
  nextLiveness,
  nextRoundDelayMs,
  type LivenessState,
  type ProbeOutcome,
} from "../../src/prober/state.ts";

// A sequence is a string of probe results: "+" = HTTP 200, "-" = HTTP 500, "t" = timeout.
// Each run reports, per probe, the transition ("dead", "alive" or "."), and the final state.
function run(sequence: string, threshold: number, from: LivenessState = initialLiveness()) {
  let state = from;
  const transitions: string[] = [];
  [...sequence].forEach((c, i) => {
    const at = 1000 * (i + 1);
    const outcome: ProbeOutcome =
      c === "+"
        ? { ok: true, at, latencyMs: 5 }
        : c === "t"
          ? { ok: false, at, failure: { kind: "timeout", timeoutMs: 1000 } }
          : { ok: false, at, failure: { kind: "status", status: 500 } };
    const step = nextLiveness(state, outcome, threshold);
    state = step.state;
    transitions.push(step.transition === "became-dead" ? "dead" : step.transition === "became-alive" ? "alive" : ".");
  });
  return { transitions: transitions.join(" "), state };
}

describe("gateway liveness state machine", () => {
  const cases: Array<{ name: string; seq: string; threshold: number; transitions: string; alive: boolean; failures: number }> = [
    {
      name: "a first successful probe changes nothing: the gateway was assumed alive",
      seq: "+",
      threshold: 3,
      transitions: ".",
      alive: true,
      failures: 0,
    },
    {
      name: "a first failed probe below the threshold changes nothing",
      seq: "-",
      threshold: 3,
      transitions: ".",
      alive: true,
      failures: 1,
    },
    {
      name: "a gateway dead from the start is reported dead at the threshold",
      seq: "---",
      threshold: 3,
      transitions: ". . dead",
      alive: false,
      failures: 3,
    },
    { name: "threshold 1: the first failure flips to dead", seq: "-", threshold: 1, transitions: "dead", alive: false, failures: 1 },
    {
      name: "failures below the threshold reset on a success",
      seq: "--+--+",
      threshold: 3,
      transitions: ". . . . . .",
      alive: true,
      failures: 0,
    },
    {
      name: "the threshold counts consecutive failures only",
      seq: "+--+---",
      threshold: 3,
      transitions: ". . . . . . dead",
      alive: false,
      failures: 3,
    },
    {
      name: "failures past the threshold keep counting and report nothing more",
      seq: "-----",
      threshold: 3,
      transitions: ". . dead . .",
      alive: false,
      failures: 5,
    },
    {
      name: "one success flips a dead gateway back to alive",
      seq: "---+",
      threshold: 3,
      transitions: ". . dead alive",
      alive: true,
      failures: 0,
    },
    {
      name: "flapping: every flip is one transition, in order",
      seq: "--+--+--",
      threshold: 2,
      transitions: ". dead alive . dead alive . dead",
      alive: false,
      failures: 2,
    },
    { name: "a timeout is a failure like any other", seq: "+tt-", threshold: 3, transitions: ". . . dead", alive: false, failures: 3 },
    { name: "timeouts alone reach the threshold", seq: "ttt+", threshold: 3, transitions: ". . dead alive", alive: true, failures: 0 },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const { transitions, state } = run(c.seq, c.threshold);
      expect(transitions).toBe(c.transitions);
      expect(state.alive).toBe(c.alive);
      expect(state.consecutiveFailures).toBe(c.failures);
      expect(state.probes).toBe(c.seq.length);
    });
  }

  test("lastProbeAt follows every probe; lastTransitionAt is set by the first probe and by flips only", () => {
    const steps: Array<[number | undefined, number | undefined]> = [];
    let state = initialLiveness();
    expect(state.lastProbeAt).toBeUndefined();
    expect(state.lastTransitionAt).toBeUndefined();
    for (const [i, ok] of [true, false, false, true, true].entries()) {
      const at = 1000 * (i + 1);
      state = nextLiveness(state, ok ? { ok, at, latencyMs: 1 } : { ok, at, failure: { kind: "status", status: 503 } }, 2).state;
      steps.push([state.lastProbeAt, state.lastTransitionAt]);
    }
    expect(steps).toEqual([
      [1000, 1000], // first probe establishes alive
      [2000, 1000],
      [3000, 3000], // became dead
      [4000, 4000], // became alive
      [5000, 4000],
    ]);
  });

  test("a threshold below 1 behaves as 1", () => {
    expect(run("-", 0).transitions).toBe("dead");
  });

  test("the input state is not modified", () => {
    const state = initialLiveness();
    const copy = structuredClone(state);
    nextLiveness(state, { ok: false, at: 1, failure: { kind: "status", status: 500 } }, 1);
    expect(state).toEqual(copy);
  });

  test("failures read as one short phrase", () => {
    expect(describeFailure({ kind: "status", status: 500 })).toBe("HTTP 500");
    expect(describeFailure({ kind: "timeout", timeoutMs: 250 })).toBe("no answer within 250ms");
    expect(describeFailure({ kind: "transport", message: "connection refused" })).toBe("connection refused");
    expect(describeFailure({ kind: "no-targets" })).toBe("no address to probe");
  });
});

describe("the next round", () => {
  const fast = { periodMs: 3000, failureThreshold: 3, fastFailureDetection: true };
  /** The delays after each probe of `sequence` (jitter 100 ms). */
  const delays = (sequence: string, s = fast) => {
    let state = initialLiveness();
    return [...sequence].map((c, i) => {
      state = nextLiveness(
        state,
        c === "+" ? { ok: true, at: i, latencyMs: 1 } : { ok: false, at: i, failure: { kind: "status", status: 500 } },
        s.failureThreshold,
      ).state;
      return nextRoundDelayMs(state, s, 100);
    });
  };
  const cases: Array<[string, string, typeof fast, number[]]> = [
    ["healthy: a period plus jitter", "+++", fast, [3100, 3100, 3100]],
    ["a failure is confirmed at period/10 until the threshold, then a period again", "----", fast, [300, 300, 3100, 3100]],
    ["a success ends the confirmation", "+-+", fast, [3100, 300, 3100]],
    ["without the flag failures wait a period", "---", { ...fast, fastFailureDetection: false }, [3100, 3100, 3100]],
    ["threshold 1: nothing to confirm", "--", { ...fast, failureThreshold: 1 }, [3100, 3100]],
  ];
  for (const [name, sequence, s, want] of cases) test(name, () => expect(delays(sequence, s)).toEqual(want));
});
