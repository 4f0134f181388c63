// Certificates for `mc sandbox --tls`: a throwaway CA, a server certificate for the loopback addresses, and client certificates whose CN/O
// are the user and groups kube-apiserver would see. ECDSA P-256 keys made with WebCrypto (well under a millisecond each) and certificates
// built by @peculiar/x509.
import { isIP } from "node:net";

// Keys are PKCS#8 PEM ("PRIVATE KEY"), which Bun.serve, Node TLS, curl/OpenSSL and Go's
// tls.X509KeyPair (kubectl, client-go) all read. @peculiar/x509 needs the reflect-metadata polyfill
// and takes ~100 ms to load, so both are imported on first use: importing this module costs nothing.

export interface Pem {
  cert: string;
  key: string;
}

const ALG = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Validity starts an hour back so a client with a slightly slow clock accepts the certificate. */
const BACKDATE_MS = HOUR_MS;
const CA_DAYS = 3650;
const LEAF_DAYS = 365;

type X509 = typeof import("@peculiar/x509");
let x509Module: Promise<X509> | undefined;

function loadX509(): Promise<X509> {
  x509Module ??= (async () => {
    await import("reflect-metadata");
    const x509 = await import("@peculiar/x509");
    x509.cryptoProvider.set(crypto);
    return x509;
  })();
  return x509Module;
}

/** A self-signed CA certificate (CN=commonName) that may sign leaf certificates only. */
export async function makeCA(commonName: string): Promise<Pem> {
  const x509 = await loadX509();
  const keys = await crypto.subtle.generateKey(ALG, true, ["sign", "verify"]);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: [{ CN: [commonName] }],
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + CA_DAYS * DAY_MS),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: `${cert.toString("pem")}\n`, key: await privateKeyPem(x509, keys.privateKey) };
}

/**
 * A server certificate signed by `ca` for `hosts`: IP addresses ("127.0.0.1", "::1") become IP
 * SANs, names ("localhost") DNS SANs; extended key usage serverAuth. CN is the first host.
 */
export async function makeServerCert(ca: Pem, hosts: string[]): Promise<Pem> {
  if (hosts.length === 0) throw new Error("makeServerCert: at least one host is needed");
  const x509 = await loadX509();
  const sans = hosts.map((h) => {
    const host = h.replace(/^\[(.*)\]$/, "$1");
    return isIP(host) ? { type: "ip" as const, value: host } : { type: "dns" as const, value: host };
  });
  return signLeaf(x509, ca, [{ CN: [hosts[0]!] }], x509.ExtendedKeyUsage.serverAuth, [
    new x509.SubjectAlternativeNameExtension(sans, false),
  ]);
}

/**
 * A client certificate signed by `ca` for `user` in `groups`: CN=user and one O per group, which
 * kube-apiserver reads as the user name and groups; extended key usage clientAuth.
 */
export async function makeClientCert(ca: Pem, user: string, groups: string[]): Promise<Pem> {
  const x509 = await loadX509();
  const name = [...groups.map((g) => ({ O: [g] })), { CN: [user] }];
  return signLeaf(x509, ca, name, x509.ExtendedKeyUsage.clientAuth, []);
}

async function signLeaf(
  x509: X509,
  ca: Pem,
  subject: Record<string, string[]>[],
  usage: string,
  extra: InstanceType<X509["Extension"]>[],
): Promise<Pem> {
  const caCert = new x509.X509Certificate(ca.cert);
  const caKey = await importPrivateKey(x509, ca.key);
  const keys = await crypto.subtle.generateKey(ALG, true, ["sign", "verify"]);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject,
    issuer: caCert.subject,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(Math.min(now + LEAF_DAYS * DAY_MS, caCert.notAfter.getTime())),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([usage], false),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caCert, false),
      ...extra,
    ],
  });
  return { cert: `${cert.toString("pem")}\n`, key: await privateKeyPem(x509, keys.privateKey) };
}

/** 16 random bytes, high bit clear (a positive serial, as RFC 5280 and Go require). */
function serialNumber(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return Buffer.from(bytes).toString("hex");
}

async function privateKeyPem(x509: X509, key: CryptoKey): Promise<string> {
  const der = await crypto.subtle.exportKey("pkcs8", key);
  return `${x509.PemConverter.encode(der, "PRIVATE KEY")}\n`;
}

async function importPrivateKey(x509: X509, pem: string): Promise<CryptoKey> {
  if (!pem.includes("-----BEGIN PRIVATE KEY-----")) {
    throw new Error('the CA key must be a PKCS#8 PEM ("BEGIN PRIVATE KEY") ECDSA P-256 key, as makeCA writes');
  }
  const der = x509.PemConverter.decodeFirst(pem);
  return crypto.subtle.importKey("pkcs8", der, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
}
