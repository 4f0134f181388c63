// Raw HTTP to an API server through the connection's TLS and auth. It uses `node-fetch` with the agent client-node builds from the
// kubeconfig (CA, client certificate, skip-verify, SNI) — the path measured to work under Bun (Bun maps the agent's TLS options onto its
// native fetch) — plus client-node's auth headers (token, token file, exec plugin).
import fetch from "node-fetch";
import { setLongTimer } from "../runtime/clock.ts";
import { echoBook, type EchoBook } from "./echoes.ts";
import { KubeError, kubeError, kubeErrorFromResponse, toKubeError, type KubeVerb } from "./kube-error.ts";
import { inflightWindow, RETRY_AFTER_ATTEMPTS, retryAfterMs, sleep, type InflightWindow, type RequestLimiter } from "./throttle.ts";

// Failures come back as KubeErrors; nothing from a response's headers reaches them.

/** What a request needs from a connection: where, and how to authenticate. */
export interface Transport {
  /** Base URL, no trailing slash. */
  readonly server: string;
  /** The agent (TLS) and headers (auth) for the next request. */
  fetchOptions(): Promise<{ agent?: unknown; headers: Record<string, string> }>;
  /** Drops cached credentials (after a 401: a rotated token, an expired exec credential). */
  invalidate?(): void;
  /** The client-side limit every request (and retry) waits on (`--kube-api-qps`); none when absent. */
  readonly limiter?: RequestLimiter;
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface RawRequest {
  verb: KubeVerb;
  /** For errors: `services ns/name on east`. */
  target: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Query;
  body?: unknown;
  contentType?: string;
  /** Whole request for plain calls; until the response headers for streams. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** A write whose answer a watch of ours will carry back: the answer goes into the server's echo book (echoes.ts). */
  expectEcho?: boolean;
}

export interface StreamResponse {
  /** The body, chunk by chunk; ends when the server closes the stream or `cancel()` is called. */
  chunks: AsyncIterable<Uint8Array | string>;
  cancel(): void;
}

/** Each connection's window of requests in flight (throttle.ts), made on its first request. */
const windows = new WeakMap<Transport, InflightWindow>();
const windowOf = (t: Transport): InflightWindow => windows.get(t) ?? windows.set(t, inflightWindow()).get(t)!;

/**
 * Sends a request and returns the parsed JSON body of a 2xx response; anything else throws
 * KubeError. A 429 with Retry-After is sent again after that wait (throttle.ts), and narrows the
 * connection's window of requests in flight.
 */
export async function requestJson<T>(t: Transport, req: RawRequest): Promise<T> {
  if (!req.expectEcho) return attempts<T>(t, req, undefined);
  const book = echoBook(t.server);
  book.sending();
  try {
    return await attempts<T>(t, req, book);
  } finally {
    book.sent();
  }
}

async function attempts<T>(t: Transport, req: RawRequest, book: EchoBook | undefined): Promise<T> {
  const window = windowOf(t);
  for (let attempt = 0; ; attempt++) {
    await admitted(t, req);
    await pause(window.acquire(req.signal), req);
    const deadline = abortAfter(req.timeoutMs, req.signal, t.server);
    let wait: number | undefined;
    let outcome: "answered" | "shed" | "failed" = "failed";
    try {
      const res = await send(t, req, deadline.signal);
      const text = await res.text();
      outcome = res.status === 429 ? "shed" : "answered";
      if (res.status < 200 || res.status >= 300) {
        if (res.status === 401) t.invalidate?.();
        wait = attempt < RETRY_AFTER_ATTEMPTS ? retryAfterMs(res.status, res.headers.get("retry-after")) : undefined;
        if (wait === undefined) throw kubeErrorFromResponse(req.verb, req.target, res.status, text, res.headers.get("retry-after"));
      } else {
        if (!text) return undefined as T;
        const trimmed = book ? text.trim() : "";
        const echoed = book && trimmed && book.answered(trimmed);
        if (echoed) return echoed as T; // its echo came first: the same text, parsed already
        try {
          const parsed = JSON.parse(text) as T;
          if (book && trimmed && typeof parsed === "object" && parsed !== null) book.expect(trimmed, parsed);
          return parsed;
        } catch {
          throw kubeError({ verb: req.verb, target: req.target, code: res.status, reason: "Unknown", detail: "response is not JSON" });
        }
      }
    } catch (err) {
      throw deadline.explain(err, req);
    } finally {
      deadline.release();
      window.release(outcome);
    }
    await pause(sleep(wait!, req.signal), req);
  }
}

/** Waits for the client-side limit's token; a caller's abort meanwhile fails as Aborted. */
const admitted = (t: Transport, req: RawRequest): Promise<void> => (t.limiter ? pause(t.limiter.take(req.signal), req) : Promise.resolve());

async function pause(wait: Promise<void>, req: RawRequest): Promise<void> {
  try {
    await wait;
  } catch {
    throw kubeError({ verb: req.verb, target: req.target, code: 0, reason: "Aborted" });
  }
}

/** Opens a streaming GET (a watch); a non-2xx status throws KubeError before any chunk. */
export async function requestStream(t: Transport, req: RawRequest): Promise<StreamResponse> {
  for (let attempt = 0; ; attempt++) {
    await admitted(t, req);
    const opened = await openStream(t, req, attempt < RETRY_AFTER_ATTEMPTS);
    if (typeof opened !== "number") return opened;
    await pause(sleep(opened, req.signal), req);
  }
}

/** One attempt at a stream: the stream, or the wait a retryable refusal asked for. */
async function openStream(t: Transport, req: RawRequest, mayRetry: boolean): Promise<StreamResponse | number> {
  const controller = new AbortController();
  const deadline = abortAfter(req.timeoutMs, req.signal, t.server, controller);
  try {
    const res = await send(t, req, controller.signal);
    if (res.status < 200 || res.status >= 300) {
      if (res.status === 401) t.invalidate?.();
      const text = await res.text();
      const wait = mayRetry ? retryAfterMs(res.status, res.headers.get("retry-after")) : undefined;
      if (wait !== undefined) {
        deadline.release();
        return wait;
      }
      throw kubeErrorFromResponse(req.verb, req.target, res.status, text, res.headers.get("retry-after"));
    }
    deadline.clear(); // the timeout covers the wait for headers only; the caller watches for silence
    const body = res.body as unknown as AsyncIterable<Uint8Array | string> | null;
    if (!body) throw kubeError({ verb: req.verb, target: req.target, code: res.status, reason: "Unknown", detail: "no body" });
    return {
      chunks: body,
      cancel: () => {
        deadline.release();
        controller.abort();
      },
    };
  } catch (err) {
    const error = deadline.explain(err, req); // before our own abort below, which is only cleanup
    deadline.release();
    controller.abort();
    throw error;
  }
}

async function send(t: Transport, req: RawRequest, signal: AbortSignal) {
  const { agent, headers } = await t.fetchOptions();
  const url = new URL(t.server + req.path);
  for (const [k, val] of Object.entries(req.query ?? {})) if (val !== undefined) url.searchParams.set(k, String(val));
  const init: Record<string, unknown> = {
    method: req.method,
    headers: {
      Accept: "application/json",
      ...headers,
      ...(req.body !== undefined ? { "Content-Type": req.contentType ?? "application/json" } : {}),
    },
    body: req.body === undefined ? undefined : typeof req.body === "string" ? req.body : JSON.stringify(req.body),
    agent,
    signal,
    redirect: "error",
  };
  return fetch(url.toString(), init as Parameters<typeof fetch>[1]);
}

/**
 * An AbortSignal that fires after `ms` or when `outer` aborts, without AbortSignal.any (whose
 * listeners on a long-lived outer signal pile up). `explain` turns the resulting abort into the
 * right KubeError (Timeout vs Aborted).
 */
function abortAfter(ms: number, outer: AbortSignal | undefined, server: string, controller = new AbortController()) {
  let timedOut = false;
  const onOuter = () => controller.abort();
  const clear = setLongTimer(ms, () => {
    timedOut = true;
    controller.abort();
  });
  if (outer?.aborted) controller.abort();
  else outer?.addEventListener("abort", onOuter, { once: true });
  return {
    signal: controller.signal,
    clear,
    release: () => {
      clear();
      outer?.removeEventListener("abort", onOuter);
    },
    explain(err: unknown, req: RawRequest) {
      outer?.removeEventListener("abort", onOuter);
      if (timedOut)
        return kubeError({ verb: req.verb, target: req.target, code: 0, reason: "Timeout", detail: `no answer from ${server} in ${ms}ms` });
      if (controller.signal.aborted && !(err instanceof KubeError)) {
        return kubeError({ verb: req.verb, target: req.target, code: 0, reason: "Aborted" });
      }
      return toKubeError(err, req.verb, req.target, server);
    },
  };
}
