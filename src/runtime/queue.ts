// The keyed work queue every controller uses (client-go's workqueue semantics): it holds keys, never objects; a key queued twice runs once;
// a key is never run by two workers at once (an add while it runs re-runs it after); retryable failures come back after a per-key
// exponential backoff, up to a requeue limit; `drain()` lets tests assert once everything has settled.
import { formatError } from "../errors.ts";
import { logger, type Logger } from "../log.ts";
import { backoffDelay, type BackoffOptions } from "./backoff.ts";
import { systemClock, type Clock } from "./clock.ts";

// Three priorities: a `high` key runs before every `normal` one, and a `normal` one before every `low`
// one (a queued key added again higher moves up: a live change of a key the resync queued low
// overtakes the resync), and high keys may run `highWorkers` at once where the others get `workers` —
// so urgent work (a gateway liveness flip) overtakes routine work and fans out, and routine work waits
// until fewer than `workers` keys are in flight. It knows no API: an error says whether it is worth a
// retry, and how soon, through the `RetryHint` fields (the kube layer's KubeError has them).

export type Reconcile<K extends string> = (key: K) => Promise<void> | void;

/** `high` keys run first, and up to `highWorkers` at once; `low` ones (a resync) only when nothing else waits. */
export type Priority = "high" | "normal" | "low";

const RANK: Record<Priority, number> = { high: 2, normal: 1, low: 0 };
/** The higher of two priorities. */
const higher = (a: Priority, b: Priority | undefined): Priority => (b !== undefined && RANK[b] > RANK[a] ? b : a);

export interface WorkQueueOptions<K extends string> {
  /** Keys processed at once (each key still one at a time). Default 1. */
  workers?: number;
  /** Keys processed at once while high-priority keys are waiting; at least `workers`. Default `workers`. */
  highWorkers?: number;
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
  return typeof err === "object" && err !== null && typeof (err as Partial<RetryHint>).isRetryable === "boolean"
    ? (err as RetryHint)
    : undefined;
}

/**
 * A key's retries wait ~500 ms, 1 s, 2 s… (client-go's controllers start at 5 ms, but their keys
 * come back on resync; Linkerd's requeue limit of 3 at 50 ms spent every retry within 350 ms, so
 * a blip of the API server left a mirror stale until the next refresh).
 */
/** The longest run of keys without letting the event loop in. */
const BREATHE_MS = 10;

/**
 * The breath every queue of the process shares: one clock and one macrotask, so that 50 Links' queues let the event loop in every
 * 10 ms of their keys together (each with its own clock, each worker that woke gave itself 10 ms more: L × workers × 10 ms per turn).
 */
const breath: { last: number; next?: Promise<void> } = { last: performance.now() };

/**
 * Lets the event loop in once every BREATHE_MS of keys run back to back, by any queue: a key that writes nothing never waits on I/O,
 * so without it a resync of thousands of right mirrors would run as one long task, and the watch events of a live change (or
 * /metrics) would wait for its end. Undefined while under BREATHE_MS; else the one macrotask every worker waits for.
 */
function breathe(): Promise<void> | undefined {
  if (performance.now() - breath.last < BREATHE_MS) return undefined;
  breath.next ??= new Promise<void>((resolve) =>
    setTimeout(() => {
      breath.next = undefined;
      breath.last = performance.now();
      resolve();
    }, 0),
  );
  return breath.next;
}

const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 30_000, jitter: 0.1 };

