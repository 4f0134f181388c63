// Informer: list, then watch from the list's resourceVersion, forever.
import { logger, type Logger } from "../log.ts";
import { backoffDelay, type BackoffOptions } from "../runtime/backoff.ts";
import type { ReadonlyCache } from "./cache.ts";
import { AccessTableError, type WatchStream } from "./client.ts";
import { sleep, systemClock, type Clock } from "../runtime/clock.ts";
import { Fanout, type InformerCounters, type InformerEvent, type InformerStatus } from "./informer-events.ts";
import { echoBook } from "./echoes.ts";
import { InformerFeed } from "./informer-feed.ts";
import {
  DEFAULT_BACKOFF,
  DEFAULT_RELIST_MS,
  isConnectionLost,
  isOlder,
  isPermanent,
  isTooLargeResourceVersion,
  readErrorEvent,
  STREAM_CLOSED,
  type InformerOptions,
  type WatchOutcome,
} from "./informer-options.ts";
import { describeTarget, KubeError, kubeError, toKubeError } from "./kube-error.ts";
import { MAX_RETRY_AFTER_MS } from "./throttle.ts";
import type { KubeObject } from "./types.ts";

// A supervisor of its own (client-node 1.4.0's ListWatch stops for good on connection errors and has
// no inactivity timeout or backoff): on 410 Gone, or once the connection was lost (refused, reset,
// timed out: the server may come back restored, D178), it relists and emits the differences; on any
// other drop or error it re-watches from the last resourceVersion after a capped, jittered exponential
// backoff, first confirming that the server has reached that resourceVersion (a one-item list with
// resourceVersionMatch=NotOlderThan): kube-apiserver accepts a watch from a resourceVersion it has not
// reached and stays silent, so a server restored from an older etcd copy is only seen by the list's
// 504 "Too large resource version" — then the informer relists, emits the differences and reports
// status `reset` (history went backwards). Also: a watch event older than the last resourceVersion
// seen, and a periodic fresh list (the backstop for a restored server that has already passed the old
// resourceVersion again). A 410 again right after a relist backs off (500 ms doubling to 30 s) until a
// watch delivers an event; a Retry-After (a response's header, or details.retryAfterSeconds in a watch
// ERROR event) is waited out. Logging one line per transition (lost, recovered) — except a request the
// server rejects as it is (400, 422), which would be rejected again: that one stops the informer
// (status `failed`). Handlers get events synchronously and must not block; a throwing or rejecting
// handler is logged, never fatal.

export type { InformerCounters, InformerEvent, InformerStatus } from "./informer-events.ts";
export type { InformerOptions } from "./informer-options.ts";

export class Informer<T extends KubeObject = KubeObject> {
  readonly synced: Promise<void>;
  readonly counters: InformerCounters = { lists: 0, watches: 0, gone: 0, failures: 0, events: 0, echoes: 0 };
  private readonly feed: InformerFeed<T>;
  private readonly statuses: Fanout<InformerStatus>;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly backoff: BackoffOptions;
  /** What it watches, as messages name it: `services in shop on east`. */
  readonly what: string;
  private readonly stopper = new AbortController();
  private resolveSynced!: () => void;
  private rejectSynced!: (err: Error) => void;
  private isSynced = false;
  private cancelWatch: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  /** Consecutive failed lists/watches; 0 while healthy. */
  private failures = 0;
  private goneStreak = 0;
  /** When the next periodic fresh list is due (clock ms). */
  private relistAt = Number.POSITIVE_INFINITY;
  /** Set when the server's resourceVersions went backwards: the cache no longer matches its history. */
  private historyReset = false;
  /** The next watch resumes from `rv` without a list just before it: confirm the server has reached `rv` first. */
  private resuming = false;

