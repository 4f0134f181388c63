// TLS in front of the sandbox's Bun.serve listeners, on Bun's native sockets.
import type { Socket, TCPSocketListener } from "bun";
import type { Pem } from "./tls.ts";

// Bun.serve verifies client certificates but does not tell a handler whether a request came with one
// (oven-sh/bun#14097, oven-sh/bun#16254), so a Bun TLS listener terminates TLS, reads whether the peer
// presented a certificate the sandbox CA signed (`authorized` after the handshake), and relays each
// connection to one of two Unix-socket listeners: one for certificate-authenticated connections, one
// where a bearer token is required. Bytes are relayed as they come (no node streams), with backpressure.

export interface TlsFront {
  port: number;
  stop(): Promise<void>;
}

/** One direction of a relay: bytes the destination did not take yet, in order. */
interface Relay {
  /** The other end (absent until the upstream connection opens). */
  peer?: Socket<Relay>;
  /** Bytes for this socket it did not take yet, and bytes for the peer before it was connected. */
  backlog: Uint8Array[];
  early: Uint8Array[];
  ended: boolean;
  /** Cancels the handshake deadline (client sockets only). */
  deadline?: ReturnType<typeof setTimeout>;
}

/** Writes `chunk` (after anything still waiting) to `to`; false when `to` keeps a backlog and its source should pause. */
function send(to: Socket<Relay>, chunk: Uint8Array): boolean {
  const backlog = to.data.backlog;
  // A chunk is the reader's only during its callback: what waits is a copy.
  if (backlog.length > 0) return (void backlog.push(chunk.slice()), false);
  const n = to.write(chunk);
  if (n < 0 || n === chunk.byteLength) return true; // written, or closed (its close handler ends the other side)
  backlog.push(chunk.slice(n));
  return false;
}

/** `to` can take more: writes what waits, then lets its peer read again. */
function drain(to: Socket<Relay>): void {
  const backlog = to.data.backlog;
  while (backlog.length > 0) {
    const chunk = backlog[0]!;
    const n = to.write(chunk);
    if (n < 0) return;
    if (n < chunk.byteLength) return void (backlog[0] = chunk.subarray(n));
    backlog.shift();
  }
  if (to.data.ended) to.end();
  else to.data.peer?.resume();
}

function relay(from: Socket<Relay>, chunk: Uint8Array): void {
  const peer = from.data.peer;
  if (!peer) from.data.early.push(chunk.slice());
  else if (!send(peer, chunk)) from.pause();
}

/** The other side is gone: `to` ends once what waits for it is written. */
function endAfterBacklog(to: Socket<Relay> | undefined): void {
  if (!to || to.data.ended) return;
  to.data.ended = true;
  if (to.data.backlog.length === 0) to.end();
}

const fresh = (): Relay => ({ backlog: [], early: [], ended: false });

/**
 * How long a connection may take to finish its TLS handshake: kube-apiserver's, whose http.Server
 * (ReadHeaderTimeout 32 s) bounds a handshake by it. A client that connects and says nothing is dropped.
 */
export const HANDSHAKE_TIMEOUT_MS = 32_000;

export async function startTlsFront(opts: {
  host: string;
  port: number;
  serverCert: Pem;
  ca: Pem;
  /** Unix-socket paths of the two listeners. */
  certSocket: string;
  tokenSocket: string;
  /** Default HANDSHAKE_TIMEOUT_MS. */
  handshakeTimeoutMs?: number;
}): Promise<TlsFront> {
  const handshakeTimeoutMs = opts.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS;
  const open = new Set<Socket<Relay>>();
  const upstreamHandlers = {
    open(up: Socket<Relay>) {
      open.add(up);
    },
    data: relay,
    drain,
    close(up: Socket<Relay>) {
      open.delete(up);
      endAfterBacklog(up.data.peer);
    },
    error() {
      // a close follows
    },
  };
  const listener: TCPSocketListener<Relay> = Bun.listen<Relay>({
    hostname: opts.host,
    port: opts.port,
    tls: { key: opts.serverCert.key, cert: opts.serverCert.cert, ca: opts.ca.cert, requestCert: true, rejectUnauthorized: false },
    socket: {
      open(client) {
        client.data = fresh();
        client.data.deadline = setTimeout(() => client.terminate(), handshakeTimeoutMs);
        open.add(client);
      },
      async handshake(client, success) {
        clearTimeout(client.data.deadline);
        // A client that does not trust the CA, or speaks plain HTTP: nothing to serve.
        if (!success) return void client.end();
        const unix = client.authorized ? opts.certSocket : opts.tokenSocket;
        try {
          const up = await Bun.connect<Relay>({ unix, socket: upstreamHandlers, data: { ...fresh(), peer: client } });
          if (client.data.ended) return void up.end();
          client.data.peer = up;
          for (const chunk of client.data.early.splice(0)) relay(client, chunk);
        } catch {
          client.end();
        }
      },
      data: relay,
      drain,
      close(client) {
        clearTimeout(client.data.deadline);
        open.delete(client);
        client.data.ended = true;
        endAfterBacklog(client.data.peer);
      },
      error() {
        // a close follows
      },
    },
  });
  return {
    port: listener.port,
    stop: async () => {
      listener.stop(true);
      for (const s of open) s.terminate();
    },
  };
}
