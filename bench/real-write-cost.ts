// A real kube-apiserver's CPU per write as the objects it stores grow: `bun bench/real-write-cost.ts [rounds]` starts one real
// cluster (test/real), pins its processes to the last CPU, writes mirrors (a Service, then its Endpoints) over 50 namespaces in
// batches of 1,000 at 4, 16 and 32 in flight, and prints each batch's time and the CPU each server process spent (diagnostic).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, resources, type KubeObject } from "../src/kube/index.ts";
import { startCluster } from "../test/real/cluster.ts";
import { planPinning, pin } from "./lib/blackbox/pin.ts";
import { apiserverProfile, controllerManagerProfile } from "./lib/blackbox/pprof.ts";
import { writeAll } from "./lib/limit.ts";
import { sampleAll, since } from "./lib/proc.ts";
import { say } from "./lib/scenario.ts";

// `--profile DIR` also saves kube-apiserver's and kube-controller-manager's CPU profiles over the first 4 s of each 16-in-flight
// batch there (`go tool pprof -top FILE`).

const NAMESPACES = 50;
const BATCH = 1000;
const CONCURRENCY = [4, 16, 32];
const args = process.argv.slice(2);
const profileAt = args.indexOf("--profile");
const profileDir = profileAt >= 0 ? args.splice(profileAt, 2)[1] : undefined;
if (profileAt >= 0 && !profileDir) throw new Error("--profile needs a directory: --profile /tmp/profiles");
const rounds = Number(args[0] ?? 3);

const root = mkdtempSync(join(tmpdir(), "mc-write-cost-"));
const c = await startCluster({ name: "cost", root, profiling: profileDir !== undefined });
if (profileDir) mkdirSync(profileDir, { recursive: true });

/** A CPU profile over the next `seconds`: the apiserver's (as the admin) or kube-controller-manager's. */
const profile = (of: "apiserver" | "controller-manager", seconds: number): Promise<Uint8Array> =>
  of === "apiserver" ? apiserverProfile(c.kubeconfigPath, seconds) : controllerManagerProfile(c.controllerManagerDebug!, seconds);
try {
  const pids = { apiserver: c.apiserver.pid!, etcd: c.etcd.pid!, "controller-manager": c.controllerManager.pid! };
  const pinning = planPinning();
  if (typeof pinning === "string") console.error(`not pinned: ${pinning}`);
  else {
    for (const pid of Object.values(pids)) pin(pid, pinning.west);
    pin(process.pid, pinning.others);
  }
  const client = await connect({ kubeconfig: c.kubeconfigPath });
  for (let n = 0; n < NAMESPACES; n++)
    await client.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: `cost-${n}` } } as KubeObject);
  let stored = 0;
  const batch = async (inFlight: number) => {
    const before = sampleAll(pids);
    const first = stored;
    const profiled =
      profileDir && inFlight === 16 ? (["apiserver", "controller-manager"] as const).map((of) => [of, profile(of, 4)] as const) : [];
    const ms = await writeAll(BATCH, inFlight, async (k) => {
      const i = first + k;
      const metadata = { name: `m-${i}`, namespace: `cost-${i % NAMESPACES}`, labels: { bench: "cost" } };
      const service = { apiVersion: "v1", kind: "Service", metadata, spec: { ports: [{ name: "http", port: 80 }] } };
      const endpoints = {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata,
        subsets: [{ addresses: [{ ip: "10.1.2.3" }], ports: [{ name: "http", port: 4143 }] }],
      };
      await client.create(resources.service, service as KubeObject);
      await client.create(resources.endpoints, endpoints as KubeObject);
    });
    stored += BATCH;
    for (const [of, p] of profiled) {
      const file = join(profileDir!, `${of}-${stored}.pprof`);
      writeFileSync(file, await p);
      say(`CPU profile of the ${of} over the batch's first 4 s: ${file}`);
    }
    const s = ms / 1000;
    const spent = since(before, pids);
    console.log(
      `${String(stored).padStart(6)} mirrors stored, ${String(inFlight).padStart(2)} in flight: ${BATCH} in ${s.toFixed(1)} s; ` +
        `kube-apiserver ${(spent.apiserver!.cpuMs / (2 * BATCH)).toFixed(2)} ms per write, etcd ${spent.etcd!.cpuMs} ms, kube-controller-manager ${spent["controller-manager"]!.cpuMs} ms`,
    );
  };
  for (let r = 0; r < rounds; r++) for (const inFlight of CONCURRENCY) await batch(inFlight);
} finally {
  await c.stop();
  rmSync(root, { recursive: true, force: true });
}
