// The two clusters the two-backend tier runs on, chosen by the environment: two TLS sandboxes enforcing RBAC, each with its data in a file
// (the default), or, with MC_BACKEND=real, two real clusters built from Kubernetes (clusters.ts; `bun run kube:build` first).
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import YAML from "yaml";
import { connect, type KubeClient } from "../../src/kube/index.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { fakeLinkerd } from "../helpers/linkerd.ts";
import { startFakeGateway, type FakeGateway } from "../helpers/clusters.ts";
import { kubeBinariesReady, KUBE_VERSION } from "./build.ts";
import { kubectl as runKubectl, startRealClusters } from "./clusters.ts";
import type { RealCluster } from "./cluster.ts";

// Both look like clusters running Linkerd's control plane and have a gateway stand-in that answers the
// probe: on a sandbox a loopback server reached through `mc serve --probe-address` (the mirrors point
// at the load balancer's 192.0.2.1), on a real cluster a host in a network namespace, probed directly
// (a real server refuses loopback addresses in Endpoints). The tests drive both the same way: kubectl,
// `mc` as a subprocess, the admin's KubeClient.

/** What a sandbox's load balancer gives a LoadBalancer Service (TEST-NET-1, never contacted). */
const SANDBOX_LB_IP = "192.0.2.1";

export type BackendKind = "sandbox" | "real";
export const BACKEND: BackendKind = process.env.MC_BACKEND === "real" ? "real" : "sandbox";
/** Why real clusters cannot start here, if they cannot. */
export const whyNoRealClusters = (): string | undefined =>
  !kubeBinariesReady()
    ? `Kubernetes ${KUBE_VERSION} is not built (bun run kube:build)`
    : process.getuid?.() !== 0
      ? "not root (the gateway host needs ip netns)"
      : undefined;
/** With MC_BACKEND=real: why the real backend cannot run here, if it cannot (for a skipped test's name). */
export const realUnavailable = BACKEND === "real" ? whyNoRealClusters() : undefined;

export interface TestCluster {
  name: string;
  kubeconfigPath: string;
  /** The admin's client. */
  client: KubeClient;
  /**
   * The gateway: the address `mc link --gateway-addresses` gets (what mirrors point at), the flags
   * `mc serve` needs to reach its probe from here, its stand-in killed (probes refused) and started.
   */
  gateway: { address: string; probeFlags: string[]; kill(): Promise<void>; start(): Promise<void> };
  /** kubectl with this cluster's admin kubeconfig; throws on a non-zero exit. */
  kubectl(args: string[], stdin?: string): Promise<string>;
  /** The API server killed with -9 and started again on the same address and data. */
  restartApiServer(): Promise<void>;
  /** A copy of the cluster's storage as it is now (an etcd backup). */
  backup(): Promise<string>;
  /** Restarts the API server on an older copy of its storage (an etcd restore): history goes back. */
  restore(copy: string): Promise<void>;
  /** A kubeconfig for the same server holding `token` instead of the admin's credentials. */
  kubeconfigWithToken(token: string): string;
}

export interface Backend {
  kind: BackendKind;
  east: TestCluster;
  west: TestCluster;
  stop(): Promise<void>;
}

export function startBackend(kind: BackendKind = BACKEND): Promise<Backend> {
  return kind === "real" ? realBackend() : sandboxBackend();
}

function withToken(kubeconfig: string, token: string): string {
  const config = YAML.parse(kubeconfig) as { users: { name: string; user: Record<string, unknown> }[] };
  for (const u of config.users) u.user = { token };
  return YAML.stringify(config);
}

async function realBackend(): Promise<Backend> {
  const why = whyNoRealClusters();
  if (why) throw new Error(`real clusters: ${why}`);
  const clusters = await startRealClusters();
  const backups: string[] = [];
  const wrap = (c: RealCluster): TestCluster => ({
    name: c.name,
    kubeconfigPath: c.kubeconfigPath,
    client: c.client,
    gateway: {
      address: c.host.address,
      probeFlags: ["--probe-direct"],
      kill: () => c.host.killGateway(),
      start: () => c.host.startGateway(),
    },
    kubectl: (args, stdin) => runKubectl(c, args, stdin),
    async restartApiServer() {
      await c.apiserver.stop("SIGKILL");
      await c.apiserver.start();
    },
    async backup() {
      const to = join(c.dir, `etcd-backup-${backups.length}`);
      backups.push(to);
      await c.backupEtcd(to);
      return to;
    },
    async restore(copy) {
      // Kubernetes' procedure: API servers stopped, etcd restored, API servers started.
      await c.apiserver.stop("SIGKILL");
      await c.restoreEtcd(copy);
      await c.apiserver.start();
    },
    kubeconfigWithToken: (token) => withToken(c.kubeconfig, token),
  });
  return { kind: "real", east: wrap(clusters.east), west: wrap(clusters.west), stop: () => clusters.stop() };
}

async function sandboxBackend(): Promise<Backend> {
  const root = mkdtempSync(join(tmpdir(), "mc-two-backends-"));
  const gateways: FakeGateway[] = [];
  const sandboxes: Sandbox[] = [];
  const make = async (name: string): Promise<TestCluster> => {
    const kubeconfigPath = join(root, `${name}.kubeconfig`);
    const data = join(root, `${name}.db`);
    const open = (port = 0) => startSandbox({ name, port, tls: true, enforceRbac: true, data, kubeconfigPath });
    let sb = await open();
    sandboxes.push(sb);
    fakeLinkerd(sb);
    const client = await connect({ kubeconfig: kubeconfigPath, name });
    const gw = startFakeGateway();
    gateways.push(gw);
    const replace = async (between: () => void) => {
      const old = sb;
      await old.stop();
      between();
      sb = await open(old.port);
      sandboxes[sandboxes.indexOf(old)] = sb;
    };
    let copies = 0;
    return {
      name,
      kubeconfigPath,
      client,
      // The sandbox load balancer's address (data, never contacted); probes go to the loopback stand-in.
      gateway: {
        address: SANDBOX_LB_IP,
        probeFlags: ["--probe-address", `east=127.0.0.1:${gw.port}`],
        kill: () => gw.kill(),
        start: async () => gw.restart(),
      },
      kubectl: (args, stdin) => runKubectl({ kubeconfigPath }, args, stdin),
      restartApiServer: () => replace(() => {}),
      async backup() {
        const file = join(root, `${name}-backup-${copies++}.db`);
        const db = new Database(data, { readonly: true });
        try {
          db.run(`VACUUM INTO '${file}'`);
        } finally {
          db.close();
        }
        return file;
      },
      restore: (copy) =>
        replace(() => {
          for (const f of [data, `${data}-wal`, `${data}-shm`]) rmSync(f, { force: true });
          copyFileSync(copy, data);
        }),
      kubeconfigWithToken: (token) => withToken(sb.kubeconfig, token),
    };
  };
  const [east, west] = await Promise.all([make("east"), make("west")]);
  return {
    kind: "sandbox",
    east,
    west,
    async stop() {
      for (const g of gateways) await g.kill();
      for (const s of sandboxes) await s.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
