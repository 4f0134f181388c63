// LeaderElector: leader election on a coordination.k8s.io/v1 Lease so several replicas can run and only one writes. Defaults are Linkerd's
// service mirror's (client-go's): lease 30 s, renew deadline 10 s, retry 2 s. A leader that cannot renew within the deadline stops leading
// (and then tries to acquire again); stop() releases the lease so a successor takes over at once.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { formatError } from "../errors.ts";
import { logger, type Logger } from "../log.ts";
import type { KubeClient } from "./client.ts";
import { sleep, systemClock, type Clock } from "../runtime/clock.ts";
import { isConflict, isNotFound } from "./kube-error.ts";
import { decideLease, observe, releasedSpec, type LeaseSpec, type Observation } from "./lease-record.ts";
import { resources } from "./resources.ts";
import type { KubeObject } from "./types.ts";

export interface LeaseObject extends KubeObject {
  spec?: LeaseSpec;
}

export interface LeaderElectorOptions {
  client: KubeClient;
  namespace: string;
  /** Lease name, e.g. `service-mirror-write-east`. */
  name: string;
  /** `--identity`; default: HOSTNAME, else the host name. */
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  clock?: Clock;
  log?: Logger;
  onStartedLeading?: () => void;
  onStoppedLeading?: () => void;
  /** Told when the observed holder changes (including to us, and to "" when released). */
  onNewLeader?: (identity: string) => void;
  /** Told after every acquire or renew attempt (for metrics and tests). */
  onAttempt?: (result: { leading: boolean; holder: string }) => void;
}

export const LEASE_DEFAULTS = { leaseDurationMs: 30_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 } as const;

/** Chosen once per process, so two processes on one host (or in one pod) never share an identity. */
const PROCESS_SUFFIX = randomBytes(4).toString("hex");

/**
 * The identity an elector uses when none is given: $HOSTNAME (the pod name), else the host name,
 * plus a random suffix per process (as client-go's examples do), so two `mc serve` on one host do
 * not both believe they hold the Lease.
 */
export function defaultIdentity(env: Record<string, string | undefined> = process.env, suffix = PROCESS_SUFFIX): string {
  return `${env.HOSTNAME || hostname()}_${suffix}`;
}

export class LeaderElector {
  readonly identity: string;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly stopSignal = new AbortController();
  private observed: Observation | undefined;
  private leading = false;
  private loop: Promise<void> | undefined;
  private failureStreak = 0;

