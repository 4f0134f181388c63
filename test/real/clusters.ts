// east and west: two real test clusters (cluster.ts) started side by side, each looking like a cluster that runs Linkerd's control plane
// (the same stand-in objects as the sandbox's `--linkerd`: namespace, linkerd-config with one shared trust anchor, the policy CRDs). What
// `bun run kube:up` runs, and what the real backend of the tests starts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import YAML from "yaml";
import { fakeLinkerdObjects } from "../../src/demo/fake-linkerd.ts";
import { kubeBinariesReady, KUBE_VERSION } from "./build.ts";
import { startCluster, type RealCluster } from "./cluster.ts";
import { reapStaleHosts } from "./netns.ts";
import { clearRecord, reapOrphans } from "./registry.ts";

// Every process started is stopped by `stop()`, by an exit handler if the caller dies first, and else
// by the next start (registry.ts, netns.ts).

export interface RealClusters {
  east: RealCluster;
  west: RealCluster;
  root: string;
  stop(): Promise<void>;
}

/** `kubectl apply -f -` of `objects` (YAML or objects) to a cluster; throws with kubectl's stderr. */
export async function kubectlApply(cluster: Pick<RealCluster, "kubeconfigPath">, objects: string | readonly unknown[]): Promise<string> {
  const text = typeof objects === "string" ? objects : objects.map((o) => YAML.stringify(o)).join("---\n");
  return kubectl(cluster, ["apply", "-f", "-"], text);
}

export async function kubectl(cluster: Pick<RealCluster, "kubeconfigPath">, args: string[], stdin?: string): Promise<string> {
  const proc = Bun.spawn(["kubectl", "--kubeconfig", cluster.kubeconfigPath, ...args], {
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if ((await proc.exited) !== 0) throw new Error(`kubectl ${args.join(" ")}: ${err.trim()}`);
  return out;
}

/** What a cluster with Linkerd has, applied with kubectl; waits for the CRDs to be established. */
export async function installFakeLinkerd(cluster: RealCluster): Promise<void> {
  await kubectlApply(cluster, fakeLinkerdObjects());
  await kubectl(cluster, ["wait", "--for=condition=Established", "--timeout=30s", "crd", "--all"]);
}

export async function startRealClusters(
  o: { root?: string; linkerd?: boolean; owner?: number; keepFiles?: boolean; profiling?: boolean } = {},
): Promise<RealClusters> {
  if (!kubeBinariesReady()) throw new Error(`the Kubernetes ${KUBE_VERSION} binaries are not built: run \`bun run kube:build\` first`);
  reapOrphans();
  await reapStaleHosts();
  const root = o.root ?? mkdtempSync(join(tmpdir(), "mc-real-"));
  const started: RealCluster[] = [];
  const onExit = () => {
    for (const c of started) c.killNow();
  };
  process.on("exit", onExit);
  const stop = async () => {
    process.off("exit", onExit);
    await Promise.all(started.map((c) => c.stop()));
    clearRecord();
    if (!o.keepFiles && !o.root) rmSync(root, { recursive: true, force: true });
  };
  try {
    const start = (name: string, serviceCidr: string) =>
      startCluster({ name, root, owner: o.owner, serviceCidr, profiling: o.profiling }).then((c) => {
        started.push(c);
        return c;
      });
    const [east, west] = await Promise.all([start("east", "10.96.0.0/16"), start("west", "10.97.0.0/16")]);
    if (o.linkerd ?? true) await Promise.all([installFakeLinkerd(east), installFakeLinkerd(west)]);
    return { east, west, root, stop };
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
}
