// Many Links for one `mc serve --all`, every API server its own `mc sandbox` process: T target sandboxes (t0…) of M exported Services
// each, and west, where Links l0, l1, … are added on demand, Link k to target k mod T (several names for one cluster, as a real setup may
// have), with their credentials Secrets and a loopback gateway the probes answer.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, resources, type KubeClient, type KubeObject } from "../../../src/kube/index.ts";
import { renderLinkCrd } from "../../../src/manifests/crd.ts";
import { linkResource } from "../../../src/model/link.ts";
import { KUBECONFIG_DATA_KEY, REMOTE_KUBECONFIG_SECRET_TYPE } from "../../../src/model/labels.ts";
import { credentialsSecretName, DEFAULT_NAMESPACE, LINK_API_VERSION } from "../../../src/model/names.ts";
import { startFakeGateway } from "../../../test/helpers/clusters.ts";
import { MC, spawnUntil, type Until } from "../../../test/helpers/mc.ts";
import { benchLinkSpec, spawnServeAll } from "../many-links.ts";
import { eastEndpoints, eastService } from "../pair.ts";

// One sandbox process per target would be 50 processes for 50 Links on a 2-core machine: each target
// serves every Link pointed at it instead (each Link still lists, watches and mirrors M Services).

export const LINKED_NAMESPACES = 10;

export interface Sandboxed {
  name: string;
  kubeconfigPath: string;
  client: KubeClient;
  pid: number;
}

export interface LinkedClusters {
  targets: Sandboxed[];
  west: Sandboxed;
  /** Every sandbox process by name (t0…, west). */
  pids: Record<string, number>;
  /** Links l0 … l<count-1> in west (those missing are made). */
  linkUpTo(count: number): Promise<void>;
  /** `mc serve --all` as its own process against west; resolves once its admin server listens. */
  serveAll(): Promise<Until>;
  stop(): Promise<void>;
}

/** The target cluster name of Link k (its mirrors are `<svc>-l<k>`). */
export const linkName = (k: number): string => `l${k}`;

async function pool(count: number, n: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (i < count) await fn(i++);
    }),
  );
}

const namespace = (name: string): KubeObject => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } });

/** `targets` target sandboxes of `services` exported Services each (ready Endpoints), and west with the Link CRD; no Link yet. */
export async function startLinked(targets: number, services: number): Promise<LinkedClusters> {
  const dir = mkdtempSync(join(tmpdir(), "mc-bench-linked-"));
  const procs: Until[] = [];
  const gateway = startFakeGateway();
  const stop = async () => {
    await gateway.kill();
    for (const p of procs) {
      p.proc.kill("SIGTERM");
      await p.proc.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const start = async (name: string): Promise<Sandboxed> => {
    const kubeconfigPath = join(dir, `${name}.kubeconfig`);
    const p = await spawnUntil(["bun", MC, "sandbox", "--name", name, "--tls", "--kubeconfig", kubeconfigPath], /ready at/);
    procs.push(p);
    return { name, kubeconfigPath, client: await connect({ kubeconfig: kubeconfigPath, name }), pid: p.proc.pid };
  };
  try {
    const ts = await Promise.all(Array.from({ length: targets }, (_, t) => start(`t${t}`)));
    const west = await start("west");
    const nss = Array.from({ length: LINKED_NAMESPACES }, (_, n) => `ns-${n}`);
    for (const c of [...ts, west])
      for (const ns of [...nss, ...(c === west ? [DEFAULT_NAMESPACE] : [])]) await c.client.create(resources.namespace, namespace(ns));
    for (const t of ts)
      await pool(services, 16, async (i) => {
        await t.client.create(resources.service, eastService(i, LINKED_NAMESPACES));
        await t.client.create(resources.endpoints, eastEndpoints(i, LINKED_NAMESPACES));
      });
    await west.client.create(resources.customResourceDefinition, renderLinkCrd("bench") as KubeObject);
    let links = 0;
    return {
      targets: ts,
      west,
      pids: Object.fromEntries([...ts, west].map((c) => [c.name, c.pid])),
      async linkUpTo(count) {
        for (; links < count; links++) {
          const cluster = linkName(links);
          const target = ts[links % ts.length]!;
          await west.client.create(resources.secret, {
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name: credentialsSecretName(cluster), namespace: DEFAULT_NAMESPACE },
            type: REMOTE_KUBECONFIG_SECRET_TYPE,
            data: { [KUBECONFIG_DATA_KEY]: Buffer.from(readFileSync(target.kubeconfigPath, "utf8")).toString("base64") },
          } as KubeObject);
          const spec = benchLinkSpec(cluster, "4191");
          await west.client.create(linkResource, {
            apiVersion: LINK_API_VERSION,
            kind: "Link",
            metadata: { name: cluster, namespace: DEFAULT_NAMESPACE },
            spec,
          } as KubeObject);
        }
      },
      serveAll: () => spawnServeAll(west.kubeconfigPath, gateway.port, true),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
