// TLS in front of the sandbox's Bun.serve listeners.
import { connect, type Socket } from "node:net";
import { createServer, type Server, type TLSSocket } from "node:tls";
import type { Pem } from "./tls.ts";

// Bun.serve verifies client certificates but does not tell a handler whether a request came with one
// (oven-sh/bun#14097, oven-sh/bun#16254), so a node:tls server terminates TLS, checks the peer
// certificate against the sandbox CA, and pipes each connection to one of two loopback listeners: one
// for certificate-authenticated connections, one where a bearer token is required.

export interface TlsFront {
  port: number;
  stop(): Promise<void>;
}

export async function startTlsFront(opts: {
  host: string;
  port: number;
  serverCert: Pem;
  ca: Pem;
  /** Plain-HTTP loopback ports of the two listeners. */
  certPort: number;
  tokenPort: number;
}): Promise<TlsFront> {
  const sockets = new Set<Socket>();
  const server: Server = createServer(
    { key: opts.serverCert.key, cert: opts.serverCert.cert, ca: opts.ca.cert, requestCert: true, rejectUnauthorized: false },
    (client: TLSSocket) => {
      const target = client.authorized ? opts.certPort : opts.tokenPort;
      const upstream = connect(target, "127.0.0.1");
      sockets.add(client).add(upstream);
      const end = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on("error", end).on("close", end);
      upstream.on("error", end).on("close", end);
      client.pipe(upstream);
      upstream.pipe(client);
    },
  );
  server.on("tlsClientError", () => {
    // a client that does not trust the CA, or speaks plain HTTP: nothing to serve
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : opts.port;
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
