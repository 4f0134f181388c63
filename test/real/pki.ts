// The certificates and keys of one real test cluster, made with the openssl command line (P-256
// keys, one-day validity): a CA, the API server's serving certificate (loopback and the in-cluster
// names), an admin client certificate (group system:masters) and the service-account signing key.
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export interface ClusterPki {
  dir: string;
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  adminCert: string;
  adminKey: string;
  saKey: string;
  saPub: string;
}

async function openssl(args: string[], cwd: string): Promise<void> {
  const proc = Bun.spawn(["openssl", ...args], { cwd, stdout: "ignore", stderr: "pipe" });
  const err = await new Response(proc.stderr).text();
  if ((await proc.exited) !== 0) throw new Error(`openssl ${args[0]} failed: ${err.trim().split("\n").at(-1)}`);
}

const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1"];

export async function makePki(dir: string, cluster: string): Promise<ClusterPki> {
  mkdirSync(dir, { recursive: true });
  const p = (f: string) => join(dir, f);
  await openssl(["req", "-x509", ...EC, "-keyout", "ca.key", "-out", "ca.crt", "-subj", `/CN=mc-test-${cluster}-ca`], dir);
  const san =
    "subjectAltName=IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local";
  const leaf = (name: string, subj: string, ext: string[]) =>
    openssl(
      [
        "req",
        "-x509",
        ...EC,
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-keyout",
        `${name}.key`,
        "-out",
        `${name}.crt`,
        "-subj",
        subj,
        ...ext.flatMap((e) => ["-addext", e]),
      ],
      dir,
    );
  await Promise.all([
    leaf("apiserver", "/CN=kube-apiserver", [san, "extendedKeyUsage=serverAuth", "basicConstraints=critical,CA:FALSE"]),
    leaf("admin", "/O=system:masters/CN=kubernetes-admin", ["extendedKeyUsage=clientAuth", "basicConstraints=critical,CA:FALSE"]),
    openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "sa.key"], dir),
  ]);
  await openssl(["ec", "-in", "sa.key", "-pubout", "-out", "sa.pub"], dir);
  return {
    dir,
    caCert: p("ca.crt"),
    caKey: p("ca.key"),
    serverCert: p("apiserver.crt"),
    serverKey: p("apiserver.key"),
    adminCert: p("admin.crt"),
    adminKey: p("admin.key"),
    saKey: p("sa.key"),
    saPub: p("sa.pub"),
  };
}

/** A kubeconfig naming cluster, user and context `name`, with the admin certificate embedded. */
export async function adminKubeconfig(name: string, server: string, pki: ClusterPki): Promise<string> {
  const b64 = async (f: string) => Buffer.from(await Bun.file(f).arrayBuffer()).toString("base64");
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: ${name}`,
    "  cluster:",
    `    server: ${server}`,
    `    certificate-authority-data: ${await b64(pki.caCert)}`,
    "users:",
    `- name: ${name}`,
    "  user:",
    `    client-certificate-data: ${await b64(pki.adminCert)}`,
    `    client-key-data: ${await b64(pki.adminKey)}`,
    "contexts:",
    `- name: ${name}`,
    "  context:",
    `    cluster: ${name}`,
    `    user: ${name}`,
    `current-context: ${name}`,
    "",
  ].join("\n");
}
