// Sandboxes for one `mc serve --all` with many Links, in the bench process: a target `east` with S exported Services (each with an
// Endpoints of E addresses), and `west` holding L Links to it (cluster names l0…, so each Link mirrors all S), their credentials Secrets
// and a loopback gateway the probes answer; and a count of west's mirrors from its store's change feed.
import { join } from "node:path";
import { renderLinkCrd } from "../../src/manifests/crd.ts";
import { CLUSTER_NAME, EXPORTED, KUBECONFIG_DATA_KEY, MIRRORED_SERVICE, REMOTE_KUBECONFIG_SECRET_TYPE } from "../../src/model/labels.ts";
import {
  credentialsSecretName,
  DEFAULT_NAMESPACE,
  LINK_API_VERSION,
  CONTROLLER_ENV,
  MAX_HTTP_REQUESTS,
  MAX_HTTP_REQUESTS_ENV,
} from "../../src/model/names.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { storageKey } from "../../src/sandbox/storage/keys.ts";
import { MC, spawnUntil, type Until } from "../../test/helpers/mc.ts";

export const MANY_LINKS_NAMESPACES = 10;

/**
 * `mc serve --all` against west as its own process, probing every gateway at 127.0.0.1:`probePort`, with the raised request cap
 * mc install --shared-controller gives it (many Links' watches exceed Bun's default 256 concurrent requests) and every controller's
 * runtime environment (CONTROLLER_ENV, as its Deployment sets it); resolves once it
 * listens. `prof`: with BENCH_CPU_PROF=<dir>, it writes a CPU profile (markdown) there when it stops.
 */
export function spawnServeAll(westKubeconfig: string, probePort: number, prof = false): Promise<Until> {
  const profile = prof && process.env.BENCH_CPU_PROF ? ["--cpu-prof-md", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  return spawnUntil(
    [
      "bun",
      ...profile,
      MC,
      "--kubeconfig",
      westKubeconfig,
      "serve",
      "--all",
      "--namespace",
      DEFAULT_NAMESPACE,
      "--admin-addr",
      "127.0.0.1:0",
      `--probe-address=127.0.0.1:${probePort}`,
    ],
    /admin server listening on (http:\/\/127\.0\.0\.1:\d+)/,
    { env: { ...process.env, NO_COLOR: "1", ...CONTROLLER_ENV, [MAX_HTTP_REQUESTS_ENV]: String(MAX_HTTP_REQUESTS) } },
  );
}

/** The spec of a bench's Link to `cluster`: its gateway at TEST-NET-1 (data only, probed through --probe-address), probed every 3 s. */
export function benchLinkSpec(cluster: string, probePort: string): Record<string, unknown> {
  return {
    targetClusterName: cluster,
    targetClusterDomain: "cluster.local",
    targetClusterLinkerdNamespace: "linkerd",
    clusterCredentialsSecret: credentialsSecretName(cluster),
    gatewayAddress: "192.0.2.1", // TEST-NET-1: data only (Endpoints refuse loopback); probed through --probe-address
    gatewayPort: "4143",
    gatewayIdentity: "linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.cluster.local",
    probeSpec: { path: "/ready", port: probePort, period: "3s" },
    selector: { matchLabels: { [EXPORTED]: "true" } },
    remoteDiscoverySelector: { matchLabels: { [EXPORTED]: "remote-discovery" } },
    federatedServiceSelector: { matchLabels: { "mirror.linkerd.io/federated": "member" } },
  };
}
const write = { fieldManager: "bench" };

export interface ManyLinks {
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

/** `links` Links in west to one east of `services` exported Services, each with `addresses` ready endpoints. */
export async function startManyLinks(links: number, services: number, dir: string, addresses = 1): Promise<ManyLinks> {
  const east = await startSandbox({ name: "east" });
  const westPath = join(dir, "west.kubeconfig");
  const west = await startSandbox({ name: "west", kubeconfigPath: westPath, historyLimit: links * services * 4 + 1000 });
  const ready = (req: Request) => new URL(req.url).pathname === "/ready";
  const gateway = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => new Response(ready(req) ? "ok\n" : "", { status: ready(req) ? 200 : 404 }),
  });
  for (const sb of [east, west]) {
    for (const name of [
      ...Array.from({ length: MANY_LINKS_NAMESPACES }, (_, n) => `ns-${n}`),
      ...(sb === west ? [DEFAULT_NAMESPACE] : []),
    ]) {
      sb.api.create(typeOf(sb, "", "v1", "namespaces"), undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name } }, write);
    }
  }
  for (let i = 0; i < services; i++) {
    const namespace = `ns-${i % MANY_LINKS_NAMESPACES}`;
    const name = `svc-${i}`;
    const labels = { app: name, [EXPORTED]: "true" };
    east.api.create(
      typeOf(east, "", "v1", "services"),
      namespace,
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name, namespace, labels },
        spec: { ports: [{ name: "http", port: 80, targetPort: 8080 }] },
      },
      write,
    );
    // Address k of all services × addresses: 10.(1 + k / 65536).(k / 256 % 256).(k % 256), each distinct.
    const ips = Array.from({ length: addresses }, (_, a) => i * addresses + a).map((k) => ({
      ip: `10.${1 + (k >> 16)}.${(k >> 8) & 255}.${k & 255}`,
    }));
    const subsets = [{ addresses: ips, ports: [{ name: "http", port: 8080 }] }];
    east.api.create(
      typeOf(east, "", "v1", "endpoints"),
      namespace,
      { apiVersion: "v1", kind: "Endpoints", metadata: { name, namespace, labels }, subsets },
      write,
    );
  }
  west.api.create(
    typeOf(west, "apiextensions.k8s.io", "v1", "customresourcedefinitions"),
    undefined,
    renderLinkCrd("bench") as never,
    write,
  );
  const linkType = typeOf(west, "multicluster.linkerd.io", "v1alpha3", "links");
  const secretType = typeOf(west, "", "v1", "secrets");
  const kubeconfig = Buffer.from(east.kubeconfig).toString("base64");
  for (let l = 0; l < links; l++) {
    const cluster = `l${l}`;
    west.api.create(
      secretType,
      DEFAULT_NAMESPACE,
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: credentialsSecretName(cluster), namespace: DEFAULT_NAMESPACE },
        type: REMOTE_KUBECONFIG_SECRET_TYPE,
        data: { [KUBECONFIG_DATA_KEY]: kubeconfig },
      },
      write,
    );
    const spec = benchLinkSpec(cluster, String(gateway.port));
    west.api.create(
      linkType,
      DEFAULT_NAMESPACE,
      { apiVersion: LINK_API_VERSION, kind: "Link", metadata: { name: cluster, namespace: DEFAULT_NAMESPACE }, spec } as never,
      write,
    );
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
export function mirrorCounter(west: Sandbox): { total(): number; perCluster: Record<string, number>; close(): void } {
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
