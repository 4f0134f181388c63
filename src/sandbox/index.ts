// The sandbox: an in-memory Kubernetes API server for tests, benchmarks and `mc demo`.
// `startSandbox()` returns once the server listens and (when asked) its kubeconfig is written.
import { Api } from "./api.ts";
import { writeKubeconfig, type KubeconfigOptions } from "./kubeconfig.ts";
import { listen } from "./http/listen.ts";
import { sandboxControl, type SandboxControl } from "./faults.ts";
import { Store } from "./storage/store.ts";
import { makeCA, makeClientCert, makeServerCert, type Pem } from "./http/tls.ts";
import { WatchStreams } from "./http/watch.ts";

export interface SandboxOptions {
  /** Cluster, user and context name in the kubeconfig (default "sandbox"). */
  name?: string;
  host?: string;
  /** 0 = any free port. */
  port?: number;
  tls?: boolean;
  /** Admin bearer token (TLS only; generated when absent). */
  token?: string;
  /** Where to write the kubeconfig (before the promise resolves). */
  kubeconfigPath?: string;
  /** Keep state across a restart: pass the previous sandbox's store (and its `ca` for TLS). */
  store?: Store;
  ca?: Pem;
  /** Events kept for watch resumes (older resumes get 410 Gone). */
  historyLimit?: number;
  /** How often watches with allowWatchBookmarks get a BOOKMARK (ms). */
  bookmarkMs?: number;
}

export interface Sandbox {
  name: string;
  url: string;
  port: number;
  /** Kubeconfig YAML text for this server (admin token or skip-verify for http). */
  kubeconfig: string;
  kubeconfigPath?: string;
  store: Store;
  api: Api;
  token?: string;
  ca?: Pem;
  control: SandboxControl;
  /** A client certificate signed by this sandbox's CA (TLS only). */
  clientCert(user: string, groups?: string[]): Promise<Pem>;
  kubeconfigWith(opts: Partial<KubeconfigOptions>): string;
  stop(): Promise<void>;
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const name = opts.name ?? "sandbox";
  const host = opts.host ?? "127.0.0.1";
  const store = opts.store ?? new Store(opts.historyLimit);
  const ca = opts.tls ? (opts.ca ?? (await makeCA(`${name}-ca`))) : undefined;
  const serverCert = ca ? await makeServerCert(ca, [host, "localhost", "127.0.0.1"]) : undefined;
  const token = opts.tls ? (opts.token ?? `admin.${crypto.randomUUID().replaceAll("-", "")}`) : undefined;
  const api = new Api(store, ca?.cert ?? "");
  const watches = new WatchStreams(store, opts.bookmarkMs ?? 1000);
  const control = sandboxControl(watches, store);
  let address = "";
  const listening = await listen({
    host,
    port: opts.port ?? 0,
    tls: ca && serverCert ? { ca, serverCert } : undefined,
    context: { api, watches, adminTokens: new Set(token ? [token] : []), faults: control.faults, serverAddress: () => address },
  });
  const port = listening.port;
  address = `${host}:${port}`;
  api.seedApiServerService("127.0.0.1", port);
  const url = `${opts.tls ? "https" : "http"}://${host.includes(":") ? `[${host}]` : host}:${port}`;
  // TLS kubeconfigs also carry a `<name>-cert` context that authenticates with a client certificate.
  const certContext = ca ? await makeClientCert(ca, "sandbox-admin", ["system:masters"]) : undefined;
  const base: KubeconfigOptions = { name, server: url, token, caPem: ca?.cert, certContext };
  const kubeconfig = writeKubeconfig(base);
  if (opts.kubeconfigPath) await Bun.write(opts.kubeconfigPath, kubeconfig, { mode: 0o600 });
  return {
    name,
    url,
    port,
    kubeconfig,
    kubeconfigPath: opts.kubeconfigPath,
    store,
    api,
    token,
    ca,
    control,
    clientCert: async (user, groups = ["system:masters"]) => {
      if (!ca) throw new Error("clientCert needs a TLS sandbox (tls: true)");
      return makeClientCert(ca, user, groups);
    },
    kubeconfigWith: (o) => writeKubeconfig({ ...base, ...o }),
    stop: async () => {
      watches.dropAll();
      await listening.stop();
    },
  };
}

export type { Faults, SandboxControl } from "./faults.ts";
export { Store } from "./storage/store.ts";
export type { Pem } from "./http/tls.ts";
