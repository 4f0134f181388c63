// connect: a KubeClient from --kubeconfig/--context, KUBECONFIG (merged like kubectl), ~/.kube/config, the in-cluster service account, or a
// kubeconfig held in a Secret. Every problem is one UserError line naming the source and what is wrong — never a stack, never a credential.
import type { Cluster, Context, KubeConfig, User } from "@kubernetes/client-node";
import { X509Certificate } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { UserError } from "../errors.ts";
import { KUBECONFIG_DATA_KEY, REMOTE_KUBECONFIG_SECRET_TYPE } from "../model/labels.ts";
import { KubeClient } from "./client.ts";
import { KubeError } from "./kube-error.ts";
import { mergeKubeconfigs, parseKubeconfig, selectContext, type Kubeconfig, type SelectedContext } from "./kubeconfig.ts";
import { isNativeUser, nativeTransport } from "./native-transport.ts";
import { resources } from "./resources.ts";
import type { Transport } from "./transport.ts";

// A CA, a token (file) or a client certificate need no client-node (native-transport.ts); for anything
// else (exec plugins, auth providers, proxies) it is loaded here, lazily (≈170 ms, ≈40 MB), and only
// to build TLS agents and auth.

export { REMOTE_KUBECONFIG_SECRET_TYPE };
const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

export interface ConnectOptions {
  /** `--kubeconfig`: one file; wins over KUBECONFIG. */
  kubeconfig?: string;
  /** `--context`; default: the current-context. */
  context?: string;
  /** `-n`: overrides the context's namespace. */
  namespace?: string;
  /** Name used in messages (`… on east`); default: the context name. */
  name?: string;
  /** Default: process.env (KUBECONFIG, HOME, KUBERNETES_SERVICE_HOST/PORT). */
  env?: Record<string, string | undefined>;
  /** In-cluster credentials directory; default the service account mount. */
  serviceAccountDir?: string;
  /** Per-request timeout; default 30 s. */
  timeoutMs?: number;
}

export type SecretConnectOptions = Pick<ConnectOptions, "context" | "namespace" | "name" | "timeoutMs">;

/** Connects the way kubectl would: --kubeconfig, else KUBECONFIG, else ~/.kube/config, else in-cluster. */
export async function connect(opts: ConnectOptions = {}): Promise<KubeClient> {
  const env = opts.env ?? process.env;
  const loaded = loadKubeconfig(opts, env);
  if (loaded) return connectSelected(selectContext(loaded.config, loaded.source, opts.context), loaded.source, opts);
  if (env.KUBERNETES_SERVICE_HOST) return connectInCluster(opts);
  throw new UserError("no kubeconfig found; pass --kubeconfig, set KUBECONFIG, or create ~/.kube/config");
}

/** Connects with kubeconfig text already in hand; `source` names it in errors. */
export function connectKubeconfigText(text: string, source: string, opts: SecretConnectOptions = {}): Promise<KubeClient> {
  const config = parseKubeconfig(text, source);
  return connectSelected(selectContext(config, source, opts.context), source, opts);
}

/** Connects with the pod's service account (token, CA and namespace files; KUBERNETES_SERVICE_HOST/PORT). */
export function connectInCluster(opts: ConnectOptions = {}): Promise<KubeClient> {
  const env = opts.env ?? process.env;
  const dir = opts.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const source = "in-cluster config";
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT || "443";
  if (!host) throw new UserError(`${source}: KUBERNETES_SERVICE_HOST is not set (not running in a pod?)`);
  const token = join(dir, "token");
  checkFile(token, `${source}: service account token`);
  const namespace = readOptional(join(dir, "namespace"))?.trim() || "default";
  const selected: SelectedContext = {
    context: "in-cluster",
    clusterName: "in-cluster",
    cluster: { server: `https://${host.includes(":") ? `[${host}]` : host}:${port}`, "certificate-authority": join(dir, "ca.crt") },
    userName: "service-account",
    user: { tokenFile: token },
    namespace,
  };
  return connectSelected(selected, source, opts);
}

/**
 * Connects with the kubeconfig in a credentials Secret (`type: mirror.linkerd.io/remote-kubeconfig`,
 * `data.kubeconfig`), read through `client`. Transient read failures stay KubeErrors (retry them);
 * everything else is a UserError.
 */
export async function connectFromSecret(
  client: KubeClient,
  namespace: string,
  name: string,
  opts: SecretConnectOptions = {},
): Promise<KubeClient> {
  const where = `Secret ${namespace}/${name} on ${client.cluster}`;
  let secret: { type?: string; data?: Record<string, string> | null };
  try {
    secret = await client.get(resources.secret, namespace, name);
  } catch (err) {
    if (!(err instanceof KubeError) || err.isRetryable) throw err;
    throw new UserError(`${where}: ${err.isNotFound ? "not found" : `cannot be read (${err.code} ${err.reason})`}`);
  }
  if (secret.type !== REMOTE_KUBECONFIG_SECRET_TYPE) {
    throw new UserError(`${where}: type is "${secret.type ?? ""}", want ${REMOTE_KUBECONFIG_SECRET_TYPE}`);
  }
  const data = secret.data?.[KUBECONFIG_DATA_KEY];
  if (!data) throw new UserError(`${where}: has no data.${KUBECONFIG_DATA_KEY}`);
  if (!isBase64(data)) throw new UserError(`${where}: data.${KUBECONFIG_DATA_KEY} is not base64`);
  const text = Buffer.from(data, "base64").toString("utf8");
  return connectKubeconfigText(text, `kubeconfig in ${where}`, opts);
}

