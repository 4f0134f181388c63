// KubeError: every API failure as one line — verb, target, HTTP code and reason. Nothing from
// client-node's exception text (it carries headers and bodies) is ever copied into it.
import type { StatusReason } from "../lib/kube-api.ts";
import { redact } from "../errors.ts";
import type { RetryHint } from "../runtime/queue.ts";

export type KubeVerb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete";

/** kube-apiserver's Status reasons, plus ours for failures without a response. */
export type KubeReason =
  | StatusReason
  | "Unreachable" // no HTTP response: refused, reset, DNS, TLS handshake
  | "Aborted" // cancelled by the caller
  | "Unknown";

const REASON_BY_CODE: Record<number, KubeReason> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  409: "Conflict",
  410: "Gone",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

const KNOWN_REASONS = new Set<string>([...Object.values(REASON_BY_CODE), "AlreadyExists", "Expired", "Timeout"]);

export interface KubeErrorInit {
  verb: KubeVerb;
  /** What was acted on, e.g. `services ns/name on east`. */
  target: string;
  /** HTTP status; 0 when no response arrived. */
  code: number;
  reason: KubeReason;
  /** Short server-provided or transport detail (already one line, no secrets). */
  detail?: string;
  retryAfterMs?: number;
  /** The API server's URL, named in messages about failures without a response. */
  server?: string;
}

/** One API failure. `message` is `get services ns/name on east: 404 NotFound: …`. */
export class KubeError extends Error implements RetryHint {
  readonly verb: KubeVerb;
  readonly target: string;
  readonly code: number;
  readonly reason: KubeReason;
  readonly detail: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(init: KubeErrorInit) {
    super(formatKubeError(init));
    this.name = "KubeError";
    this.verb = init.verb;
    this.target = init.target;
    this.code = init.code;
    this.reason = init.reason;
    this.detail = init.detail;
    this.retryAfterMs = init.retryAfterMs;
  }

  get isNotFound(): boolean {
    return this.code === 404;
  }
  get isAlreadyExists(): boolean {
    return this.code === 409 && this.reason === "AlreadyExists";
  }
  /** A 409 of either kind: optimistic-concurrency conflict or already exists. */
  get isConflict(): boolean {
    return this.code === 409;
  }
  get isGone(): boolean {
    return this.code === 410;
  }
  /** Worth retrying as is: 409, 429, 5xx, or no response at all (but not a caller's abort). */
  get isRetryable(): boolean {
    if (this.code === 0) return this.reason !== "Aborted";
    return this.code === 409 || this.code === 429 || this.code >= 500;
  }
}

/** Raised by the writer when a create finds the name taken. */
export class AlreadyExistsError extends KubeError {
  constructor(init: KubeErrorInit) {
    super(init);
    this.name = "AlreadyExistsError";
  }
}

/** Raised by the writer when an update or patch lost an optimistic-concurrency race. */
export class ConflictError extends KubeError {
  constructor(init: KubeErrorInit) {
    super(init);
    this.name = "ConflictError";
  }
}

/** Builds the KubeError subclass that fits the code and reason. */
export function kubeError(init: KubeErrorInit): KubeError {
  if (init.code === 409 && init.reason === "AlreadyExists") return new AlreadyExistsError(init);
  if (init.code === 409) return new ConflictError(init);
  return new KubeError(init);
}

function formatKubeError(init: KubeErrorInit): string {
  const head = `${init.verb} ${init.target}`;
  if (init.code === 0 && init.reason === "Unreachable" && init.detail) {
    const problem = explainConnectionFailure(init.detail, init.server);
    if (problem) return `${head}: ${problem}`;
  }
  if (init.code === 401) {
    return `${head}: 401 Unauthorized: the server rejected the credentials; the token or certificate in the kubeconfig is wrong, expired or revoked`;
  }
  const what = init.code > 0 ? `${init.code} ${init.reason}` : describeNoResponse(init.reason);
  return init.detail ? `${head}: ${what}: ${init.detail}` : `${head}: ${what}`;
}

