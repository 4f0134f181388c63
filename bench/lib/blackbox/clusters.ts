// East and west for the black-box benchmarks, each API server its own process: two `mc sandbox` processes (TLS, a stand-in Linkerd), or,
// with `--backend real`, two real clusters built from Kubernetes (test/real: kube-apiserver, etcd, kube-controller-manager and
// kube-scheduler per cluster, `bun run kube:build` first).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type KubeClient } from "../../../src/kube/index.ts";
import { CONTROLLER_ENV } from "../../../src/model/names.ts";
import { MC, spawnUntil, type Until } from "../../../test/helpers/mc.ts";
import { BINARY } from "../binary.ts";
import { spawnLogged } from "./spawn-logged.ts";
import { pin, type Pinning } from "./pin.ts";
import { pprofDir } from "./pprof.ts";
import { startFakeGateway } from "../../../test/helpers/clusters.ts";
import type { Backend, TestCluster } from "../../../test/real/backend.ts";
import { KUBE_VERSION, kubeBinariesReady } from "../../../test/real/build.ts";
import { kubectl as runKubectl, startRealClusters } from "../../../test/real/clusters.ts";
import * as T from "../../../test/real/tier.ts";

// Both get `mc install` and east's `mc link` applied to west with kubectl, as a user does; the pids of
// every server process are named for /proc readings.

export type BackendName = "sandbox" | "real";

export interface BlackBoxClusters {
  backend: BackendName;
  east: TestCluster;
  west: TestCluster;
  /** Every server process by name (`east`, `west`; real: `west-apiserver`, `west-etcd`, …). */
  pids: Record<string, number>;
  /** The server processes of west alone (what the limit client writes to). */
  westPids: Record<string, number>;
  /** A real west started for `BENCH_WEST_PPROF`: its kube-controller-manager's debug URL (pprof.ts). */
  westControllerManagerDebug?: string;
  /** The gateway's probe refused (dead) or answered again. */
  killGateway(): Promise<void>;
  startGateway(): Promise<void>;
  dir: string;
  stop(): Promise<void>;
}

/** Why `--backend real` cannot run here, or undefined. */
export function whyNoReal(): string | undefined {
  if (!kubeBinariesReady())
    return `the Kubernetes ${KUBE_VERSION} binaries are not built (run \`bun run kube:build\`; they are cached for every checkout)`;
  if (process.getuid?.() !== 0) return "not root: the real clusters' gateway host needs ip netns";
  return undefined;
}

const unsupported = (what: string) => () => Promise.reject(new Error(`${what}: not used by the benchmarks`));

function cluster(name: string, kubeconfigPath: string, client: KubeClient, gateway: TestCluster["gateway"]): TestCluster {
  return {
    name,
    kubeconfigPath,
    client,
    gateway,
    kubectl: (args, stdin) => runKubectl({ kubeconfigPath }, args, stdin),
    restartApiServer: unsupported("restartApiServer"),
    backup: unsupported("backup"),
    restore: unsupported("restore"),
    kubeconfigWithToken: () => {
      throw new Error("kubeconfigWithToken: not used by the benchmarks");
    },
  };
}

async function sandboxes(dir: string, latency: string): Promise<Omit<BlackBoxClusters, "backend" | "dir">> {
  const anchor = join(dir, "trust-anchor.pem");
  const procs: Until[] = [];
  const gateway = startFakeGateway();
  const start = async (name: string) => {
    const kubeconfigPath = join(dir, `${name}.kubeconfig`);
    // One sandbox first: --trust-anchor writes the shared file the second one reads.
    const p = await spawnUntil(
      [
        "bun",
        // BENCH_WEST_PROF=<dir>: each west sandbox writes a CPU profile (markdown) there when it stops (its whole life, setup included).
        ...(process.env.BENCH_WEST_PROF && name === "west" ? ["--cpu-prof-md", `--cpu-prof-dir=${process.env.BENCH_WEST_PROF}`] : []),
        MC,
        "sandbox",
        "--name",
        name,
        "--tls",
        "--linkerd",
        "--trust-anchor",
        anchor,
        "--kubeconfig",
        kubeconfigPath,
        "--latency",
        latency,
      ],
      /ready at/,
    );
    procs.push(p);
    const client = await connect({ kubeconfig: kubeconfigPath, name });
    return cluster(name, kubeconfigPath, client, {
      address: "192.0.2.1",
      probeFlags: ["--probe-address", `127.0.0.1:${gateway.port}`],
      kill: () => gateway.kill(),
      start: async () => gateway.restart(),
    });
  };
  const east = await start("east");
  const west = await start("west");
  return {
    east,
    west,
    pids: { east: procs[0]!.proc.pid, west: procs[1]!.proc.pid },
    westPids: { west: procs[1]!.proc.pid },
    killGateway: () => gateway.kill(),
    startGateway: async () => gateway.restart(),
    async stop() {
      await gateway.kill();
      for (const p of procs) {
        p.proc.kill("SIGTERM");
        await p.proc.exited;
      }
    },
  };
}