  constructor(private readonly opts: LeaderElectorOptions) {
    this.identity = opts.identity || defaultIdentity();
    this.leaseDurationMs = opts.leaseDurationMs ?? LEASE_DEFAULTS.leaseDurationMs;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? LEASE_DEFAULTS.renewDeadlineMs;
    this.retryPeriodMs = opts.retryPeriodMs ?? LEASE_DEFAULTS.retryPeriodMs;
    if (!(this.leaseDurationMs > this.renewDeadlineMs && this.renewDeadlineMs > this.retryPeriodMs)) {
      throw new Error("lease: need leaseDuration > renewDeadline > retryPeriod");
    }
    this.clock = opts.clock ?? systemClock;
    this.log = opts.log ?? logger(`lease:${opts.client.cluster}`);
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** The holder last seen on the lease ("" when free). */
  get leader(): string {
    return this.observed?.holder ?? "";
  }

  private get where(): string {
    return `lease ${this.opts.namespace}/${this.opts.name} on ${this.opts.client.cluster}`;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops campaigning; by default releases the lease when leading. `release: false` acts like a crash. */
  async stop(opts: { release?: boolean } = {}): Promise<void> {
    this.stopSignal.abort();
    await this.loop;
    if (!this.leading) return;
    if (opts.release !== false) await this.release();
    this.setLeading(false);
  }

  private async run(): Promise<void> {
    const signal = this.stopSignal.signal;
    let lastRenew = 0;
    while (!signal.aborted) {
      if (!this.leading) {
        if (await this.tryAcquireOrRenew()) {
          lastRenew = this.clock.now();
          this.setLeading(true);
          continue;
        }
        // client-go's JitterFactor 1.2: candidates do not retry in lockstep.
        await sleep(this.clock, this.retryPeriodMs * (1 + 0.2 * Math.random()), signal);
        continue;
      }
      await sleep(this.clock, this.retryPeriodMs, signal);
      if (signal.aborted) break;
      if (await this.tryAcquireOrRenew()) {
        lastRenew = this.clock.now();
      } else if (this.leader !== "" && this.leader !== this.identity) {
        this.log.warn(`${this.where}: taken over by ${this.leader}; stopped leading`);
        this.setLeading(false);
      } else if (this.clock.now() - lastRenew >= this.renewDeadlineMs) {
        this.log.warn(`${this.where}: not renewed within ${this.renewDeadlineMs}ms; stopped leading`);
        this.setLeading(false);
      }
    }
  }

  private setLeading(leading: boolean): void {
    if (this.leading === leading) return;
    this.leading = leading;
    if (leading) this.log.info(`${this.where}: leading as ${this.identity}`);
    try {
      (leading ? this.opts.onStartedLeading : this.opts.onStoppedLeading)?.();
    } catch (err) {
      this.log.error(`${this.where}: leadership callback failed: ${formatError(err)}`);
    }
  }

  /** One attempt; true when we hold the lease afterwards. Errors are "not this time". */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const { client, namespace, name } = this.opts;
    const call = { timeoutMs: this.renewDeadlineMs, signal: this.stopSignal.signal };
    let ok = false;
    try {
      let lease: LeaseObject | undefined;
      try {
        lease = await client.get<LeaseObject>(resources.lease, namespace, name, call);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      const now = this.clock.now();
      this.noteHolder(lease?.spec, now);
      const decision = decideLease(lease?.spec, this.observed!, now, this.identity, this.leaseDurationMs);
      let written: LeaseObject;
      if (decision.action === "create") {
        written = await client.create<LeaseObject>(
          resources.lease,
          { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name, namespace }, spec: decision.spec },
          call,
        );
      } else if (decision.action === "update" && lease) {
        written = await client.update<LeaseObject>(resources.lease, { ...lease, spec: decision.spec }, call);
      } else {
        return false;
      }
      this.noteHolder(written.spec, this.clock.now());
      if (this.failureStreak > 0) this.log.info(`${this.where}: lease requests succeed again`);
      this.failureStreak = 0;
      ok = true;
      return true;
    } catch (err) {
      if (!this.stopSignal.signal.aborted) this.noteFailure(err);
      return false;
    } finally {
      this.opts.onAttempt?.({ leading: ok, holder: this.leader });
    }
  }

  /**
   * A failed attempt: the first of a streak at warn (a controller that cannot take its Lease looks
   * idle otherwise), repeats at debug. Losing a race to another replica (409) is routine: debug.
   */
  private noteFailure(err: unknown): void {
    if (isConflict(err)) {
      this.log.debug(`${this.where}: attempt lost a race: ${formatError(err)}`);
      return;
    }
    this.failureStreak++;
    const line = `${this.where}: cannot take or renew the lease: ${formatError(err)}`;
    if (this.failureStreak === 1) this.log.warn(`${line}; retrying every ${this.retryPeriodMs}ms`);
    else this.log.debug(line);
  }

  private noteHolder(spec: LeaseSpec | undefined, now: number): void {
    const before = this.observed?.holder;
    this.observed = observe(this.observed, spec, now);
    if (this.observed.holder !== before) {
      if (this.observed.holder && this.observed.holder !== this.identity) this.log.info(`${this.where}: held by ${this.observed.holder}`);
      this.opts.onNewLeader?.(this.observed.holder);
    }
  }

  /**
   * Steps down: re-reads the lease (a renew cut short by stop() may have landed) and, while it is
   * still ours, writes it back with no holder. A conflict means it changed under us: read again.
   */
  private async release(): Promise<void> {
    const { client, namespace, name } = this.opts;
    const call = { timeoutMs: this.renewDeadlineMs };
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        const lease = await client.get<LeaseObject>(resources.lease, namespace, name, call);
        if (!lease.spec || lease.spec.holderIdentity !== this.identity) return;
        await client.update(resources.lease, { ...lease, spec: releasedSpec(lease.spec, this.clock.now()) }, call);
        this.log.info(`${this.where}: released`);
        return;
      } catch (err) {
        if (isConflict(err) && attempt < 3) continue;
        if (isNotFound(err)) return;
        this.log.warn(`${this.where}: release failed: ${formatError(err)}`);
        return;
      }
    }
  }
}
