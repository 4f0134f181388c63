// The sandbox: an in-memory Kubernetes API server for tests, benchmarks and `mc demo`.
// `startSandbox()` returns once the server listens and (when asked) its kubeconfig is written.
import { Api } from "./api.ts";
import { writeKubeconfig, type KubeconfigOptions } from "./kubeconfig.ts";
import { listen } from "./http/listen.ts";
import { sandboxControl, type FaultSettings, type SandboxControl } from "./faults.ts";
import { openDurableStore, type DurableStore } from "./storage/durable.ts";
import { Store } from "./storage/store.ts";
import { makeCA, makeClientCert, makeServerCert, type Pem } from "./http/tls.ts";
import { TOO_LARGE_WAIT_MS, WatchStreams } from "./http/watch.ts";

export interface SandboxOptions {
  /** Cluster, user and context name in the kubeconfig (default "sandbox"). */
  name?: string;
  host?: string;
  /** 0 = any free port. */
  port?: number;
  tls?: boolean;
  /** Admin bearer token (TLS only; generated when absent). */
  token?: string;
  /**
   * Authorize every request by RBAC: service-account tokens and client certificates get what
   * their bindings grant; the admin token stays system:masters. Implies `tls` (tokens only travel
   * over https: client-go sends none over http, and kube authenticates only there).
   */
  enforceRbac?: boolean;
  /** Faults on from the start (all can be changed later through `control.faults`). */
  faults?: FaultSettings;
  /**
   * Keep objects, the resourceVersion counter, the CA and the admin token in this file
   * (bun:sqlite, written through): a restart on the same file resumes with everything stored.
   */
  data?: string;
  /** How long a list at a resourceVersion not reached yet waits before "Too large resource version" (default 3 s, as kube; a watch from it stays silent). */
  tooLargeWaitMs?: number;
  /** Where to write the kubeconfig (before the promise resolves). */
  kubeconfigPath?: string;
  /** Keep state across a restart in-process: pass the previous sandbox's store (and its `ca` for TLS). */
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
  const durable = opts.data ? openDurableStore(opts.data, opts.historyLimit) : undefined;
  const store = durable?.store ?? opts.store ?? new Store(opts.historyLimit);
  // Tokens only travel over https (client-go sends none over http; kube authenticates only there).
  const tls = opts.tls || opts.enforceRbac;
  const ca = tls
    ? (opts.ca ?? (await keptFact(durable, "ca", async () => JSON.stringify(await makeCA(`${name}-ca`)), JSON.parse)))
    : undefined;
  const serverCert = ca ? await makeServerCert(ca, [host, "localhost", "127.0.0.1"]) : undefined;
  const newToken = async () => opts.token ?? `admin.${crypto.randomUUID().replaceAll("-", "")}`;
  const token = tls ? await keptFact(durable, "token", newToken, (t) => t) : undefined;
  const api = new Api(store, ca?.cert ?? "");
  const tooLargeWaitMs = opts.tooLargeWaitMs ?? TOO_LARGE_WAIT_MS;
  const watches = new WatchStreams(store, opts.bookmarkMs ?? 1000);
  const control = sandboxControl(watches, store, opts.faults);
  let address = "";
  const listening = await listen({
    host,
    port: opts.port ?? 0,
    tls: ca && serverCert ? { ca, serverCert } : undefined,
    context: {
      api,
      watches,
      adminTokens: new Set(token ? [token] : []),
      control,
      tooLargeWaitMs,
      enforceRbac: opts.enforceRbac ?? false,
      serverAddress: () => address,
    },
  });
  const port = listening.port;
  address = `${host}:${port}`;
  api.seedApiServerService("127.0.0.1", port);
  const url = `${tls ? "https" : "http"}://${host.includes(":") ? `[${host}]` : host}:${port}`;
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
      control.stop();
      watches.dropAll();
      await listening.stop();
      api.close();
      durable?.close();
    },
  };
}

/** A fact kept in the durable file (made and kept on first start), or just made without one. */
async function keptFact<T>(
  durable: DurableStore | undefined,
  name: string,
  make: () => Promise<string>,
  parse: (s: string) => T,
): Promise<T> {
  const kept = durable?.fact(name);
  if (kept !== undefined) return parse(kept);
  const made = await make();
  durable?.setFact(name, made);
  return parse(made);
}

export type { FaultSettings } from "./faults.ts";
export { seededRandom } from "./faults.ts";
export { Store } from "./storage/store.ts";
export { DurableStoreError } from "./storage/durable.ts";