async function real(dir: string): Promise<Omit<BlackBoxClusters, "backend" | "dir">> {
  const why = whyNoReal();
  if (why) throw new Error(`--backend real: ${why}`);
  const clusters = await startRealClusters({ root: dir, profiling: pprofDir() !== undefined });
  const wrap = (c: typeof clusters.east) =>
    cluster(c.name, c.kubeconfigPath, c.client, {
      address: c.host.address,
      probeFlags: ["--probe-direct"],
      kill: () => c.host.killGateway(),
      start: () => c.host.startGateway(),
    });
  const pidsOf = (c: typeof clusters.east) => {
    const out: Record<string, number> = {};
    for (const [part, comp] of [
      ["apiserver", c.apiserver],
      ["etcd", c.etcd],
      ["controller-manager", c.controllerManager],
    ] as const) {
      if (comp.pid === undefined) throw new Error(`${c.name}'s ${part} is not running`);
      out[`${c.name}-${part}`] = comp.pid;
    }
    return out;
  };
  const westPids = pidsOf(clusters.west);
  return {
    east: wrap(clusters.east),
    west: wrap(clusters.west),
    pids: { ...pidsOf(clusters.east), ...westPids },
    westPids,
    ...(clusters.west.controllerManagerDebug && { westControllerManagerDebug: clusters.west.controllerManagerDebug }),
    killGateway: () => clusters.east.host.killGateway(),
    startGateway: () => clusters.east.host.startGateway(),
    stop: () => clusters.stop(),
  };
}

/** Set by the scenario: west's server processes of every pair started from then on go to `pinning.west` (pin.ts). */
let pinning: Pinning | undefined;
export function pinWestServers(p: Pinning | undefined): void {
  pinning = p;
}

/**
 * Starts both clusters, installs mc on both and links east to west (probe every 1 s, dead at the
 * first failure). `latency`: the sandboxes' added latency per response (`mc sandbox --latency`).
 */
export async function startClusters(backend: BackendName, namespaces: number, latency = "0"): Promise<BlackBoxClusters> {
  const dir = mkdtempSync(join(tmpdir(), "mc-bench-bb-"));
  let started: Omit<BlackBoxClusters, "backend" | "dir">;
  try {
    started = backend === "real" ? await real(dir) : await sandboxes(dir, latency);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  if (pinning) for (const pid of Object.values(started.westPids)) pin(pid, pinning.west);
  const c: BlackBoxClusters = {
    backend,
    dir,
    ...started,
    async stop() {
      await started.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all([T.install(c.east), T.install(c.west)]);
    const ns = Array.from({ length: namespaces }, (_, i) => `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-${i}\n`).join("---\n");
    await Promise.all([c.east.kubectl(["apply", "-f", "-"], ns), c.west.kubectl(["apply", "-f", "-"], ns)]);
    await T.link({ kind: backend, east: c.east, west: c.west, stop: c.stop } as Backend);
  } catch (err) {
    await c.stop();
    throw err;
  }
  return c;
}

/** How many mc serve processes this bench started (each one's log is its own file). */
let serves = 0;

/**
 * `mc serve east` as its own process against west (the admin's kubeconfig), probing the gateway, in a controller's runtime environment
 * (CONTROLLER_ENV, as its Deployment sets it), its log in a file; resolves once it listens.
 */
export function startServe(c: BlackBoxClusters, extra: string[] = []): Promise<Until> {
  // The compiled binary, as the controller image runs it (Dockerfile; the scenario builds it first); BENCH_CPU_PROF=<dir>: the source under bun, each mc serve
  // writing a CPU profile (markdown) there when it stops.
  const prof = process.env.BENCH_CPU_PROF;
  const mc = prof ? ["bun", "--cpu-prof-md", `--cpu-prof-dir=${prof}`, MC] : [BINARY];
  serves += 1;
  return spawnLogged(
    [...mc, "--kubeconfig", c.west.kubeconfigPath, "serve", "east", ...c.east.gateway.probeFlags, "--admin-addr", "127.0.0.1:0", ...extra],
    /admin server listening on (http:\/\/127\.0\.0\.1:\d+)/,
    join(c.dir, `serve-${serves}.log`),
    { ...CONTROLLER_ENV },
  );
}

/** A metric of `mc serve`'s /metrics (the sum over its label sets), or NaN when absent. */
export async function metric(serving: Until, name: string): Promise<number> {
  const text = await (await fetch(`${serving.match[1]}/metrics`)).text();
  const values = text
    .split("\n")
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .map((l) => Number(l.slice(l.lastIndexOf(" ") + 1)));
  return values.length ? values.reduce((a, b) => a + b, 0) : Number.NaN;
}

/**
 * Resolves once `mc serve` is ready with its work queue empty and, given `mirrors`, at least that
 * many Services reconciled (mc_mirrors, every state): its resync done (/ready alone is the process's,
 * an empty queue alone may be one not filled yet).
 */
export async function settled(serving: Until, timeoutMs: number, mirrors = 0): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const ready = (await fetch(`${serving.match[1]}/ready`)).status === 200;
    if (ready && (await metric(serving, "mc_queue_depth")) === 0 && (mirrors === 0 || (await metric(serving, "mc_mirrors")) >= mirrors))
      return;
    if (performance.now() > deadline) throw new Error(`mc serve not settled after ${timeoutMs} ms`);
    await Bun.sleep(200);
  }
}
