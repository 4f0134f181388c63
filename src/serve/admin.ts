// The controller's admin HTTP server (Linkerd's pkg/admin, plus /live): `/metrics` in Prometheus text, `/ready` 200 `ok` once the process
// can do its job (else 500 `not ready`), `/live` 200 while the process serves, `/ping` → `pong`; anything else 404. Up from the first
// moment, whatever the clusters do, so a probe never kills a controller that is waiting.
import { UserError } from "../errors.ts";
import type { Metrics } from "../metrics.ts";

export interface AdminOptions {
  /** `host:port`; `:9999` listens on every interface of both families, port 0 picks a free one. */
  addr: string;
  metrics: Pick<Metrics, "registry">;
  ready: () => boolean;
  /** Default: always live. */
  live?: () => boolean;
}

export interface AdminServer {
  /** `http://host:port` as bound (the real port when 0 was asked). */
  url: string;
  hostname: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Parses `--admin-addr`: `:9999`, `127.0.0.1:0`, `[::1]:9999`, `localhost:9999`. No host is `::`,
 * dual-stack (Bun clears IPV6_V6ONLY), as Go's net.Listen(":9999"): an IPv6-only pod is probed too.
 */
export function parseAddr(addr: string): { hostname: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(addr.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || !(port >= 0 && port <= 65535)) {
    throw new UserError(`--admin-addr: must be host:port (e.g. :9999 or 127.0.0.1:0), got ${JSON.stringify(addr)}`);
  }
  return { hostname: m[1] ?? (m[2] || "::"), port };
}

export function startAdmin(o: AdminOptions): AdminServer {
  const parsed = parseAddr(o.addr);
  let hostname = parsed.hostname;
  const port = parsed.port;
  const text = (body: string, status = 200) => new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
  const listen = () =>
    Bun.serve({
      hostname,
      port,
      ipv6Only: false,
      async fetch(req) {
        const path = new URL(req.url).pathname;
        if (req.method !== "GET" && req.method !== "HEAD") return text("method not allowed\n", 405);
        switch (path) {
          case "/metrics":
            return new Response(await o.metrics.registry.metrics(), { headers: { "content-type": o.metrics.registry.contentType } });
          case "/ready":
            return o.ready() ? text("ok\n") : text("not ready\n", 500);
          case "/live":
            return (o.live?.() ?? true) ? text("ok\n") : text("not live\n", 500);
          case "/ping":
            return text("pong\n");
          default:
            return text("not found\n", 404);
        }
      },
    });
  let server: ReturnType<typeof Bun.serve>;
  try {
    try {
      server = listen();
    } catch (err) {
      // A kernel without IPv6 cannot open `::`: every interface is then IPv4's, as Go falls back.
      if (hostname !== "::" || (err as { code?: string }).code === "EADDRINUSE") throw err;
      hostname = "0.0.0.0";
      server = listen();
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    const why =
      code === "EADDRINUSE" ? "address already in use" : code === "EADDRNOTAVAIL" ? "address not available here" : "cannot listen";
    throw new UserError(`--admin-addr ${o.addr}: ${why}`);
  }
  const bound = server.port ?? port;
  const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
  return {
    url: `http://${shown}:${bound}`,
    hostname,
    port: bound,
    stop: async () => {
      await server.stop(true);
    },
  };
}
