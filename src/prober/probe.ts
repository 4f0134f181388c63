// One probe: `GET http://<target><path>` with an abortable timeout; alive ⇔ HTTP 200 (docs/linkerd-compatibility.md#prober). And how the
// targets of one round combine: the round succeeds only when *every* target answers 200 (so one dead gateway address of several shows as a
// dead gateway), and its latency is the slowest target's.
import type { ProbeFailure, ProbeOutcome } from "./state.ts";

/** The part of `fetch` the prober uses (injected in tests). */
export type FetchLike = (url: string, init: { signal: AbortSignal }) => Promise<Response>;

export interface TargetResult {
  target: string;
  ok: boolean;
  /** Time to the response headers (or to the failure). */
  latencyMs: number;
  failure?: ProbeFailure;
}

export interface ProbeTargetOptions {
  fetch: FetchLike;
  target: string;
  path: string;
  timeoutMs: number;
  /** Aborted by stop(): the probe then resolves "aborted" and counts for nothing. */
  stop: AbortSignal;
  /** Default AbortSignal.timeout. */
  timeoutSignal: (ms: number) => AbortSignal;
  /** Monotonic milliseconds. */
  elapsed: () => number;
}

/** `http://10.0.0.1:4191/ready`; targets are `host:port` with IPv6 hosts bracketed. */
export function probeUrl(target: string, path: string): string {
  return `http://${target}${path.startsWith("/") ? path : `/${path}`}`;
}

export async function probeTarget(o: ProbeTargetOptions): Promise<TargetResult | "aborted"> {
  const start = o.elapsed();
  const since = () => Math.max(0, o.elapsed() - start);
  try {
    const res = await o.fetch(probeUrl(o.target, o.path), { signal: AbortSignal.any([o.timeoutSignal(o.timeoutMs), o.stop]) });
    const latencyMs = since();
    // The body is not needed; cancelling it frees the connection.
    await res.body?.cancel().catch(() => {});
    if (res.status === 200) return { target: o.target, ok: true, latencyMs };
    return { target: o.target, ok: false, latencyMs, failure: { kind: "status", status: res.status } };
  } catch (err) {
    if (o.stop.aborted) return "aborted";
    const latencyMs = since();
    const name = err instanceof Error ? err.name : "";
    if (name === "TimeoutError") return { target: o.target, ok: false, latencyMs, failure: { kind: "timeout", timeoutMs: o.timeoutMs } };
    return { target: o.target, ok: false, latencyMs, failure: { kind: "transport", message: transportMessage(err) } };
  }
}

const CODES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ENOTFOUND: "host not found",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connect timed out",
};

function transportMessage(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && CODES[code]) return CODES[code];
  const message = err instanceof Error ? err.message : String(err);
  return message.split("\n")[0]!.trim() || "request failed";
}

/** The outcome of a round at `at`: ok only when there were targets and all of them answered 200. */
export function combineRound(results: readonly TargetResult[], at: number): ProbeOutcome {
  if (results.length === 0) return { ok: false, at, failure: { kind: "no-targets" } };
  const failed = results.find((r) => !r.ok);
  if (failed) return { ok: false, at, failure: failed.failure ?? { kind: "transport", message: "request failed" } };
  return { ok: true, at, latencyMs: Math.max(...results.map((r) => r.latencyMs)) };
}
