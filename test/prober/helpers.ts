// Fixtures for the prober's tests: Links with a probe spec, a recording log, timeout signals
// driven by a ManualClock, a scripted fetch, and a loopback Bun.serve gateway that answers
// 200, 500, hangs, adds a delay, or is stopped and restarted on the same port.
import type { ManualClock } from "../../src/runtime/clock.ts";
import { parseDuration } from "../../src/model/duration.ts";
import { parseLink, type Link } from "../../src/model/link.ts";
import type { FetchLike } from "../../src/prober/probe.ts";

export function probedLink(
  o: { cluster?: string; period?: string; timeout?: string; failureThreshold?: string; path?: string } = {},
): Link {
  const cluster = o.cluster ?? "east";
  const link = parseLink({
    apiVersion: "multicluster.linkerd.io/v1alpha3",
    kind: "Link",
    metadata: { name: cluster, namespace: "linkerd-multicluster" },
    spec: {
      targetClusterName: cluster,
      clusterCredentialsSecret: `cluster-credentials-${cluster}`,
      gatewayAddress: "192.0.2.10", // data: the prober is given its targets (loopback)
      gatewayPort: "4143",
      probeSpec: { path: o.path ?? "/ready", port: "4191", period: "1s", timeout: "500ms", failureThreshold: o.failureThreshold ?? "3" },
    },
  });
  // Periods and timeouts below the Link's floors (1s, 100ms), for fast tests of the prober itself:
  // set on the parsed Link, which the prober takes as it is.
  return { ...link, probe: { ...link.probe!, periodMs: parseDuration(o.period ?? "1s"), timeoutMs: parseDuration(o.timeout ?? "500ms") } };
}

export { recordingLog, type RecordingLog } from "../helpers/log.ts";

/** AbortSignal.timeout on a ManualClock: aborts with a TimeoutError when the clock passes `ms`. */
export function manualTimeout(clock: ManualClock): (ms: number) => AbortSignal {
  return (ms) => {
    const ac = new AbortController();
    clock.setTimer(ms, () => ac.abort(new DOMException("The operation timed out.", "TimeoutError")));
    return ac.signal;
  };
}

/** One scripted answer: an HTTP status, a hang (until aborted), or a refused connection. */
export type Answer = number | "hang" | "refused";

/**
 * A fetch that answers per target from `answer(url, call)`, at once. `onCall` runs as each
 * request starts (tests use it to add a known latency to the injected elapsed-time source).
 * Records every URL it was asked for.
 */
export function scriptedFetch(
  answer: (url: string, call: number) => Answer,
  onCall: () => void = () => {},
): FetchLike & { urls: string[] } {
  const urls: string[] = [];
  const f = (url: string, init: { signal: AbortSignal }) => {
    urls.push(url);
    const a = answer(url, urls.length);
    if (a === "hang") {
      return new Promise<Response>((_, reject) => {
        if (init.signal.aborted) reject(init.signal.reason);
        init.signal.addEventListener("abort", () => reject(init.signal.reason), { once: true });
      });
    }
    onCall();
    if (a === "refused") return Promise.reject(Object.assign(new TypeError("ECONNREFUSED: Unable to connect"), { code: "ECONNREFUSED" }));
    return Promise.resolve(new Response(a === 200 ? "ready\n" : "not ready\n", { status: a }));
  };
  return Object.assign(f, { urls });
}

export type GatewayMode = "ok" | "fail" | "hang";

export interface LoopbackGateway {
  /** `127.0.0.1:<port>`, as targets() returns it. */
  target: string;
  mode: GatewayMode;
  /** Added before answering, in ms. */
  delayMs: number;
  requests: number;
  /** Resolves at the next request the gateway receives. */
  nextRequest(): Promise<void>;
  /** Closes the listener and every connection: probes get "connection refused". */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): void;
}

export function startGateway(mode: GatewayMode = "ok"): LoopbackGateway {
  let server: ReturnType<typeof Bun.serve> | undefined;
  const waiting: Array<() => void> = [];
  const gw: LoopbackGateway = {
    target: "",
    mode,
    delayMs: 0,
    requests: 0,
    nextRequest: () => new Promise<void>((resolve) => waiting.push(resolve)),
    async stop() {
      await server?.stop(true);
      server = undefined;
    },
    restart() {
      server = listen(port);
    },
  };
  const listen = (p: number) =>
    Bun.serve({
      hostname: "127.0.0.1",
      port: p,
      fetch: async (req, srv) => {
        gw.requests++;
        for (const w of waiting.splice(0)) w();
        srv.timeout(req, 0);
        if (gw.mode === "hang") return new Promise<Response>(() => {});
        if (gw.delayMs > 0) await Bun.sleep(gw.delayMs);
        const path = new URL(req.url).pathname;
        return gw.mode === "ok" && path === "/ready" ? new Response("ready\n") : new Response("not ready\n", { status: 500 });
      },
    });
  server = listen(0);
  const port = server.port!;
  gw.target = `127.0.0.1:${port}`;
  return gw;
}

/** Rejects after `ms` naming what was awaited — a guard against hangs, never a way to wait. */
export function within<T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}
