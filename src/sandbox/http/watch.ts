// Watch streams: newline-delimited JSON events from a resourceVersion, with bookmarks, 410 Gone as an ERROR event (as kube-apiserver sends
// it), label/field-filtered transitions, timeouts and a clean end when the server stops.
import { matchesFilter, type ListFilter } from "../storage/filter.ts";
import type { Store } from "../storage/store.ts";
import type { StoreEvent } from "../storage/watch-hub.ts";
import { storageKey } from "../storage/keys.ts";
import { ApiError, apiVersionOf, type KubeObject, type ResourceType } from "../types.ts";

// A watch from a resourceVersion the store has not reached is accepted and stays silent — no event and
// no bookmark at or below it — exactly as kube-apiserver's watch cache does (its cacheWatcher sends
// only events newer than the requested resourceVersion): what a client resuming against a server
// restored from an older etcd copy sees. Only a list or a watch-list (sendInitialEvents) at such a
// resourceVersion gets kube's 504 "Too large resource version" (after a 3 s wait; the watch-list's as
// its one ERROR event).

export interface WatchRequest extends ListFilter {
  type: ResourceType;
  resourceVersion?: string;
  bookmarks: boolean;
  timeoutSeconds?: number;
  /** sendInitialEvents=true: current state as ADDED, then a BOOKMARK marking the end. */
  sendInitialEvents?: boolean;
  /** Serves each event's object (for Table watches and version rewriting). */
  render(obj: KubeObject): unknown;
  /**
   * Watches with the same key render an object alike: an event's line is made once for all of them,
   * as kube-apiserver's watch cache serializes an event once per encoding for every watcher
   * (cachingObject). Absent: made per watch (a Table watch).
   */
  shareKey?: string;
  /** A resume the server will not serve (the forget-history and lagging-watch-cache faults): one ERROR event, then the end, as kube-apiserver's watch cache answers. */
  expired?: ApiError;
  /** Objects of built-in types are stripped of nothing; custom ones get the served version. */
}

/** Each stored object's event lines already made, by event type and shareKey (the store's objects are never changed in place). */
const lines = new WeakMap<KubeObject, Map<string, string>>();

function eventLine(type: string, obj: KubeObject, req: WatchRequest): string {
  if (req.shareKey === undefined) return `${JSON.stringify({ type, object: req.render(obj) })}\n`;
  let made = lines.get(obj);
  if (!made) lines.set(obj, (made = new Map()));
  const key = `${type} ${req.shareKey}`;
  let line = made.get(key);
  if (line === undefined) made.set(key, (line = `${JSON.stringify({ type, object: req.render(obj) })}\n`));
  return line;
}

/** How long kube-apiserver's watch cache waits for a resourceVersion a list asks for and it has not reached (blockTimeout). */
export const TOO_LARGE_WAIT_MS = 3000;

