// One real test cluster on loopback: etcd, kube-apiserver, kube-controller-manager and kube-scheduler, built from Kubernetes.
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect, type KubeClient } from "../../src/kube/index.ts";
import { kubeBinDir } from "./build.ts";
import { Component, freePorts, logPath } from "./component.ts";
import { startNetnsHost, type NetnsHost } from "./netns.ts";
import { adminKubeconfig, makePki, type ClusterPki } from "./pki.ts";
import { startStandIn, type StandIn } from "./standin.ts";

// One real test cluster on loopback: etcd, kube-apiserver (TLS, client certificates and
// service-account tokens, Node,RBAC), kube-controller-manager (every default controller but
// node-lifecycle-controller, which would keep the stand-in node tainted) and kube-scheduler, from
// the binaries of `bun run kube:build`; a network-namespace host for its gateway (netns.ts) and the
// kubelet and load-balancer stand-in (standin.ts). Ports are free loopback ports, so parallel runs
// do not collide. Traps met on the way: the advertise address is loopback, so the apiserver runs
// with --endpoint-reconciler-type none (the `kubernetes` Service keeps no Endpoints).

export interface RealCluster {
  name: string;
  dir: string;
  /** https://127.0.0.1:PORT */
  server: string;
  kubeconfigPath: string;
  kubeconfig: string;
  pki: ClusterPki;
  /** The admin's client (system:masters). */
  client: KubeClient;
  host: NetnsHost;
  etcd: Component;
  apiserver: Component;
  controllerManager: Component;
  scheduler: Component;
  standIn: StandIn;
  /** Stops etcd, copies its data directory to `to` and starts it again (a cold backup). */
  backupEtcd(to: string): Promise<void>;
  /** Stops etcd, replaces its data with the copy at `from`, starts it again: history goes back. */
  restoreEtcd(from: string): Promise<void>;
  stop(): Promise<void>;
  /** With `profiling`: kube-controller-manager's https://127.0.0.1:PORT (its own self-signed certificate; /debug/pprof/* open). */
  controllerManagerDebug?: string;
  /** Synchronous last resort for an exit handler: SIGKILL every process. */
  killNow(): void;
}

export interface ClusterOptions {
  name: string;
  /** Parent directory; the cluster's files go to <root>/<name>. */
  root: string;
  /** The run's owner pid for the netns claim (default this process). */
  owner?: number;
  serviceCidr?: string;
  /**
   * Serve /debug/pprof: the kube-apiserver's to the admin, kube-controller-manager's on `controllerManagerDebug` to anyone
   * (loopback) instead of running them with --profiling=false and no secure port.
   */
  profiling?: boolean;
}

async function tlsReady(url: string, pki: ClusterPki): Promise<boolean> {
  const res = await fetch(url, {
    tls: { ca: Bun.file(pki.caCert), cert: Bun.file(pki.adminCert), key: Bun.file(pki.adminKey) },
    signal: AbortSignal.timeout(2000),
  });
  return res.ok;
}

/**
 * Starts the cluster, again on new ports (its directory emptied) when a component found one of its free ports taken: a port
 * is free when picked and bound only later, and any connection's ephemeral local port can take it meanwhile.
 */
export async function startCluster(o: ClusterOptions): Promise<RealCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startClusterOnce(o);
    } catch (err) {
      if (attempt >= 3 || !String((err as Error)?.message).includes("address already in use")) throw err;
      rmSync(join(o.root, o.name), { recursive: true, force: true });
    }
  }
}