interface LoadedKubeconfig {
  config: Kubeconfig;
  source: string;
}

/** Reads the kubeconfig kubectl would use; undefined when there is none (then in-cluster applies). */
export function loadKubeconfig(
  opts: Pick<ConnectOptions, "kubeconfig">,
  env: Record<string, string | undefined>,
): LoadedKubeconfig | undefined {
  if (opts.kubeconfig) {
    const path = resolve(opts.kubeconfig);
    return { config: readKubeconfigFile(path, `kubeconfig ${opts.kubeconfig}`), source: `kubeconfig ${opts.kubeconfig}` };
  }
  const list = (env.KUBECONFIG ?? "").split(delimiter).filter(Boolean);
  if (list.length > 0) {
    // kubectl skips listed files that do not exist; if none exist there is nothing to use.
    const present = list.filter((p) => exists(p));
    const source = list.length === 1 ? `kubeconfig ${list[0]}` : `KUBECONFIG ${list.join(delimiter)}`;
    if (present.length === 0) throw new UserError(`${source}: no such file`);
    const configs = present.map((p) => readKubeconfigFile(resolve(p), `kubeconfig ${p}`));
    return { config: mergeKubeconfigs(configs), source };
  }
  const home = env.HOME || homedir();
  const fallback = join(home, ".kube", "config");
  if (exists(fallback)) return { config: readKubeconfigFile(fallback, `kubeconfig ${fallback}`), source: `kubeconfig ${fallback}` };
  return undefined;
}

function readKubeconfigFile(path: string, source: string): Kubeconfig {
  return parseKubeconfig(readText(path, source), source, dirname(path));
}

async function connectSelected(
  sel: SelectedContext,
  source: string,
  opts: Pick<ConnectOptions, "namespace" | "name" | "timeoutMs">,
): Promise<KubeClient> {
  const { cluster, user } = toClientNode(sel, source);
  const name = opts.name ?? sel.context;
  const namespace = opts.namespace || sel.namespace;
  if (isNativeUser(cluster, user, TOKEN_FILE_PROVIDER)) {
    return new KubeClient(
      name,
      namespace,
      nativeTransport(cluster, user, readTokenFile, () => tokenCache.clear()),
      opts.timeoutMs,
    );
  }
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  kc.addAuthenticator(tokenFileAuth);
  const context: Context = { name: sel.context, cluster: cluster.name, user: user.name, namespace: sel.namespace };
  kc.loadFromOptions({ clusters: [cluster], users: [user], contexts: [context], currentContext: context.name });
  return new KubeClient(name, namespace, transportFor(kc, cluster.server), opts.timeoutMs);
}

/** Checks the selected entries (files exist, data is base64, key with cert) and maps them to client-node's shapes. */
function toClientNode(sel: SelectedContext, source: string): { cluster: Cluster; user: User } {
  const c = sel.cluster;
  const u = sel.user;
  const clusterWhere = `${source}: cluster "${sel.clusterName}"`;
  const userWhere = `${source}: user "${sel.userName ?? ""}"`;
  if (c["certificate-authority"]) {
    checkFile(c["certificate-authority"], `${clusterWhere} certificate-authority`);
    checkCertificate(
      readText(c["certificate-authority"], `${clusterWhere} certificate-authority ${c["certificate-authority"]}`),
      `${clusterWhere} certificate-authority ${c["certificate-authority"]}`,
      "the file",
    );
  }
  checkBase64(c["certificate-authority-data"], `${clusterWhere} certificate-authority-data`);
  if (c["certificate-authority-data"])
    checkCertificate(
      Buffer.from(c["certificate-authority-data"], "base64").toString("latin1"),
      `${clusterWhere} certificate-authority-data`,
      "base64 of",
    );
  if (u["client-certificate"]) checkFile(u["client-certificate"], `${userWhere} client-certificate`);
  if (u["client-key"]) checkFile(u["client-key"], `${userWhere} client-key`);
  if (u.tokenFile) checkFile(u.tokenFile, `${userWhere} tokenFile`);
  checkBase64(u["client-certificate-data"], `${userWhere} client-certificate-data`);
  checkBase64(u["client-key-data"], `${userWhere} client-key-data`);
  const hasCert = Boolean(u["client-certificate"] || u["client-certificate-data"]);
  const hasKey = Boolean(u["client-key"] || u["client-key-data"]);
  if (hasCert !== hasKey) throw new UserError(`${userWhere} has a client ${hasCert ? "certificate but no key" : "key but no certificate"}`);
  const server = c.server.replace(/\/+$/, "");
  const cluster: Cluster = {
    name: sel.clusterName,
    server,
    caData: c["certificate-authority-data"] ?? undefined,
    caFile: c["certificate-authority"] ?? undefined,
    // kubectl talks to http:// servers without the flag; client-node refuses unless it is set.
    skipTLSVerify: c["insecure-skip-tls-verify"] === true || server.startsWith("http:"),
    tlsServerName: c["tls-server-name"] ?? undefined,
    proxyUrl: c["proxy-url"] ?? undefined,
  };
  const tokenFile = u.tokenFile && !u.token && !u.exec && !u["auth-provider"] ? u.tokenFile : undefined;
  const user: User = {
    name: sel.userName ?? "mc-user",
    token: u.token ?? undefined,
    certData: u["client-certificate-data"] ?? undefined,
    certFile: u["client-certificate"] ?? undefined,
    keyData: u["client-key-data"] ?? undefined,
    keyFile: u["client-key"] ?? undefined,
    username: u.username ?? undefined,
    password: u.password ?? undefined,
    impersonateUser: u.as ?? undefined,
    exec: u.exec ?? undefined,
    authProvider: tokenFile ? { name: TOKEN_FILE_PROVIDER, config: { path: tokenFile } } : (u["auth-provider"] ?? undefined),
  };
  return { cluster, user };
}