/** kube's answer once the wait is over: 504 Timeout, retry after 1 s, cause ResourceVersionTooLarge. */
export function tooLargeResourceVersion(requested: number, current: string, retryAfterSeconds = 1): ApiError {
  return new ApiError(504, "Timeout", `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
    retryAfterSeconds,
  });
}

/** Resolves true once the store's resourceVersion reaches `rv` (at once if it has), false after `ms`. */
export function waitForResourceVersion(store: Store, rv: number, ms: number): Promise<boolean> {
  if (Number(store.resourceVersion) >= rv) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (reached: boolean) => {
      clearTimeout(timer);
      off();
      resolve(reached);
    };
    const timer = setTimeout(() => done(false), ms);
    const off = store.onCommit((e) => {
      if (e.rv >= rv) done(true);
    });
  });
}

/** A stream's queued lines are sent at once past this many characters (an initial list does not wait as one string). */
const CHUNK_CHARS = 64 * 1024;

/** Every open stream, so a stop or a test control can end them. */
export class WatchStreams {
  private closers = new Set<() => void>();

  constructor(
    private readonly store: Store,
    private readonly bookmarkMs: number,
  ) {}

  get open(): number {
    return this.closers.size;
  }

  /** Ends every open watch stream (the clients see a clean end of stream). */
  dropAll(): void {
    for (const close of [...this.closers]) close();
  }

  stream(req: WatchRequest, signal: AbortSignal): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    const hub = this;
    const store = this.store;
    let cleanup = () => {};
    return new ReadableStream<Uint8Array>({
      start(controller) {
        let closed = false;
        const timers: ReturnType<typeof setTimeout>[] = [];
        let unwatch = () => {};
        // Lines queued in one turn of the event loop go out as one chunk, as kube-apiserver's watch handler
        // flushes only when no further event is queued: fewer chunks for the same bytes, in the same order.
        let pending = "";
        let flushing: ReturnType<typeof setImmediate> | undefined;
        const flush = () => {
          flushing = undefined;
          if (pending === "") return;
          const chunk = pending;
          pending = "";
          try {
            controller.enqueue(encoder.encode(chunk));
          } catch {
            close();
          }
        };
        const writeLine = (line: string) => {
          if (closed) return;
          pending += line;
          if (pending.length >= CHUNK_CHARS) flush();
          else flushing ??= setImmediate(flush);
        };
        const close = () => {
          if (closed) return;
          closed = true;
          if (flushing) clearImmediate(flushing);
          unwatch();
          for (const t of timers) clearTimeout(t), clearInterval(t);
          hub.closers.delete(close);
          try {
            // What was queued before the end still reaches a client that is listening.
            if (pending !== "" && !signal.aborted) controller.enqueue(encoder.encode(pending));
            controller.close();
          } catch {
            // already closed by the client
          }
          pending = "";
        };
        cleanup = close;
        const write = (type: string, object: unknown) => writeLine(`${JSON.stringify({ type, object })}\n`);
        /** The requested resourceVersion when the store had not reached it: no bookmark below it (kube sends none). */
        let aheadOf = 0;
        const bookmark = (annotations?: Record<string, string>) =>
          Number(store.resourceVersion) >= aheadOf &&
          write("BOOKMARK", {
            kind: req.type.kind,
            apiVersion: apiVersionOf(req.type),
            metadata: { resourceVersion: store.resourceVersion, ...(annotations ? { annotations } : {}) },
          });
        // Bun holds a streaming response's headers until the first chunk: send one at once.
        controller.enqueue(encoder.encode("\n"));
        hub.closers.add(close);
        signal.addEventListener("abort", close, { once: true });

        const send = (e: StoreEvent) => {
          const now = matchesFilter(e.object, req);
          const before = e.previous ? matchesFilter(e.previous, req) : now;
          if (e.type === "MODIFIED") {
            if (now && before) writeLine(eventLine("MODIFIED", e.object, req));
            else if (now) writeLine(eventLine("ADDED", e.object, req));
            else if (before) writeLine(eventLine("DELETED", e.object, req));
          } else if (now) {
            writeLine(eventLine(e.type, e.object, req));
          }
        };
        const rv = req.resourceVersion;
        try {
          if (req.expired) throw req.expired;
          if (rv === undefined || rv === "" || rv === "0" || req.sendInitialEvents) {
            for (const obj of store.scan(req.type, req)) write("ADDED", req.render(obj));
            unwatch = store.watch({ ...filterOf(req), key: storageKey(req.type), send });
            if (req.sendInitialEvents) bookmark({ "k8s.io/initial-events-end": "true" });
          } else {
            const from = Number(rv);
            if (!Number.isInteger(from) || from < 0) throw new ApiError(400, "BadRequest", `invalid resource version "${rv}"`);
            if (from > Number(store.resourceVersion)) {
              // Not reached yet: watch from now and send only what comes after `from`; bookmarks wait until the store gets there.
              aheadOf = from;
              unwatch = store.watch({ ...filterOf(req), key: storageKey(req.type), send: (e) => void (e.rv > from && send(e)) });
            } else unwatch = store.watch({ ...filterOf(req), key: storageKey(req.type), send }, from);
          }
        } catch (err) {
          const status = err instanceof ApiError ? err.toStatus() : new ApiError(500, "InternalError", String(err)).toStatus();
          write("ERROR", status);
          close();
          return;
        }
        if (req.bookmarks) timers.push(setInterval(() => bookmark(), hub.bookmarkMs));
        if (req.timeoutSeconds !== undefined && req.timeoutSeconds > 0) timers.push(setTimeout(close, req.timeoutSeconds * 1000));
      },
      cancel() {
        cleanup();
      },
    });
  }
}

function filterOf(req: WatchRequest): ListFilter {
  return { namespace: req.namespace, labels: req.labels, fields: req.fields };
}
