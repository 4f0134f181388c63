// Idle memory of one `mc serve --all` process against one `mc serve LINK` process per Link
// (the goal: each added Link costs at most 5 MB in the shared process). For each
// count of Links, fresh sandboxes in this process: a target `east` with S exported Services (and
// Endpoints), and `west` holding N Links to it (cluster names l0…, so each Link mirrors all S),
// their credentials Secrets and a loopback gateway the probes answer. The controllers run as
// subprocesses (`bun cmd/mc.ts serve …`, --probe-address at the loopback gateway); once west holds every mirror and a few
// seconds have passed, their resident set sizes (/proc/<pid>/status VmRSS) are sampled five
// times a second apart and the median printed, summed over processes for the per-Link form.
//   bun bench/all-links-rss.ts [counts=1,10,50] [services=100] [idle-seconds=5]
// BENCH_TIMEOUT_S (default 300) bounds each wait for the mirrors; BENCH_LOG=<path> keeps each
// controller's stderr there, at BENCH_LEVEL (default warn).
import { mkdtemp, rm } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderLinkCrd } from "../src/manifests/crd.ts";
import { CLUSTER_NAME, EXPORTED, KUBECONFIG_DATA_KEY, MIRRORED_SERVICE, REMOTE_KUBECONFIG_SECRET_TYPE } from "../src/model/labels.ts";
import { credentialsSecretName, DEFAULT_NAMESPACE, LINK_API_VERSION, MAX_HTTP_REQUESTS, MAX_HTTP_REQUESTS_ENV } from "../src/model/names.ts";
import { startSandbox, type Sandbox } from "../src/sandbox/index.ts";
import { storageKey } from "../src/sandbox/storage/keys.ts";

const counts = (process.argv[2] ?? "1,10,50").split(",").map(Number);
const SERVICES = Number(process.argv[3] ?? 100);
const IDLE_MS = Number(process.argv[4] ?? 5) * 1000;
const NAMESPACES = 10;
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 300) * 1000;
const MC = join(import.meta.dir, "..", "cmd", "mc.ts");
const write = { fieldManager: "bench" };

interface Clusters {
  west: Sandbox;
  westPath: string;
  /** The loopback gateway the controllers probe (--probe-address). */
  gatewayPort: number;
  stop(): Promise<void>;
}

const typeOf = (sb: Sandbox, group: string, version: string, plural: string) => {
  const t = sb.api.registry.find(group, version, plural);
  if (!t) throw new Error(`sandbox ${sb.name} serves no ${group}/${version} ${plural}`);
  return t;
};

async function clusters(links: number, dir: string): Promise<Clusters> {
  const east = await startSandbox({ name: "east" });
  const westPath = join(dir, "west.kubeconfig");
  const west = await startSandbox({ name: "west", kubeconfigPath: westPath, historyLimit: links * SERVICES * 4 + 1000 });
  const ready = (req: Request) => new URL(req.url).pathname === "/ready";
  const gateway = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => new Response(ready(req) ? "ok\n" : "", { status: ready(req) ? 200 : 404 }) });
  for (const sb of [east, west]) {
    for (const name of [...Array.from({ length: NAMESPACES }, (_, n) => `ns-${n}`), ...(sb === west ? [DEFAULT_NAMESPACE] : [])]) {
      sb.api.create(typeOf(sb, "", "v1", "namespaces"), undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name } }, write);
    }
  }
  for (let i = 0; i < SERVICES; i++) {
    const namespace = `ns-${i % NAMESPACES}`;
    const name = `svc-${i}`;
    const labels = { app: name, [EXPORTED]: "true" };
    east.api.create(typeOf(east, "", "v1", "services"), namespace, { apiVersion: "v1", kind: "Service", metadata: { name, namespace, labels }, spec: { ports: [{ name: "http", port: 80, targetPort: 8080 }] } }, write);
    const subsets = [{ addresses: [{ ip: `10.1.${i >> 8}.${i & 255}` }], ports: [{ name: "http", port: 8080 }] }];
    east.api.create(typeOf(east, "", "v1", "endpoints"), namespace, { apiVersion: "v1", kind: "Endpoints", metadata: { name, namespace, labels }, subsets }, write);
  }
  west.api.create(typeOf(west, "apiextensions.k8s.io", "v1", "customresourcedefinitions"), undefined, renderLinkCrd("bench") as never, write);
  const linkType = typeOf(west, "multicluster.linkerd.io", "v1alpha3", "links");
  const secretType = typeOf(west, "", "v1", "secrets");
  const kubeconfig = Buffer.from(east.kubeconfig).toString("base64");
  for (let l = 0; l < links; l++) {
    const cluster = `l${l}`;
    west.api.create(secretType, DEFAULT_NAMESPACE, { apiVersion: "v1", kind: "Secret", metadata: { name: credentialsSecretName(cluster), namespace: DEFAULT_NAMESPACE }, type: REMOTE_KUBECONFIG_SECRET_TYPE, data: { [KUBECONFIG_DATA_KEY]: kubeconfig } }, write);
    const spec = {
      targetClusterName: cluster,
      targetClusterDomain: "cluster.local",
      targetClusterLinkerdNamespace: "linkerd",
      clusterCredentialsSecret: credentialsSecretName(cluster),
      gatewayAddress: "192.0.2.1", // TEST-NET-1: data only (Endpoints refuse loopback); probed through --probe-address
      gatewayPort: "4143",
      gatewayIdentity: "linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.cluster.local",
      probeSpec: { path: "/ready", port: String(gateway.port), period: "3s" },
      selector: { matchLabels: { [EXPORTED]: "true" } },
      remoteDiscoverySelector: { matchLabels: { [EXPORTED]: "remote-discovery" } },
      federatedServiceSelector: { matchLabels: { "mirror.linkerd.io/federated": "member" } },
    };
    west.api.create(linkType, DEFAULT_NAMESPACE, { apiVersion: LINK_API_VERSION, kind: "Link", metadata: { name: cluster, namespace: DEFAULT_NAMESPACE }, spec } as never, write);
  }
  return {
    west,
    westPath,
    gatewayPort: gateway.port!,
    async stop() {
      await gateway.stop(true);
      await Promise.all([east.stop(), west.stop()]);
    },
  };
}