const TOKEN_FILE_PROVIDER = "mc-token-file";

/** Reads a token file (kubeconfig `tokenFile`, the service account token), trimmed, re-read each minute as it rotates. */
function readTokenFile(path: string): string {
  const now = Date.now();
  let entry = tokenCache.get(path);
  if (!entry || now - entry.at > 60_000) {
    entry = { at: now, token: readFileSync(path, "utf8").trim() };
    tokenCache.set(path, entry);
  }
  return entry.token;
}
const tokenCache = new Map<string, { at: number; token: string }>();

/** The token file for client-node (a user that also needs client-node for something else). */
const tokenFileAuth: Parameters<KubeConfig["addAuthenticator"]>[0] = {
  isAuthProvider: (user) => user.authProvider?.name === TOKEN_FILE_PROVIDER,
  async applyAuthentication(user, opts) {
    const token = readTokenFile(String(user.authProvider?.config?.path ?? ""));
    const headers = (opts.headers ??= {}) as Record<string, string>;
    if (token) headers.Authorization = `Bearer ${token}`;
  },
};

/** The agent and auth headers from client-node, reused for a few seconds (building them reads files). */
function transportFor(kc: KubeConfig, server: string): Transport {
  let cached: { at: number; value: { agent?: unknown; headers: Record<string, string> } } | undefined;
  return {
    server,
    async fetchOptions() {
      if (cached && Date.now() - cached.at < 10_000) return cached.value;
      const init = await kc.applyToFetchOptions({});
      const headers: Record<string, string> = {};
      (init.headers as unknown as Headers | undefined)?.forEach((value, key) => (headers[key] = value));
      cached = { at: Date.now(), value: { agent: init.agent, headers } };
      return cached.value;
    },
    invalidate() {
      cached = undefined;
      tokenCache.clear();
    },
  };
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new UserError(`${what}: ${describeFsError(err)}`);
  }
}

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function checkFile(path: string, what: string): void {
  try {
    if (statSync(path).isDirectory()) throw Object.assign(new Error("dir"), { code: "EISDIR" });
  } catch (err) {
    throw new UserError(`${what} ${path}: ${describeFsError(err)}`);
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function describeFsError(err: unknown): string {
  const code = (err as { code?: string }).code;
  if (code === "ENOENT") return "no such file";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EISDIR") return "is a directory";
  return `cannot be read${code ? ` (${code})` : ""}`;
}

function isBase64(text: string): boolean {
  return /^[A-Za-z0-9+/_-]*={0,2}$/.test(text.replace(/\s+/g, ""));
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * A CA must be PEM certificates (client-go's AppendCertsFromPEM): anything else — a key, a
 * truncated copy, a token pasted in the wrong field — is said as such, naming the field and the
 * fix, instead of failing every TLS handshake later. The data itself is never echoed.
 */
function checkCertificate(text: string, what: string, form: "the file" | "base64 of"): void {
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  const parses = (block: string) => {
    try {
      new X509Certificate(block);
      return true;
    } catch {
      return false;
    }
  };
  if (blocks.length > 0 && blocks.every(parses)) return;
  const held =
    blocks.length > 0
      ? "holds a certificate block that does not parse"
      : /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)
        ? "holds a private key, not a certificate"
        : "is not a certificate";
  const fix =
    form === "the file"
      ? "point it at the cluster's CA certificate (PEM)"
      : "set it to the cluster's CA certificate, base64 of its PEM (kubectl config view --raw shows it), or re-run mc link for a Link's credentials";
  throw new UserError(`${what} ${held}: ${fix}`);
}

function checkBase64(value: string | null | undefined, what: string): void {
  if (value && !isBase64(value)) throw new UserError(`${what} is not base64`);
}
