// The sandbox's TLS: its certificates and connections over them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import https from "node:https";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeCA, makeClientCert, makeServerCert, type Pem } from "../../../src/sandbox/http/tls.ts";
import { hasKubectl, needsKubectl, kubectlFor } from "../../helpers/kubectl.ts";

const hasCurl = Bun.which("curl") !== null;
const hasOpenssl = Bun.which("openssl") !== null;
const VERSION = { major: "1", minor: "32", gitVersion: "v1.32.0" };

let ca: Pem;
let server: Pem;
let client: Pem;
let dir: string;
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mc-tls-"));
  ca = await makeCA("mc-sandbox-ca");
  server = await makeServerCert(ca, ["127.0.0.1", "localhost", "::1"]);
  client = await makeClientCert(ca, "alice", ["system:masters", "dev"]);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A TLS server on 127.0.0.1 answering /version, optionally insisting on a client certificate. */
function serve(rejectUnauthorized = false) {
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: server.cert, key: server.key, ca: ca.cert, requestCert: true, rejectUnauthorized },
    fetch: (req) => (new URL(req.url).pathname === "/version" ? Response.json(VERSION) : new Response("hello")),
  });
}

describe("certificates", () => {
  test("the CA is a self-signed CA and signs the server and client certificates", () => {
    const caCert = new X509Certificate(ca.cert);
    expect(caCert.ca).toBe(true);
    expect(caCert.subject).toBe("CN=mc-sandbox-ca");
    expect(caCert.verify(caCert.publicKey)).toBe(true);
    for (const pem of [server.cert, client.cert]) {
      const leaf = new X509Certificate(pem);
      expect(leaf.ca).toBe(false);
      expect(leaf.checkIssued(caCert)).toBe(true);
      expect(leaf.verify(caCert.publicKey)).toBe(true);
    }
  });

  test("the server certificate names IPs as IP SANs and names as DNS SANs", () => {
    const leaf = new X509Certificate(server.cert);
    expect(leaf.subjectAltName).toBe("IP Address:127.0.0.1, DNS:localhost, IP Address:0:0:0:0:0:0:0:1");
    expect(leaf.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(leaf.checkHost("localhost")).toBe("localhost");
    expect(leaf.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1"]); // serverAuth
  });

  test("the client certificate carries the user as CN and each group as O, for clientAuth", () => {
    const leaf = new X509Certificate(client.cert);
    expect(leaf.subject.split("\n")).toEqual(["O=system:masters", "O=dev", "CN=alice"]);
    expect(leaf.keyUsage).toEqual(["1.3.6.1.5.5.7.3.2"]); // clientAuth
  });

  test("keys are PKCS#8 PEM", () => {
    for (const pem of [ca, server, client]) expect(pem.key).toStartWith("-----BEGIN PRIVATE KEY-----\n");
  });

  test.skipIf(!hasOpenssl)("openssl verifies both leaf certificates against the CA", async () => {
    const proc = Bun.spawn(
      ["openssl", "verify", "-CAfile", file("ca.pem", ca.cert), file("server.pem", server.cert), file("client.pem", client.cert)],
      { stdout: "pipe", stderr: "pipe" },
    );
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    expect(out).toContain("server.pem: OK");
    expect(out).toContain("client.pem: OK");
  });

  test("a second CA's certificates are not trusted by the first", async () => {
    const other = await makeCA("other");
    const leaf = new X509Certificate((await makeServerCert(other, ["127.0.0.1"])).cert);
    expect(leaf.verify(new X509Certificate(ca.cert).publicKey)).toBe(false);
  });
});

describe("TLS connections", () => {
  test("Bun fetch trusting the CA reaches Bun.serve over https on 127.0.0.1 and localhost", async () => {
    using srv = serve();
    for (const host of ["127.0.0.1", "localhost"]) {
      const res = await fetch(`https://${host}:${srv.port}/version`, { tls: { ca: ca.cert } });
      expect(await res.json()).toEqual(VERSION);
    }
  });

  test("Bun fetch without the CA is refused", async () => {
    using srv = serve();
    await expect(fetch(`https://127.0.0.1:${srv.port}/version`)).rejects.toThrow();
  });

  test("Bun fetch and node:https with the client certificate reach a server that requires one", async () => {
    using srv = serve(true);
    const res = await fetch(`https://127.0.0.1:${srv.port}/`, { tls: { ca: ca.cert, cert: client.cert, key: client.key } });
    expect(await res.text()).toBe("hello");
    // client-node 1.4.0's path: an https.Agent with ca, cert and key.
    const agent = new https.Agent({ ca: ca.cert, cert: client.cert, key: client.key });
    const body = await new Promise<string>((resolve, reject) => {
      https
        .get(`https://localhost:${srv.port}/`, { agent }, (r) => {
          let text = "";
          r.on("data", (c) => (text += c));
          r.on("end", () => resolve(text));
        })
        .on("error", reject);
    });
    expect(body).toBe("hello");
  });

  test.skipIf(!hasCurl)("curl with --cacert and our client certificate reaches a server that requires one", async () => {
    using srv = serve(true);
    const curl = (extra: string[]) => {
      const proc = Bun.spawn(["curl", "-sS", "--cacert", file("ca.pem", ca.cert), ...extra, `https://127.0.0.1:${srv.port}/`], {
        stdout: "pipe",
        stderr: "pipe",
      });
      return Promise.all([new Response(proc.stdout).text(), proc.exited]);
    };
    const [body, code] = await curl(["--cert", file("client.pem", client.cert), "--key", file("client.key", client.key)]);
    expect(code).toBe(0);
    expect(body).toBe("hello");
    const [, noCertCode] = await curl([]);
    expect(noCertCode).not.toBe(0);
  });

  const kubectlName = "kubectl accepts the CA and the client certificate and key from kubeconfig data fields";
  test.skipIf(!hasKubectl)(hasKubectl ? kubectlName : needsKubectl(kubectlName), async () => {
    using srv = serve(true);
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    const kubeconfig = [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "- name: sandbox",
      "  cluster:",
      `    server: https://127.0.0.1:${srv.port}`,
      `    certificate-authority-data: ${b64(ca.cert)}`,
      "users:",
      "- name: alice",
      "  user:",
      `    client-certificate-data: ${b64(client.cert)}`,
      `    client-key-data: ${b64(client.key)}`,
      "contexts:",
      "- name: sandbox",
      "  context: {cluster: sandbox, user: alice}",
      "current-context: sandbox",
      "",
    ].join("\n");
    const kubectl = kubectlFor(kubeconfig);
    const res = await kubectl(["version", "-o", "json"]);
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).serverVersion).toMatchObject(VERSION);
    // The DNS SAN works for Go too.
    const byName = await kubectl(["version", "-o", "json", "--server", `https://localhost:${srv.port}`]);
    expect(byName.code).toBe(0);
  });
});