export class WorkQueue<K extends string = string> {
  /** Keys ready to run, and at which priority. The arrays below keep their order; an entry whose key is no longer in `ready` at that priority is skipped. */
  private readonly ready = new Map<K, Priority>();
  private readonly order: Record<Priority, Fifo<K>> = { high: new Fifo(), normal: new Fifo(), low: new Fifo() };
  /** Keys being processed, each with the priority of a re-run asked for meanwhile (if any). */
  private readonly processing = new Map<K, { priority: Priority; again?: Priority }>();
  private readonly delayed = new Map<K, { at: number; priority: Priority; cancel: () => void }>();
  private readonly failures = new Map<K, number>();
  private readonly idleWaiters: Array<() => void> = [];
  private readonly workers: number;
  private readonly highWorkers: number;
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
    this.highWorkers = Math.max(this.workers, opts.highWorkers ?? this.workers);
    this.requeueLimit = Math.max(0, opts.requeueLimit ?? 3);
    this.backoff = { ...DEFAULT_BACKOFF, ...opts.backoff };
    this.clock = opts.clock ?? systemClock;
    this.log = opts.log ?? logger("queue");
  }

  /** Queues a key; a no-op when it is already queued at this priority or higher (a lower one is moved up). */
  add(key: K, priority: Priority = "normal"): void {
    if (this.stopped) return;
    const running = this.processing.get(key);
    if (running) {
      running.again = higher(priority, running.again);
      return;
    }
    const queued = this.ready.get(key);
    if (queued !== undefined && RANK[queued] >= RANK[priority]) return;
    this.ready.set(key, priority);
    this.order[priority].push(key);
    this.pump();
  }

  /** Queues a key after `ms`; an earlier pending deadline for the same key wins (at the higher priority of the two). */
  addAfter(key: K, ms: number, priority: Priority = "normal"): void {
    if (this.stopped) return;
    if (ms <= 0) {
      this.add(key, priority);
      return;
    }
    const at = this.clock.now() + ms;
    const existing = this.delayed.get(key);
    if (existing && existing.at <= at) {
      existing.priority = higher(priority, existing.priority);
      return;
    }
    existing?.cancel();
    const entry = { at, priority: higher(priority, existing?.priority), cancel: () => {} } as {
      at: number;
      priority: Priority;
      cancel: () => void;
    };
    entry.cancel = this.clock.setTimer(ms, () => {
      this.delayed.delete(key);
      this.add(key, entry.priority);
      this.checkIdle();
    });
    this.delayed.set(key, entry);
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
    this.ready.clear();
    this.order.high.clear();
    this.order.normal.clear();
    this.order.low.clear();
    for (const p of this.processing.values()) delete p.again;
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

  /** Runs one ready key (high ones first), if there is one; false when none was ready. For stepping in tests. */
  async processNext(): Promise<boolean> {
    const key = this.take("high") ?? this.take("normal") ?? this.take("low");
    if (key === undefined) return false;
    await this.run(key.key, key.priority);
    return true;
  }

  /** Keys ready to run. */
  get length(): number {
    return this.ready.size;
  }

  /** Keys being processed now. */
  get inFlight(): number {
    return this.processing.size;
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
    return this.ready.size === 0 && this.processing.size === 0 && this.delayed.size === 0;
  }

  private pump(): void {
    if (!this.running && this.draining === 0) return;
    for (;;) {
      const high = this.processing.size < this.highWorkers ? this.take("high") : undefined;
      const taken = high ?? (this.processing.size < this.workers ? (this.take("normal") ?? this.take("low")) : undefined);
      if (taken === undefined) break;
      void this.run(taken.key, taken.priority);
    }
  }

  /** The first ready key of this priority, taken out of the queue and marked processing. */
  private take(priority: Priority): { key: K; priority: Priority } | undefined {
    const list = this.order[priority];
    for (;;) {
      const key = list.shift();
      if (key === undefined) return undefined;
      if (this.ready.get(key) !== priority) continue; // moved up, or already taken
      this.ready.delete(key);
      this.processing.set(key, { priority });
      return { key, priority };
    }
  }

  private async run(key: K, priority: Priority): Promise<void> {
    try {
      await this.reconcile(key);
      this.failures.delete(key);
    } catch (err) {
      this.handleFailure(key, err, priority);
    }
    try {
      await breathe(); // holding the slot: what comes next waits for the event loop's turn
    } finally {
      const again = this.processing.get(key)?.again;
      this.processing.delete(key);
      if (again !== undefined) this.add(key, again);
      this.pump();
      this.checkIdle();
    }
  }

  private handleFailure(key: K, err: unknown, priority: Priority): void {
    const attempts = (this.failures.get(key) ?? 0) + 1;
    const retryable = this.opts.isRetryable ? this.opts.isRetryable(err) : defaultIsRetryable(err);
    if (retryable && attempts <= this.requeueLimit && !this.stopped) {
      this.failures.set(key, attempts);
      const hinted = hintOf(err)?.retryAfterMs ?? 0;
      const delay = Math.max(hinted, backoffDelay(attempts, this.backoff));
      this.log.debug(`${key}: ${formatError(err)}; retry ${attempts}/${this.requeueLimit} in ${delay}ms`);
      this.addAfter(key, delay, priority);
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

/** A first-in first-out list whose shift is O(1) (an array's is O(n)). */
class Fifo<T> {
  private items: Array<T | undefined> = [];
  private head = 0;

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

function defaultIsRetryable(err: unknown): boolean {
  return hintOf(err)?.isRetryable ?? true;
}
