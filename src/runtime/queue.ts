// The keyed work queue every controller uses (client-go's workqueue semantics): it holds keys,
// never objects; a key queued twice runs once; a key is never run by two workers at once (an add
// while it runs re-runs it after); retryable failures come back after a per-key exponential
// backoff, up to a requeue limit; `drain()` lets tests assert once everything has settled.
// It knows no API: an error says whether it is worth a retry, and how soon, through the
// `RetryHint` fields (the kube layer's KubeError has them).
import { formatError } from "../errors.ts";
import { logger, type Logger } from "../log.ts";
import { backoffDelay, type BackoffOptions } from "./backoff.ts";
import { systemClock, type Clock } from "./clock.ts";

export type Reconcile<K extends string> = (key: K) => Promise<void> | void;

export interface WorkQueueOptions<K extends string> {
  /** Keys processed at once (each key still one at a time). Default 1. */
  workers?: number;
  /** Retries after the first failure before a key is dropped. Default 3 (Linkerd's -event-requeue-limit). */
  requeueLimit?: number;
  /** Per-key retry delays. Default 50 ms doubling to 30 s, 10% jitter. */
  backoff?: Partial<BackoffOptions>;
  clock?: Clock;
  /** Which failures are worth a retry. Default: an error's `isRetryable` (a RetryHint); any other error is retried too (bounded by the limit). */
  isRetryable?: (err: unknown) => boolean;
  /** Told when a key is dropped: a terminal error, or the requeue limit reached. */
  onGiveUp?: (key: K, err: unknown, attempts: number) => void;
  log?: Logger;
}

/** What an error may say about retrying it (KubeError does): whether to, and the server's Retry-After. */
export interface RetryHint {
  readonly isRetryable: boolean;
  readonly retryAfterMs?: number | undefined;
}

function hintOf(err: unknown): RetryHint | undefined {
  return typeof err === "object" && err !== null && typeof (err as Partial<RetryHint>).isRetryable === "boolean" ? (err as RetryHint) : undefined;
}

const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 50, maxMs: 30_000, jitter: 0.1 };

export class WorkQueue<K extends string = string> {
  private readonly queue: K[] = [];
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly delayed = new Map<K, { at: number; cancel: () => void }>();
  private readonly failures = new Map<K, number>();
  private readonly idleWaiters: Array<() => void> = [];
  private readonly workers: number;
  private readonly requeueLimit: number;
  private readonly backoff: BackoffOptions;
  private readonly clock: Clock;
  private readonly log: Logger;
  private running = false;
  private draining = 0;
  private stopped = false;

  constructor(
    private readonly reconcile: Reconcile<K>,
    private readonly opts: WorkQueueOptions<K> = {},
  ) {
    this.workers = Math.max(1, opts.workers ?? 1);
    this.requeueLimit = Math.max(0, opts.requeueLimit ?? 3);
    this.backoff = { ...DEFAULT_BACKOFF, ...opts.backoff };
    this.clock = opts.clock ?? systemClock;
    this.log = opts.log ?? logger("queue");
  }

  /** Queues a key; a no-op when it is already queued. */
  add(key: K): void {
    if (this.stopped || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (!this.processing.has(key)) this.queue.push(key);
    this.pump();
  }

  /** Queues a key after `ms`; an earlier pending deadline for the same key wins. */
  addAfter(key: K, ms: number): void {
    if (this.stopped) return;
    if (ms <= 0) return this.add(key);
    const at = this.clock.now() + ms;
    const existing = this.delayed.get(key);
    if (existing && existing.at <= at) return;
    existing?.cancel();
    const cancel = this.clock.setTimer(ms, () => {
      this.delayed.delete(key);
      this.add(key);
      this.checkIdle();
    });
    this.delayed.set(key, { at, cancel });
  }

  /** Starts the workers; they run until `stop()`. */
  start(): void {
    if (this.stopped) return;
    this.running = true;
    this.pump();
  }

  /** Drops queued and delayed keys and waits for keys being processed. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.running = false;
    this.queue.length = 0;
    this.dirty.clear();
    for (const d of this.delayed.values()) d.cancel();
    this.delayed.clear();
    await this.whenIdle();
  }

  /** Processes (or, when started, waits for) every key, including delayed retries, until nothing is left. */
  async drain(): Promise<void> {
    this.draining++;
    try {
      this.pump();
      await this.whenIdle();
    } finally {
      this.draining--;
    }
  }

  /** Runs one ready key, if there is one; false when none was ready. For stepping in tests. */
  async processNext(): Promise<boolean> {
    const key = this.take();
    if (key === undefined) return false;
    await this.run(key);
    return true;
  }

  /** Keys ready to run. */
  get length(): number {
    return this.queue.length;
  }

  /** Keys waiting for a retry or an `addAfter`. */
  get delayedCount(): number {
    return this.delayed.size;
  }

  /** Failures so far of a key still being retried. */
  attempts(key: K): number {
    return this.failures.get(key) ?? 0;
  }

  get isIdle(): boolean {
    return this.queue.length === 0 && this.processing.size === 0 && this.delayed.size === 0;
  }

  private pump(): void {
    if (!this.running && this.draining === 0) return;
    while (this.processing.size < this.workers) {
      const key = this.take();
      if (key === undefined) break;
      void this.run(key);
    }
  }

  private take(): K | undefined {
    const key = this.queue.shift();
    if (key === undefined) return undefined;
    this.dirty.delete(key);
    this.processing.add(key);
    return key;
  }

  private async run(key: K): Promise<void> {
    try {
      await this.reconcile(key);
      this.failures.delete(key);
    } catch (err) {
      this.handleFailure(key, err);
    } finally {
      this.processing.delete(key);
      if (this.dirty.has(key)) this.queue.push(key);
      this.pump();
      this.checkIdle();
    }
  }

  private handleFailure(key: K, err: unknown): void {
    const attempts = (this.failures.get(key) ?? 0) + 1;
    const retryable = this.opts.isRetryable ? this.opts.isRetryable(err) : defaultIsRetryable(err);
    if (retryable && attempts <= this.requeueLimit && !this.stopped) {
      this.failures.set(key, attempts);
      const hinted = hintOf(err)?.retryAfterMs ?? 0;
      const delay = Math.max(hinted, backoffDelay(attempts, this.backoff));
      this.log.debug(`${key}: ${formatError(err)}; retry ${attempts}/${this.requeueLimit} in ${delay}ms`);
      this.addAfter(key, delay);
      return;
    }
    this.failures.delete(key);
    const why = retryable ? `giving up after ${attempts} attempts` : "not retried";
    this.log.warn(`${key}: ${formatError(err)} (${why})`);
    this.opts.onGiveUp?.(key, err, attempts);
  }

  private whenIdle(): Promise<void> {
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
      this.checkIdle();
    });
  }

  private checkIdle(): void {
    if (!this.isIdle) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}

function defaultIsRetryable(err: unknown): boolean {
  return hintOf(err)?.isRetryable ?? true;
}
