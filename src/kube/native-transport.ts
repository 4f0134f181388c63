// The transport for the kubeconfigs most clusters hand out — a CA, a bearer token (or token file) or a client certificate — built without
// client-node: importing it costs ≈170 ms and ≈40 MB of resident memory, more than half of an idle `mc serve`.
import type { Cluster, User } from "@kubernetes/client-node";
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { Transport } from "./transport.ts";

// It makes what client-node's KubeConfig.applyToFetchOptions makes for such users (an https.Agent with
// ca/cert/key, rejectUnauthorized and servername; the Authorization and Impersonate-User headers), so
// the path measured to work under Bun (node-fetch + https.Agent, BUN-NOTES.md) stays the same.
// Anything else — exec plugins, auth providers, proxies — goes through client-node (connect.ts).

/** Re-read at most this often: a token file rotates; files may be replaced. */
const REFRESH_MS = 10_000;

/** Can this user and cluster go without client-node? `tokenFileProvider` is connect.ts's own provider name. */
export function isNativeUser(cluster: Cluster, user: User, tokenFileProvider: string): boolean {
  return !user.exec && !cluster.proxyUrl && (user.authProvider === undefined || user.authProvider.name === tokenFileProvider);
}

const fileOrData = (file: string | undefined, data: string | undefined): Buffer | undefined =>
  file ? readFileSync(file) : data ? Buffer.from(data, "base64") : undefined;

/** A transport for `cluster` as `user` (see isNativeUser); `tokenFile` read as connect.ts reads it. */
export function nativeTransport(cluster: Cluster, user: User, tokenFile: (path: string) => string, forget: () => void): Transport {
  let cached: { at: number; value: { agent?: unknown; headers: Record<string, string> } } | undefined;
  const build = () => {
    const headers: Record<string, string> = {};
    const path = user.authProvider?.config?.path;
    const token = user.token ?? (path ? tokenFile(String(path)) : undefined);
    if (token) headers.authorization = `Bearer ${token}`;
    else if (user.username) headers.authorization = `Basic ${Buffer.from(`${user.username}:${user.password ?? ""}`).toString("base64")}`;
    if (user.impersonateUser != null) headers["impersonate-user"] = user.impersonateUser;
    if (cluster.server.startsWith("http:")) return { agent: new http.Agent(), headers };
    const agent = new https.Agent({
      ca: fileOrData(cluster.caFile, cluster.caData),
      cert: fileOrData(user.certFile, user.certData),
      key: fileOrData(user.keyFile, user.keyData),
      ...(cluster.skipTLSVerify && { rejectUnauthorized: false }),
      ...(cluster.tlsServerName && { servername: cluster.tlsServerName }),
    });
    return { agent, headers };
  };
  return {
    server: cluster.server,
    async fetchOptions() {
      if (cached && Date.now() - cached.at < REFRESH_MS) return cached.value;
      cached = { at: Date.now(), value: build() };
      return cached.value;
    },
    invalidate() {
      cached = undefined;
      forget();
    },
  };
}