  constructor(private readonly opts: InformerOptions<T>) {
    this.clock = opts.clock ?? systemClock;
    this.backoff = { ...DEFAULT_BACKOFF, ...opts.backoff };
    this.what = describeTarget({ plural: opts.resource.plural, cluster: opts.client.cluster, namespace: opts.namespace });
    this.log = opts.log ?? logger(`informer:${opts.client.cluster}`);
    this.feed = new InformerFeed(
      this.counters,
      echoBook(opts.client.server),
      (m) => this.log.error(`handler for ${this.what} failed: ${m}`),
      opts.transform,
    );
    this.statuses = new Fanout((m) => this.log.error(`status handler for ${this.what} failed: ${m}`));
    this.synced = new Promise<void>((resolve, reject) => {
      this.resolveSynced = resolve;
      this.rejectSynced = reject;
    });
    this.synced.catch(() => {}); // rejected only by stop(); awaiting callers still see it
  }

  get cache(): ReadonlyCache<T> {
    return this.feed.store;
  }
  get hasSynced(): boolean {
    return this.isSynced;
  }
  get resourceVersion(): string {
    return this.rv;
  }

  /** Subscribes to add/update/delete events (called synchronously; must not block); returns the unsubscribe function. */
  on(handler: (event: InformerEvent<T>) => void | Promise<void>): () => void {
    return this.feed.events.add(handler);
  }

  /** Subscribes to the keys (`ns/name`) of changed objects — what a work queue wants. */
  onKey(handler: (key: string) => void): () => void {
    return this.feed.events.add((e) => handler(e.key));
  }

  /** Subscribes to state changes (listing, watching, backoff, stopped). */
  onStatus(handler: (status: InformerStatus) => void): () => void {
    return this.statuses.add(handler);
  }

  start(): this {
    this.loop ??= this.run();
    return this;
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    this.cancelWatch?.();
    await this.loop;
    if (!this.isSynced) this.rejectSynced(new Error(`informer for ${this.what} stopped before it synced`));
    this.setStatus({ state: "stopped" });
  }

  /** The resourceVersion reached (the feed's). */
  private get rv(): string {
    return this.feed.rv;
  }

  private get stopped(): boolean {
    return this.stopper.signal.aborted;
  }

