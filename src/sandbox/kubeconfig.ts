// Writes the kubeconfig a sandbox hands to kubectl and client-node: cluster, user and context
// all named after the sandbox, current-context set.
import YAML from "yaml";

export interface KubeconfigOptions {
  name: string;
  server: string;
  /** Bearer token (TLS sandboxes). */
  token?: string;
  /** CA certificate PEM (TLS sandboxes); plain http gets insecure-skip-tls-verify. */
  caPem?: string;
  /** Client certificate and key PEM, for mTLS instead of (or with) a token. */
  clientCert?: { cert: string; key: string };
  /** A second user and context `<name>-cert` that authenticate with this client certificate. */
  certContext?: { cert: string; key: string };
}

const b64 = (s: string) => Buffer.from(s).toString("base64");

export function writeKubeconfig(o: KubeconfigOptions): string {
  const cluster: Record<string, unknown> = { server: o.server };
  if (o.caPem) cluster["certificate-authority-data"] = b64(o.caPem);
  // client-node refuses http:// servers unless TLS verification is marked as skipped.
  else cluster["insecure-skip-tls-verify"] = true;
  const user: Record<string, unknown> = {};
  if (o.token) user.token = o.token;
  if (o.clientCert) {
    user["client-certificate-data"] = b64(o.clientCert.cert);
    user["client-key-data"] = b64(o.clientCert.key);
  }
  const users = [{ name: o.name, user }];
  const contexts = [{ name: o.name, context: { cluster: o.name, user: o.name } }];
  if (o.certContext) {
    const certUser = `${o.name}-cert`;
    users.push({ name: certUser, user: { "client-certificate-data": b64(o.certContext.cert), "client-key-data": b64(o.certContext.key) } });
    contexts.push({ name: certUser, context: { cluster: o.name, user: certUser } });
  }
  return YAML.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: o.name, cluster }],
    users,
    contexts,
    "current-context": o.name,
    preferences: {},
  });
}
