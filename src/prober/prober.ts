// The gateway prober of one Link: probes every period, feeds the state machine, and reports liveness and status.gateway.
import { formatError } from "../errors.ts";
import { systemClock, type Clock } from "../runtime/clock.ts";
import { formatDuration } from "../model/duration.ts";
import { addLatency, latencyPercentiles, type LatencyWindow } from "./latency.ts";
import { combineRound, probeTarget, probeUrl, type FetchLike, type TargetResult } from "./probe.ts";
import {
  describeFailure,
  initialLiveness,
  isConfirming,
  nextLiveness,
  nextRoundDelayMs,
  probeDeadlineMs,
  type LivenessState,
  type ProbeOutcome,
  type ProbeSchedule,
  type Transition,
} from "./state.ts";
import { decideStatusWrite, DEFAULT_STATUS_INTERVAL_MS, gatewayStatus, type WrittenStatus } from "./status.ts";
import type { GatewayHealth, GatewayProber, ProberOptions } from "./types.ts";

// The gateway prober of one Link: every `probeSpec.period` (+ uniform jitter in [0, period/10),
// the first round one period + jitter after start, as Linkerd) it probes every target of
// `targets()`, feeds the round's outcome to the pure state machine, updates Linkerd's gateway
// metrics, tells the controller about liveness *changes* only, and writes status.gateway on the
// Link (at once on a liveness change, otherwise at most every status interval). With
// `fastFailureDetection` a failed probe is confirmed by re-probes at period/10 until the
// failure threshold decides (state.ts's nextRoundDelayMs), and a probe unanswered for period/30
// (or twice the gateway's p99) is a failed one (probeDeadlineMs); healthy, it probes as Linkerd.
// The clock, timers, randomness, timeout signal and `fetch` are injected so tests run in milliseconds.

export interface ProberDeps {
  clock?: Clock;
  /** Monotonic ms for latencies; default performance.now(), or clock.now() when a clock is given. */
  elapsed?: () => number;
  fetch?: FetchLike;
  /** [0, 1), for the jitter; default Math.random. */
  random?: () => number;
  /** Default AbortSignal.timeout. */
  timeoutSignal?: (ms: number) => AbortSignal;
  /** `--status-interval`: the fastest a steady status.gateway is rewritten; default 10 s. */
  statusIntervalMs?: number;
  /** `--fast-failure-detection`: confirm a failed probe at period/10 (default off: Linkerd's schedule). */
  fastFailureDetection?: boolean;
}

/** What one round did, for tests and diagnostics. */
export interface RoundReport {
  targets: TargetResult[];
  outcome: ProbeOutcome;
  state: LivenessState;
  transition?: Transition;
}

/** A ProberFactory with its dependencies bound (serve passes `--status-interval` here). */
export function proberFactory(deps: ProberDeps = {}): (opts: ProberOptions) => Prober {
  return (opts) => new Prober(opts, deps);
}

export class Prober implements GatewayProber {
  private readonly clock: Clock;
  private readonly elapsed: () => number;
  private readonly fetch: FetchLike;
  private readonly random: () => number;
  private readonly timeoutSignal: (ms: number) => AbortSignal;
  private readonly statusIntervalMs: number;
  private readonly cluster: string;
  private readonly labels: { target_cluster_name: string };
  private readonly spec: NonNullable<ProberOptions["link"]["probe"]>;
  private readonly timing: ProbeSchedule;

  private state = initialLiveness();
  private window: LatencyWindow = [];
  private started = false;
  private stopped: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private cancelRound: (() => void) | undefined;
  private cancelStatus: (() => void) | undefined;
  private round: Promise<void> | undefined;
  private writing: Promise<void> | undefined;
  private writeAgain = false;
  private writeFailing = false;
  private lastWritten: WrittenStatus | undefined;
  private readonly targetOk = new Map<string, boolean>();
  private readonly listeners = new Set<(r: RoundReport) => void>();