  private async run(): Promise<void> {
    let needList = true;
    while (!this.stopped) {
      try {
        if (needList) {
          await this.relist();
          needList = false;
          // Inside a streak of 410s a good list is no recovery yet (the next watch will tell).
          if (this.goneStreak < 2) this.recovered();
        } else if (this.resuming && !(await this.serverReached())) {
          needList = true;
          continue;
        }
        this.resuming = true;
        const started = this.clock.now();
        const result = await this.watchOnce();
        const outcome = result.outcome;
        if (outcome === "stopped") break;
        if (outcome === "relist") {
          needList = true;
          continue;
        }
        if (outcome === "gone") {
          this.counters.gone++;
          needList = true;
          if (++this.goneStreak < 2) {
            this.log.info(`resourceVersion of ${this.what} expired; relisting`);
            continue;
          }
          throw kubeError({ verb: "watch", target: this.what, code: 410, reason: "Gone", detail: "expired again right after a relist" });
        }
        if (outcome === "idle") {
          this.log.debug(`no event on ${this.what} in ${this.inactivityMs}ms; re-watching`);
          continue;
        }
        const lasted = this.clock.now() - started;
        if (lasted >= result.timeoutSeconds * 900) {
          // The server's watch timeout: routine, and a watch that held that long ends any streak.
          this.goneStreak = 0;
          this.recovered();
          continue;
        }
        throw kubeError({ verb: "watch", target: this.what, code: 0, reason: "Unreachable", detail: STREAM_CLOSED });
      } catch (err) {
        if (this.stopped) break;
        if (err instanceof AccessTableError) {
          // A bug, not a cluster problem: retrying would only hide it.
          this.log.error(err.message);
          this.rejectSynced(err);
          this.setStatus({ state: "failed", error: err });
          break;
        }
        const error = toKubeError(err, needList ? "list" : "watch", this.what);
        if (isPermanent(error)) {
          // The server rejects the request itself (a label selector it will not parse, say): the same request would only be rejected again.
          this.counters.failures++;
          this.log.error(`${error.message}; not retried (the request is rejected as it is: fix what it is made from)`);
          this.rejectSynced(error);
          this.setStatus({ state: "failed", error });
          break;
        }
        if (isTooLargeResourceVersion(error)) {
          // The server is behind what we saw: it restarted or was restored. Our resume point means nothing there.
          this.log.warn(`${this.what}: the server has no resourceVersion ${this.rv} (its history went backwards); relisting`);
          this.historyReset = true;
          needList = true;
        } else if (isConnectionLost(error) && !needList) {
          // The server went away: it may come back restored, its revision already past ours (D178).
          this.log.debug(`${this.what}: connection lost; the next attempt lists afresh instead of resuming`);
          needList = true;
        }
        // 410s right after relists back off by their own streak, which a successful list does not
        // end (only a watch that delivers an event does): else a server that expires every resume
        // gets a full LIST every initialMs, forever. A Retry-After is honoured (capped).
        const attempt = Math.max(++this.failures, error.isGone ? this.goneStreak - 1 : 0);
        this.counters.failures++;
        const delayMs = Math.max(backoffDelay(attempt, this.backoff), Math.min(error.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
        if (attempt === 1) this.log.warn(`${error.message}; retrying in ${delayMs}ms`);
        else this.log.debug(`${error.message}; retry ${attempt} in ${delayMs}ms`);
        this.setStatus({ state: "backoff", attempt, delayMs, error });
        await sleep(this.clock, delayMs, this.stopper.signal);
      }
    }
  }

  /** A list or a watch event got through: the failure streak (if any) is over. */
  private recovered(): void {
    if (this.failures === 0) return;
    const n = this.failures;
    this.failures = 0;
    this.log.info(`${this.what} recovered after ${n} failed attempt${n === 1 ? "" : "s"}`);
  }

  private get inactivityMs(): number {
    return this.opts.inactivityTimeoutMs ?? 300_000;
  }

  private get relistIntervalMs(): number {
    return this.opts.relistIntervalMs ?? DEFAULT_RELIST_MS;
  }

  private get watchSeconds(): number {
    return this.opts.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300);
  }

  /**
   * Whether the server has reached the resourceVersion we would resume from. False (and the next
   * list is a history reset) when it answers "Too large resource version"; other errors throw.
   */
  private async serverReached(): Promise<boolean> {
    const { client, resource, namespace, labelSelector, fieldSelector } = this.opts;
    try {
      await client.list<T>(resource, {
        namespace,
        labelSelector,
        fieldSelector,
        limit: 1,
        resourceVersion: this.rv,
        resourceVersionMatch: "NotOlderThan",
        signal: this.stopper.signal,
      });
      return true;
    } catch (err) {
      const error = toKubeError(err, "list", this.what);
      if (!isTooLargeResourceVersion(error)) throw error;
      this.log.warn(
        `${this.what}: the server has not reached resourceVersion ${this.rv}, the last one seen (its history went backwards, as after an etcd restore); relisting`,
      );
      this.historyReset = true;
      return false;
    }
  }

  /** Lists and swaps the cache, emitting what changed since the last state (everything, the first time). */
  private async relist(): Promise<void> {
    this.setStatus({ state: "listing" });
    const { client, resource, namespace, labelSelector, fieldSelector } = this.opts;
    const list = await client.list<T>(resource, { namespace, labelSelector, fieldSelector, signal: this.stopper.signal });
    this.counters.lists++;
    const wentBack = this.rv !== "" && (this.historyReset || isOlder(list.resourceVersion, this.rv));
    if (this.rv && isOlder(list.resourceVersion, this.rv) && !this.historyReset) {
      this.log.warn(
        `${this.what}: listed at resourceVersion ${list.resourceVersion}, older than ${this.rv} already seen (the server's history went backwards); taking the list as the truth`,
      );
    }
    this.historyReset = false;
    this.resuming = false;
    const before = this.rv;
    const size = this.feed.listed(list.items, list.resourceVersion);
    this.relistAt = this.relistIntervalMs > 0 ? this.clock.now() + this.relistIntervalMs : Number.POSITIVE_INFINITY;
    if (wentBack) this.setStatus({ state: "reset", before, resourceVersion: this.rv });
    if (!this.isSynced) {
      this.isSynced = true;
      this.log.debug(`synced ${size} ${this.what}`);
      this.resolveSynced();
    }
  }

  /** One watch stream from the current resourceVersion, until it ends, goes silent, expires or we stop. */
  private async watchOnce(): Promise<{ outcome: WatchOutcome; events: number; timeoutSeconds: number }> {
    const { client, resource, namespace, labelSelector, fieldSelector } = this.opts;
    const abort = new AbortController();
    this.cancelWatch = () => abort.abort();
    let idle = false;
    let relistDue = false;
    let wentBack = false;
    let cancelTimer = () => {};
    let cancelRelist = () => {};
    let events = 0;
    const timeoutSeconds = this.watchSeconds;
    const done = (outcome: WatchOutcome) => ({ outcome, events, timeoutSeconds });
    try {
      let stream: WatchStream<T>;
      try {
        stream = await client.watch<T>(resource, {
          namespace,
          labelSelector,
          fieldSelector,
          resourceVersion: this.rv,
          allowWatchBookmarks: true,
          timeoutSeconds,
          signal: abort.signal,
          echoes: this.feed.watchEchoes,
        });
      } catch (err) {
        if (err instanceof KubeError && err.isGone) return done("gone"); // 410 as the response itself
        throw err;
      }
      this.counters.watches++;
      this.cancelWatch = () => stream.cancel();
      if (this.stopped) return done("stopped");
      const arm = () => {
        cancelTimer();
        cancelTimer = this.clock.setTimer(this.inactivityMs, () => {
          idle = true;
          stream.cancel();
        });
      };
      arm();
      const untilRelist = this.relistAt - this.clock.now();
      if (Number.isFinite(untilRelist)) {
        cancelRelist = this.clock.setTimer(Math.max(0, untilRelist), () => {
          relistDue = true;
          stream.cancel();
        });
      }
      this.setStatus({ state: "watching", resourceVersion: this.rv });
      try {
        for await (const event of stream.events) {
          arm();
          if (events++ === 0 && event.type !== "ERROR") {
            this.goneStreak = 0;
            this.recovered();
          }
          if (event.type === "ERROR") {
            const read = readErrorEvent(event.object, this.what);
            if (read === "gone") return { ...done("gone"), events: events - 1 };
            if (read instanceof KubeError) throw read;
            this.log.warn(`${this.what}: the server has no resourceVersion ${this.rv} (its history went backwards); relisting`);
            this.historyReset = true;
            return done("relist");
          }
          const rv = event.object?.metadata?.resourceVersion;
          if (rv && this.rv && isOlder(rv, this.rv)) {
            this.log.warn(
              `${this.what}: event at resourceVersion ${rv}, older than ${this.rv} already seen (the server's history went backwards); relisting`,
            );
            this.historyReset = true;
            wentBack = true;
            break;
          }
          this.feed.apply(event.type, event.object);
        }
      } catch (err) {
        if (this.stopped) return done("stopped");
        if (idle) return done("idle");
        if (relistDue) return done("relist");
        throw err;
      } finally {
        stream.cancel();
      }
      if (this.stopped) return done("stopped");
      if (wentBack || relistDue) return done("relist");
      return done(idle ? "idle" : "ended");
    } finally {
      cancelTimer();
      cancelRelist();
      this.cancelWatch = undefined;
    }
  }

  private setStatus(status: InformerStatus): void {
    this.statuses.emit(status);
  }
}