/** What kind of transport failure a system or TLS error code is (Node's, OpenSSL's and Bun's names). */
const CONNECTION_FAILURES: { codes: readonly string[]; say: (server: string, host: string) => string }[] = [
  {
    codes: ["ECONNREFUSED", "FailedToOpenSocket", "ConnectionRefused"],
    say: (s) => `the connection to ${s} was refused; is the API server running, and are the context and kubeconfig the right ones?`,
  },
  {
    codes: [
      "SELF_SIGNED_CERT_IN_CHAIN",
      "DEPTH_ZERO_SELF_SIGNED_CERT",
      "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
      "UNABLE_TO_GET_ISSUER_CERT",
      "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
      "CERT_SIGNATURE_FAILURE",
      "CERT_UNTRUSTED",
    ],
    say: (s) =>
      `the certificate of ${s} is signed by an unknown authority; the kubeconfig's certificate-authority(-data) is not this server's CA (wrong kubeconfig or context, or the server's CA changed)`,
  },
  {
    codes: ["CERT_HAS_EXPIRED", "CERT_NOT_YET_VALID"],
    say: (s) => `the certificate of ${s} has expired or is not valid yet; renew the server's certificate, or check this machine's clock`,
  },
  {
    codes: ["ERR_TLS_CERT_ALTNAME_INVALID", "HOSTNAME_MISMATCH", "ERR_TLS_CERT_ALTNAME_FORMAT"],
    say: (s, h) =>
      `the certificate of ${s} is not valid for ${h}; use an address the certificate names, or set tls-server-name in the kubeconfig`,
  },
  {
    codes: ["ENOTFOUND", "EAI_AGAIN", "DNSException"],
    say: (s, h) => `the host ${h} of ${s} could not be resolved; check the cluster's server address in the kubeconfig`,
  },
  {
    // What a restarting or stopping API server (or a proxy in front of it) does to open connections.
    codes: ["ECONNRESET", "ConnectionClosed", "EPIPE"],
    say: (s) =>
      `the connection to ${s} was closed before an answer (the server, or a proxy in front of it, closed it: restarting or stopping?)`,
  },
  {
    codes: ["ERR_SSL_WRONG_VERSION_NUMBER", "EPROTO"],
    say: (s) =>
      `the connection to ${s} failed before an answer; is it a Kubernetes API server, and does it speak ${s.startsWith("https:") ? "https" : "http"} as the kubeconfig says?`,
  },
  {
    codes: ["ETIMEDOUT", "ConnectionTimeout", "ETIMEOUT"],
    say: (s) => `the connection to ${s} timed out; is the server reachable from here (network, firewall, VPN)?`,
  },
  {
    codes: ["EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"],
    say: (s) => `${s} is not reachable from this machine; check the server address and the network route to it`,
  },
];

/**
 * A transport error code (ECONNREFUSED, SELF_SIGNED_CERT_IN_CHAIN, …) in words, naming the server
 * and the likely fix, as kubectl does; undefined for a code we do not know. The raw code follows in
 * brackets so it can still be searched for.
 */
function explainConnectionFailure(code: string, server?: string): string | undefined {
  const failure = CONNECTION_FAILURES.find((f) => f.codes.includes(code));
  if (!failure) return undefined;
  const url = server ?? "the API server";
  let host = "its host";
  try {
    if (server) host = new URL(server).hostname;
  } catch {
    // a server that is not a URL keeps the generic wording
  }
  return `${failure.say(url, host)} [${code}]`;
}

function describeNoResponse(reason: KubeReason): string {
  if (reason === "Timeout") return "timed out";
  if (reason === "Aborted") return "aborted";
  if (reason === "Unreachable") return "unreachable";
  return "failed";
}

/** Names a target the way the messages do: `services ns/name on east`, `services in ns on east`. */
export function describeTarget(t: { plural: string; cluster: string; namespace?: string; name?: string }): string {
  if (t.name !== undefined) {
    return `${t.plural} ${t.namespace ? `${t.namespace}/` : ""}${t.name} on ${t.cluster}`;
  }
  return t.namespace ? `${t.plural} in ${t.namespace} on ${t.cluster}` : `${t.plural} on ${t.cluster}`;
}