  constructor(
    private readonly opts: ProberOptions,
    deps: ProberDeps = {},
  ) {
    const { link } = opts;
    if (!link.probe) throw new Error(`Link ${link.namespace}/${link.name} has no probeSpec: the controller starts no prober for it`);
    this.spec = link.probe;
    this.cluster = link.targetClusterName;
    this.labels = { target_cluster_name: this.cluster };
    this.clock = deps.clock ?? systemClock;
    const clock = deps.clock;
    this.elapsed = deps.elapsed ?? (clock ? () => clock.now() : () => performance.now());
    this.fetch = deps.fetch ?? ((url, init) => fetch(url, init));
    this.random = deps.random ?? Math.random;
    this.timeoutSignal = deps.timeoutSignal ?? ((ms) => AbortSignal.timeout(ms));
    this.statusIntervalMs = deps.statusIntervalMs ?? DEFAULT_STATUS_INTERVAL_MS;
    this.timing = {
      periodMs: this.spec.periodMs,
      failureThreshold: this.spec.failureThreshold,
      fastFailureDetection: deps.fastFailureDetection ?? false,
    };
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.opts.metrics.gatewayEnabled.set(this.labels, 1);
    const s = this.spec;
    this.opts.log.info(
      `probing gateway ${this.cluster} at ${s.path} every ${formatDuration(s.periodMs)} ` +
        `(timeout ${formatDuration(s.timeoutMs)}, dead after ${s.failureThreshold} failed probes` +
        `${this.timing.fastFailureDetection ? `, confirmed every ${formatDuration(s.periodMs / 10)}, unanswered for ${formatDuration(Math.round(Math.min(s.timeoutMs, s.periodMs / 30)))} counts as failed once it has answered` : ""})`,
    );
    this.schedule(this.clock.now());
  }

