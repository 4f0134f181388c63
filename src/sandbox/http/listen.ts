// The sandbox's listeners. Plain http serves directly; TLS goes through a front (tls-front.ts)
// that checks client certificates and routes each connection to the loopback listener that
// knows whether one was verified.
import { handle, type HandlerContext } from "./server.ts";
import type { Pem } from "./tls.ts";
import { startTlsFront } from "./tls-front.ts";

export interface Listening {
  /** The port clients connect to (the TLS front's, or the plain listener's). */
  port: number;
  stop(): Promise<void>;
}

export async function listen(opts: {
  host: string;
  /** 0 = any free port. */
  port: number;
  /** Both or neither: serve TLS with this certificate, verifying client certificates against `ca`. */
  tls?: { ca: Pem; serverCert: Pem };
  /** Everything a request needs but whether its connection presented a verified certificate. */
  context: Omit<HandlerContext, "certVerified" | "keepOpen">;
}): Promise<Listening> {
  const serve = (hostname: string, port: number, certVerified: boolean) =>
    Bun.serve({
      hostname,
      port,
      idleTimeout: 60,
      fetch: (req, srv) => handle({ ...opts.context, certVerified, keepOpen: (r) => srv.timeout(r, 0) }, req),
    });
  const servers = opts.tls ? [serve("127.0.0.1", 0, true), serve("127.0.0.1", 0, false)] : [serve(opts.host, opts.port, false)];
  const front = opts.tls
    ? await startTlsFront({
        host: opts.host,
        port: opts.port,
        serverCert: opts.tls.serverCert,
        ca: opts.tls.ca,
        certPort: servers[0]!.port!,
        tokenPort: servers[1]!.port!,
      })
    : undefined;
  return {
    port: front?.port ?? servers[0]!.port!,
    stop: async () => {
      await front?.stop();
      await Promise.all(servers.map((s) => s.stop(true)));
    },
  };
}