/** One short, secret-free line from untrusted text (a server message, a transport error). */
function shortDetail(text: string, max = 200): string {
  const line = redact(text).replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The error for a non-2xx response, from its status and (maybe `kind: Status`) body text. */
export function kubeErrorFromResponse(
  verb: KubeVerb,
  target: string,
  code: number,
  bodyText: string,
  retryAfter?: string | null,
): KubeError {
  let reason: KubeReason = REASON_BY_CODE[code] ?? (code >= 500 ? "InternalError" : "Unknown");
  let detail: string | undefined;
  const status = parseStatus(bodyText);
  if (status) {
    if (typeof status.reason === "string" && KNOWN_REASONS.has(status.reason)) reason = status.reason as KubeReason;
    if (typeof status.message === "string" && status.message) detail = shortDetail(status.message);
  }
  const seconds = retryAfter ? Number(retryAfter) : NaN;
  return kubeError({
    verb,
    target,
    code,
    reason,
    detail,
    retryAfterMs: Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined,
  });
}

/** A `kind: Status` object from a watch ERROR event or a body; undefined when it is not one. */
export function parseStatus(body: unknown): { code?: number; reason?: string; message?: string; retryAfterSeconds?: number } | undefined {
  let value = body;
  if (typeof body === "string") {
    try {
      value = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (v.kind !== "Status") return undefined;
  const details = typeof v.details === "object" && v.details !== null ? (v.details as Record<string, unknown>) : {};
  const retry = details.retryAfterSeconds;
  return {
    code: typeof v.code === "number" ? v.code : undefined,
    reason: typeof v.reason === "string" ? v.reason : undefined,
    message: typeof v.message === "string" ? v.message : undefined,
    // kube's "retry after" hint (the Retry-After header of a response, this field inside a watch ERROR event).
    retryAfterSeconds: typeof retry === "number" && Number.isFinite(retry) && retry >= 0 ? retry : undefined,
  };
}

/**
 * Any thrown value from a request (a fetch failure, an abort, a timeout, client-node's ApiException)
 * as a KubeError. ApiException's message (headers, body) is never read: only its code and a
 * `kind: Status` body.
 */
export function toKubeError(err: unknown, verb: KubeVerb, target: string, server?: string): KubeError {
  if (err instanceof KubeError) return err;
  const e = (typeof err === "object" && err !== null ? err : {}) as Record<string, unknown>;
  const name = typeof e.name === "string" ? e.name : "";
  if (name === "TimeoutError") return kubeError({ verb, target, code: 0, reason: "Timeout" });
  if (name === "AbortError") return kubeError({ verb, target, code: 0, reason: "Aborted" });
  // client-node ApiException: numeric code plus body; its message is never used.
  if (typeof e.code === "number" && e.code >= 100 && "body" in e) {
    const body = typeof e.body === "string" ? e.body : JSON.stringify(e.body ?? null);
    return kubeErrorFromResponse(verb, target, e.code, body);
  }
  if (typeof e.statusCode === "number") {
    return kubeErrorFromResponse(verb, target, e.statusCode, "");
  }
  if (typeof e.code === "string" && /^[A-Za-z_]+$/.test(e.code)) {
    // ECONNREFUSED, ECONNRESET, ConnectionClosed, SELF_SIGNED_CERT_IN_CHAIN, …
    return kubeError({ verb, target, code: 0, reason: "Unreachable", detail: e.code, server });
  }
  const message = err instanceof Error ? (err.message.split("\n")[0] ?? "") : String(err);
  return kubeError({ verb, target, code: 0, reason: "Unknown", detail: shortDetail(message, 160) || undefined });
}

export const isNotFound = (err: unknown): boolean => err instanceof KubeError && err.isNotFound;
export const isConflict = (err: unknown): boolean => err instanceof KubeError && err.isConflict;
export const isAlreadyExists = (err: unknown): boolean => err instanceof KubeError && err.isAlreadyExists;