/**
 * Mirrors in west (Services a controller made for one of the Links), counted per cluster from
 * the store's own change feed: listing thousands of objects every tick would load the very
 * server the controllers write to.
 */
function mirrorCounter(west: Sandbox): { total(): number; perCluster: Record<string, number>; close(): void } {
  const perCluster: Record<string, number> = {};
  let total = 0;
  const close = west.store.watch({
    key: storageKey(typeOf(west, "", "v1", "services")),
    send: (e) => {
      const c = e.object.metadata.labels?.[CLUSTER_NAME];
      if (!c || e.object.metadata.labels?.[MIRRORED_SERVICE] !== "true" || e.type === "MODIFIED") return;
      const d = e.type === "ADDED" ? 1 : e.type === "DELETED" ? -1 : 0;
      perCluster[c] = (perCluster[c] ?? 0) + d;
      total += d;
    },
  });
  return { total: () => total, perCluster, close };
}

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : 0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs the processes until every mirror exists, idles, and returns the median of the summed RSS (MB). */
async function measure(links: number, argvs: string[][]): Promise<{ mb: number; syncMs: number }> {
  const dir = await mkdtemp(join(tmpdir(), "mc-bench-rss-"));
  const c = await clusters(links, dir);
  const counter = mirrorCounter(c.west);
  const started = Date.now();
  const procs = argvs.map((args) =>
    Bun.spawn(["bun", MC, "--kubeconfig", c.westPath, "serve", "--namespace", DEFAULT_NAMESPACE, "--admin-addr", "127.0.0.1:0", `--probe-address=127.0.0.1:${c.gatewayPort}`, `--log-level=${process.env.BENCH_LEVEL ?? "warn"}`, ...args], {
      // As mc install --shared-controller runs it: 50 Links' watches exceed Bun's default 256 concurrent requests.
      env: { ...process.env, NO_COLOR: "1", [MAX_HTTP_REQUESTS_ENV]: String(MAX_HTTP_REQUESTS) },
      stdin: "ignore",
      stdout: "ignore",
      stderr: process.env.BENCH_LOG ? Bun.file(`${process.env.BENCH_LOG}.${args.join("_").replace(/[^a-z0-9_-]/gi, "")}`) : "ignore",
    }),
  );
  try {
    const want = links * SERVICES;
    for (;;) {
      if (counter.total() >= want) break;
      const dead = procs.find((p) => p.exitCode !== null);
      if (dead) throw new Error(`a controller exited (${dead.exitCode}) before mirroring`);
      if (Date.now() - started > TIMEOUT_MS) throw new Error(`only ${counter.total()} of ${want} mirrors after ${TIMEOUT_MS / 1000} s; per cluster: ${JSON.stringify(counter.perCluster)}`);
      await Bun.sleep(200);
    }
    const syncMs = Date.now() - started;
    await Bun.sleep(IDLE_MS);
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) {
      samples.push(procs.reduce((sum, p) => sum + rssKb(p.pid), 0));
      await Bun.sleep(1000);
    }
    return { mb: median(samples) / 1024, syncMs };
  } finally {
    counter.close();
    for (const p of procs) p.kill();
    await Promise.all(procs.map((p) => p.exited));
    await c.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

const rows: Array<{ links: number; shared: number; perLink: number; sharedSync: number; perLinkSync: number }> = [];
for (const n of counts) {
  const shared = await measure(n, [["--all", "--identity=bench-all"]]);
  const perLink = await measure(n, Array.from({ length: n }, (_, l) => [`--identity=bench-l${l}`, `l${l}`]));
  rows.push({ links: n, shared: shared.mb, perLink: perLink.mb, sharedSync: shared.syncMs, perLinkSync: perLink.syncMs });
  console.error(`${n} links: --all ${shared.mb.toFixed(1)} MB (synced in ${shared.syncMs} ms), ${n} processes ${perLink.mb.toFixed(1)} MB (synced in ${perLink.syncMs} ms)`);
}

const base = rows[0]!;
console.log(`\nIdle RSS, ${SERVICES} exported services per Link (median of 5 samples after ${IDLE_MS / 1000} s idle; bun ${Bun.version}, ${navigator.hardwareConcurrency} cores)\n`);
console.log("| Links | one `mc serve --all` | `mc serve LINK` × N | ratio | per added Link (--all) |");
console.log("| ---: | ---: | ---: | ---: | ---: |");
for (const r of rows) {
  const added = r.links > base.links ? `${((r.shared - base.shared) / (r.links - base.links)).toFixed(2)} MB` : "—";
  console.log(`| ${r.links} | ${r.shared.toFixed(1)} MB | ${r.perLink.toFixed(1)} MB | ${(r.perLink / r.shared).toFixed(1)}× | ${added} |`);
}