  /** Stops probing, waits for an in-flight round and status write, removes the gateway series. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.cancelRound?.();
      this.cancelStatus?.();
      this.abort.abort();
      await Promise.allSettled([this.round, this.writing]);
      const m = this.opts.metrics;
      for (const g of [m.gatewayAlive, m.gatewayEnabled, m.gatewayLatency]) g.remove(this.labels);
      m.gatewayProbeLatency.remove(this.labels);
      for (const ok of ["true", "false"]) m.gatewayProbes.remove({ ...this.labels, probe_successful: ok });
      if (this.started) this.opts.log.info(`stopped probing gateway ${this.cluster}`);
    })();
    return this.stopped;
  }

  health(): GatewayHealth {
    const s = this.state;
    const health: GatewayHealth = { alive: s.alive, consecutiveFailures: s.consecutiveFailures };
    if (s.lastProbeAt !== undefined) health.lastProbeTime = new Date(s.lastProbeAt).toISOString();
    if (s.lastTransitionAt !== undefined) health.lastTransitionTime = new Date(s.lastTransitionAt).toISOString();
    const latency = latencyPercentiles(this.window, this.clock.now());
    if (latency) health.latencyMs = latency;
    return health;
  }

  /** Hears every finished round (tests, diagnostics); returns the unsubscribe function. */
  onRound(listener: (r: RoundReport) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once no round and no status write is in flight. */
  async idle(): Promise<void> {
    while (this.round || this.writing) await Promise.allSettled([this.round, this.writing]);
  }

  private schedule(roundStartedAt: number): void {
    if (this.stopped) return;
    const jitter = this.random() * (this.spec.periodMs / 10);
    const delay = Math.max(0, roundStartedAt + nextRoundDelayMs(this.state, this.timing, jitter) - this.clock.now());
    this.cancelRound?.();
    this.cancelRound = this.clock.setTimer(delay, () => {
      this.cancelRound = undefined;
      this.round = this.runRound()
        .catch((err: unknown) => {
          this.opts.log.error(`probe round for gateway ${this.cluster} failed: ${formatError(err)}`);
          this.schedule(this.clock.now());
        })
        .finally(() => {
          this.round = undefined;
        });
    });
  }

  private async runRound(): Promise<void> {
    const startedAt = this.clock.now();
    const targets = this.readTargets();
    const timeoutMs = probeDeadlineMs(this.timing, this.spec.timeoutMs, latencyPercentiles(this.window, startedAt)?.p99);
    const results = await Promise.all(
      targets.map((target) =>
        probeTarget({
          fetch: this.fetch,
          target,
          path: this.spec.path,
          timeoutMs,
          stop: this.abort.signal,
          timeoutSignal: this.timeoutSignal,
          elapsed: this.elapsed,
        }),
      ),
    );
    if (this.stopped) return;
    const finished = results.filter((r): r is TargetResult => r !== "aborted");
    const outcome = combineRound(finished, this.clock.now());
    const before = this.state;
    const step = nextLiveness(before, outcome, this.spec.failureThreshold);
    this.state = step.state;
    if (outcome.ok) this.window = addLatency(this.window, { at: outcome.at, ms: outcome.latencyMs });
    this.recordMetrics(outcome);
    this.logRound(finished, outcome, before, step.transition);
    if (step.transition) {
      try {
        this.opts.onLiveness(this.state.alive);
      } catch (err) {
        this.opts.log.error(`liveness handler for gateway ${this.cluster} failed: ${formatError(err)}`);
      }
    }
    const report: RoundReport = { targets: finished, outcome, state: this.state, ...(step.transition && { transition: step.transition }) };
    for (const listener of this.listeners) listener(report);
    this.maybeWriteStatus();
    this.schedule(startedAt);
  }

  private readTargets(): string[] {
    try {
      return [...new Set(this.opts.targets())];
    } catch (err) {
      this.opts.log.warn(`could not list the addresses of gateway ${this.cluster}: ${formatError(err)}`);
      return [];
    }
  }

  private recordMetrics(outcome: ProbeOutcome): void {
    const m = this.opts.metrics;
    m.gatewayProbes.inc({ ...this.labels, probe_successful: String(outcome.ok) });
    m.gatewayAlive.set(this.labels, this.state.alive ? 1 : 0);
    if (outcome.ok) {
      m.gatewayLatency.set(this.labels, outcome.latencyMs);
      m.gatewayProbeLatency.observe(this.labels, outcome.latencyMs);
    }
  }

  /** Per-target results at debug; transitions (of the gateway, and of one address among several) above. */
  private logRound(results: TargetResult[], outcome: ProbeOutcome, before: LivenessState, transition: Transition | undefined): void {
    const { log } = this.opts;
    for (const r of results) {
      const url = probeUrl(r.target, this.spec.path);
      log.debug(
        r.ok ? `${url}: 200 in ${Math.round(r.latencyMs)}ms` : `${url}: ${describeFailure(r.failure!)} after ${Math.round(r.latencyMs)}ms`,
      );
      const was = this.targetOk.get(r.target);
      if (results.length > 1 && was !== undefined && was !== r.ok) {
        log.info(
          r.ok
            ? `gateway ${this.cluster} address ${r.target} answers again`
            : `gateway ${this.cluster} address ${r.target} stopped answering: ${describeFailure(r.failure!)}`,
        );
      }
    }
    this.targetOk.clear();
    for (const r of results) this.targetOk.set(r.target, r.ok);
    const why = results.filter((r) => !r.ok).map((r) => `${r.target}: ${describeFailure(r.failure!)}`);
    const reason = why.length > 0 ? why.join("; ") : outcome.ok ? "" : describeFailure(outcome.failure);
    const n = this.state.consecutiveFailures;
    if (transition === "became-dead") {
      log.warn(`gateway ${this.cluster} became unreachable after ${n} failed probes (${reason})`);
    } else if (transition === "became-alive") {
      log.info(`gateway ${this.cluster} is reachable again after ${before.consecutiveFailures} failed probes`);
    } else if (!outcome.ok && this.state.alive) {
      const confirming = isConfirming(this.state, this.timing) ? `; probing again in ${formatDuration(this.spec.periodMs / 10)}` : "";
      log.info(
        `gateway ${this.cluster} probe failed (${n} of ${this.spec.failureThreshold} before it counts as dead): ${reason}${confirming}`,
      );
    }
  }

  private maybeWriteStatus(): void {
    if (this.stopped) return;
    if (this.writing) {
      this.writeAgain = true;
      return;
    }
    const status = gatewayStatus(this.health());
    if (!status) return;
    const now = this.clock.now();
    const decision = decideStatusWrite(this.lastWritten, status, now, this.statusIntervalMs);
    if (!decision.write) {
      if (decision.reason === "too-soon" && !this.cancelStatus) {
        this.cancelStatus = this.clock.setTimer(decision.dueAt - now, () => {
          this.cancelStatus = undefined;
          this.maybeWriteStatus();
        });
      }
      return;
    }
    this.cancelStatus?.();
    this.cancelStatus = undefined;
    this.writing = new Promise<void>((resolve) => resolve(this.opts.writeStatus(status)))
      .then(
        () => {
          this.lastWritten = { status, at: now };
          if (this.writeFailing) this.opts.log.info(`writing status.gateway of Link ${this.linkName()} works again`);
          this.writeFailing = false;
        },
        (err: unknown) => {
          if (!this.writeFailing)
            this.opts.log.warn(
              `could not write status.gateway of Link ${this.linkName()}: ${formatError(err)}; retrying after the next probe`,
            );
          this.writeFailing = true;
        },
      )
      .finally(() => {
        this.writing = undefined;
        if (this.writeAgain) {
          this.writeAgain = false;
          this.maybeWriteStatus();
        }
      });
  }

  private linkName(): string {
    return `${this.opts.link.namespace}/${this.opts.link.name}`;
  }
}
