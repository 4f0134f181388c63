// The sandbox's listeners. Plain http serves directly; TLS goes through a front (tls-front.ts)
// that checks client certificates and routes each connection to the Unix-socket listener that
// knows whether one was verified.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
  const serve = (where: { hostname: string; port: number } | { unix: string }, certVerified: boolean) =>
    Bun.serve({
      ...where,
      // Bun's types allow idleTimeout on a port only; it holds on a Unix socket too.
      ...({ idleTimeout: 60 } as object),
      fetch: (req, srv) => handle({ ...opts.context, certVerified, keepOpen: (r) => srv.timeout(r, 0) }, req),
    });
  if (!opts.tls) {
    const server = serve({ hostname: opts.host, port: opts.port }, false);
    return { port: server.port!, stop: () => server.stop(true) };
  }
  // The two listeners behind the front are Unix sockets in a directory only this user may enter: cheaper
  // than loopback TCP for every byte relayed, and no other local user can reach the certificate listener.
  const dir = mkdtempSync(join(tmpdir(), "mc-sandbox-"));
  const certSocket = join(dir, "cert.sock");
  const tokenSocket = join(dir, "token.sock");
  const servers = [serve({ unix: certSocket }, true), serve({ unix: tokenSocket }, false)];
  const front = await startTlsFront({
    host: opts.host,
    port: opts.port,
    serverCert: opts.tls.serverCert,
    ca: opts.tls.ca,
    certSocket,
    tokenSocket,
  }).catch((err) => {
    for (const s of servers) s.stop(true);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  return {
    port: front.port,
    stop: async () => {
      await front.stop();
      await Promise.all(servers.map((s) => s.stop(true)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
