// The TLS front drops a connection that does not finish its TLS handshake in time (kube-apiserver's bound is 32 s), and leaves alone
// one that did, however long it then stays quiet.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HANDSHAKE_TIMEOUT_MS, startTlsFront, type TlsFront } from "../../../src/sandbox/http/tls-front.ts";
import { makeCA, makeServerCert, type Pem } from "../../../src/sandbox/http/tls.ts";

const TIMEOUT_MS = 300;
let dir: string;
let ca: Pem;
let front: TlsFront;
let upstream: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mc-front-"));
  ca = await makeCA("front-ca");
  const sock = join(dir, "up.sock");
  upstream = Bun.serve({ unix: sock, fetch: () => new Response("up") });
  front = await startTlsFront({
    host: "127.0.0.1",
    port: 0,
    serverCert: await makeServerCert(ca, ["127.0.0.1", "localhost"]),
    ca,
    certSocket: sock,
    tokenSocket: sock,
    handshakeTimeoutMs: TIMEOUT_MS,
  });
});

afterAll(async () => {
  await front?.stop();
  upstream?.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

/** A plain TCP connection to the front that sends nothing; resolves when the front closes it, with how long that took. */
function silentConnection(): Promise<number> {
  return new Promise((resolve, reject) => {
    const opened = performance.now();
    Bun.connect({
      hostname: "127.0.0.1",
      port: front.port,
      socket: { data() {}, close: () => resolve(performance.now() - opened), error: (_s, err) => reject(err) },
    }).catch(reject);
  });
}

test("the default handshake bound is kube-apiserver's 32 s", () => {
  expect(HANDSHAKE_TIMEOUT_MS).toBe(32_000);
});

test("a connection that never starts its TLS handshake is closed once the bound passes, not before", async () => {
  const ms = await silentConnection();
  expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
});

test("a connection that finished its handshake stays open past the bound and still serves", async () => {
  // One TLS connection held open: its handshake done, two silent connections opened after it are closed by the
  // bound (events, not sleeps), and a request on the first connection is then still answered on it.
  let received = "";
  let closed = false;
  let answered: () => void = () => {};
  const answer = new Promise<void>((r) => (answered = r));
  const handshook = Promise.withResolvers<boolean>();
  const held = await Bun.connect({
    hostname: "127.0.0.1",
    port: front.port,
    tls: { ca: ca.cert, serverName: "localhost" },
    socket: {
      handshake: (_s, ok) => handshook.resolve(ok),
      data(_s, chunk) {
        received += new TextDecoder().decode(chunk);
        if (received.endsWith("up")) answered();
      },
      close() {
        closed = true;
        answered();
      },
    },
  });
  expect(await handshook.promise).toBe(true);
  await silentConnection();
  await silentConnection();
  expect(closed).toBe(false);
  held.write("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
  await answer;
  expect(closed).toBe(false);
  expect(received).toStartWith("HTTP/1.1 200");
  held.end();
});
