// What an informer is given (its options and their defaults) and how it reads the server's answers: resourceVersions compared, the
// errors it retries, relists after, or gives up on.
import type { Logger } from "../log.ts";
import type { BackoffOptions } from "../runtime/backoff.ts";
import type { Clock } from "../runtime/clock.ts";
import type { KubeClient } from "./client.ts";
import { kubeError, parseStatus, type KubeError, type KubeReason } from "./kube-error.ts";
import type { KubeObject, ResourceType } from "./types.ts";

export interface InformerOptions<T extends KubeObject> {
  client: KubeClient;
  resource: ResourceType;
  /** Omit to watch all namespaces. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** A watch with no event (bookmarks included) for this long is re-opened. Default 5 min. */
  inactivityTimeoutMs?: number;
  /** Server-side end of each watch; default a random 5–10 min, as client-go. */
  watchTimeoutSeconds?: number;
  /** Re-watch delays after failures. Default 500 ms doubling to 30 s, 20% jitter. */
  backoff?: Partial<BackoffOptions>;
  clock?: Clock;
  log?: Logger;
  /** Applied to each object before caching; default drops metadata.managedFields. */
  transform?: (obj: T) => T;
  /**
   * A fresh list this often even while the watch is healthy, emitting whatever the watch missed
   * (a server whose history was lost or went backwards, as after an etcd restore). Default 30 min;
   * 0 turns it off.
   */
  relistIntervalMs?: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 30_000, jitter: 0.2 };
export type WatchOutcome = "gone" | "ended" | "idle" | "stopped" | "relist";
export const DEFAULT_RELIST_MS = 30 * 60_000;

/**
 * resourceVersions are opaque to clients by contract, but every server we know (etcd's revision,
 * the sandbox's counter) issues increasing integers; only those are compared.
 */
export function isOlder(rv: string, than: string): boolean {
  if (!/^\d+$/.test(rv) || !/^\d+$/.test(than)) return false;
  return BigInt(rv) < BigInt(than);
}

/** kube-apiserver's answer to a resume point it has not reached: 504 Timeout "Too large resource version". */
const TOO_LARGE_RESOURCE_VERSION = /too large resource version/i;

/** 400 BadRequest and 422 Invalid: the request as made is wrong, now and on every retry. */
export function isPermanent(err: KubeError): boolean {
  return err.code === 400 || err.code === 422;
}

/** How the informer names a watch the server ended early (and answered again right after): the server stayed up. */
export const STREAM_CLOSED = "stream closed by the server";

/**
 * No answer at all (refused, reset, timed out): the server, or the way to it, went away. It may come
 * back on another history (an etcd restore whose revision has already passed the one we saw), which
 * no resume check can tell, so the informer lists afresh rather than resume (D178).
 */
export function isConnectionLost(err: KubeError): boolean {
  if (err.code !== 0) return false;
  return err.reason === "Timeout" || (err.reason === "Unreachable" && err.detail !== STREAM_CLOSED);
}

export function isTooLargeResourceVersion(err: KubeError): boolean {
  return TOO_LARGE_RESOURCE_VERSION.test(err.detail ?? "");
}

/**
 * A watch's ERROR event: `gone` (410: relist), `too-large` (the server has not reached our resume
 * point: its history went backwards) or the error to back off on — a retry hint inside the event
 * (details.retryAfterSeconds) honoured as a response's Retry-After is (capped by the backoff).
 */
export function readErrorEvent(object: unknown, target: string): "gone" | "too-large" | KubeError {
  const status = parseStatus(object);
  if (status?.code === 410) return "gone";
  const retryAfterMs = status?.retryAfterSeconds === undefined ? undefined : status.retryAfterSeconds * 1000;
  if (status && TOO_LARGE_RESOURCE_VERSION.test(status.message ?? "") && retryAfterMs === undefined) return "too-large";
  return kubeError({
    verb: "watch",
    target,
    code: status?.code ?? 500,
    reason: (status?.reason ?? "InternalError") as KubeReason,
    detail: status?.message,
    ...(retryAfterMs !== undefined && { retryAfterMs }),
  });
}