async function startClusterOnce(o: ClusterOptions): Promise<RealCluster> {
  const bin = kubeBinDir();
  const dir = join(o.root, o.name);
  mkdirSync(dir, { recursive: true });
  const etcdData = join(dir, "etcd");
  const [etcdPort, peerPort, apiPort, kcmPort] = freePorts(4) as [number, number, number, number];
  const server = `https://127.0.0.1:${apiPort}`;
  const [pki, host] = await Promise.all([
    makePki(join(dir, "pki"), o.name),
    startNetnsHost({ owner: o.owner, logFile: logPath(dir, "gateway") }),
  ]);
  const kubeconfig = await adminKubeconfig(o.name, server, pki);
  const kubeconfigPath = join(dir, "admin.kubeconfig");
  writeFileSync(kubeconfigPath, kubeconfig, { mode: 0o600 });

  const etcd = new Component({
    name: `etcd ${o.name}`,
    binary: join(bin, "etcd"),
    logFile: logPath(dir, "etcd"),
    args: [
      `--name=${o.name}`,
      `--data-dir=${etcdData}`,
      `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
      `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-cluster=${o.name}=http://127.0.0.1:${peerPort}`,
      "--unsafe-no-fsync",
      "--log-level=warn",
    ],
    ready: async () => (await fetch(`http://127.0.0.1:${etcdPort}/health`, { signal: AbortSignal.timeout(2000) })).ok,
  });
  const apiserver = new Component({
    name: `kube-apiserver ${o.name}`,
    binary: join(bin, "kube-apiserver"),
    logFile: logPath(dir, "kube-apiserver"),
    args: [
      `--etcd-servers=http://127.0.0.1:${etcdPort}`,
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      `--secure-port=${apiPort}`,
      "--endpoint-reconciler-type=none",
      `--cert-dir=${join(dir, "pki")}`,
      `--tls-cert-file=${pki.serverCert}`,
      `--tls-private-key-file=${pki.serverKey}`,
      `--client-ca-file=${pki.caCert}`,
      `--service-account-key-file=${pki.saPub}`,
      `--service-account-signing-key-file=${pki.saKey}`,
      "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
      "--authorization-mode=Node,RBAC",
      `--service-cluster-ip-range=${o.serviceCidr ?? "10.96.0.0/16"}`,
      "--allow-privileged=true",
      ...(o.profiling ? [] : ["--profiling=false"]),
    ],
    ready: () => tlsReady(`${server}/readyz`, pki),
  });
  const common = [`--kubeconfig=${kubeconfigPath}`, "--leader-elect=false", "--secure-port=0", "--profiling=false"];
  const controllerManager = new Component({
    name: `kube-controller-manager ${o.name}`,
    binary: join(bin, "kube-controller-manager"),
    logFile: logPath(dir, "kube-controller-manager"),
    args: [
      ...(o.profiling
        ? [
            ...common.filter((a) => !a.startsWith("--secure-port") && a !== "--profiling=false"),
            `--secure-port=${kcmPort}`,
            "--bind-address=127.0.0.1",
            `--cert-dir=${join(dir, "kcm-pki")}`,
            "--authorization-always-allow-paths=/healthz,/readyz,/livez,/debug/pprof/*",
          ]
        : common),
      "--controllers=*,-node-lifecycle-controller",
      "--use-service-account-credentials=true",
      `--service-account-private-key-file=${pki.saKey}`,
      `--root-ca-file=${pki.caCert}`,
      `--cluster-signing-cert-file=${pki.caCert}`,
      `--cluster-signing-key-file=${pki.caKey}`,
    ],
    ready: async () => true,
  });
  const scheduler = new Component({
    name: `kube-scheduler ${o.name}`,
    binary: join(bin, "kube-scheduler"),
    logFile: logPath(dir, "kube-scheduler"),
    args: common,
    ready: async () => true,
  });

  const components = [etcd, apiserver, controllerManager, scheduler];
  let standIn: StandIn | undefined;
  const stop = async () => {
    await standIn?.stop();
    for (const c of [scheduler, controllerManager, apiserver]) await c.stop();
    await etcd.stop();
    await host.stop();
  };
  try {
    await etcd.start();
    await apiserver.start();
    await Promise.all([controllerManager.start(), scheduler.start(), host.startGateway()]);
    const client = await connect({ kubeconfig: kubeconfigPath, name: o.name });
    standIn = await startStandIn({ client, name: o.name, loadBalancerIp: host.address });
    const cluster: RealCluster = {
      name: o.name,
      dir,
      server,
      kubeconfigPath,
      kubeconfig,
      pki,
      client,
      host,
      etcd,
      apiserver,
      controllerManager,
      scheduler,
      standIn,
      ...(o.profiling && { controllerManagerDebug: `https://127.0.0.1:${kcmPort}` }),
      async backupEtcd(to) {
        await etcd.stop();
        cpSync(etcdData, to, { recursive: true });
        await etcd.start();
      },
      async restoreEtcd(from) {
        await etcd.stop();
        rmSync(etcdData, { recursive: true, force: true });
        cpSync(from, etcdData, { recursive: true });
        await etcd.start();
      },
      stop,
      killNow() {
        for (const c of components) c.killNow();
      },
    };
    return cluster;
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
}
