// `bun run bench sync --backend real`: the initial sync on two real clusters (test/real: Kubernetes v1.37.2 built by `bun run kube:build`;
// needs root for the gateway host).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resources, type KubeClient, type KubeObject } from "../../src/kube/index.ts";
import { startBackend, type TestCluster } from "../../test/real/backend.ts";
import { counting } from "../../test/real/bulk.ts";
import * as T from "../../test/real/tier.ts";
import { serverWrites } from "../lib/blackbox/server-writes.ts";
import { eastEndpoints, eastService } from "../lib/pair.ts";
import { bestConcurrency, writeAll } from "../lib/limit.ts";
import { say, size } from "../lib/scenario.ts";
import { ms, perSecond, ratio } from "../lib/stats.ts";

// East gets N exported Services (two ports, ready Endpoints) through the API, then `mc serve` starts
// as its own process, as the ServiceAccount `mc link` renders; the time until west holds every mirror
// Service and its Endpoints (seen by informers on west), and the writes it took (west's
// apiserver_request_total for Services and Endpoints, before and after). The limit: mc's kube client
// alone writing the same 2N objects (the mirrors as the controller wrote them, server fields stripped)
// into fresh namespaces of the same west, at the best concurrency it finds.

const NAMESPACES = 20;
/** The mirrors of the seeded Services, not the gateway's probe mirror in linkerd-multicluster. */
const exportsOnly = { fieldSelector: `metadata.namespace!=${T.NS}` };
const SAMPLE = 200;

export interface RealSyncFigures {
  n: number;
  mirrorMs: number;
  mirrorsPerSecond: number;
  writesPerMirror: number;
  limitConcurrency: number;
  limitMs: number;
  limitMirrorsPerSecond: number;
  ratio: number;
}

/** Mutating requests on Services and Endpoints west's API server has answered, from its /metrics. */
async function serviceWrites(c: TestCluster): Promise<number> {
  const w = await serverWrites(c.kubeconfigPath);
  return (w.services ?? 0) + (w.endpoints ?? 0);
}

async function pool<T>(items: readonly T[], n: number, fn: (t: T) => Promise<unknown>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (i < items.length) await fn(items[i++]!);
    }),
  );
}

/** A mirror as the controller wrote it, ready to be created again under `namespace`. */
function asWritten(o: KubeObject, namespace: string): KubeObject {
  const { name, labels, annotations } = o.metadata;
  const copy = { ...(o as Record<string, unknown>), metadata: { name, namespace, labels, annotations } } as KubeObject & {
    spec?: Record<string, unknown>;
    status?: unknown;
  };
  delete copy.status;
  if (copy.spec) {
    const { clusterIP: _ip, clusterIPs: _ips, ...spec } = copy.spec;
    copy.spec = spec;
  }
  return copy;
}

const createNamespaces = (c: TestCluster, names: string[]) =>
  c.kubectl(
    ["apply", "-f", "-"],
    names.map((name) => JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name } })).join("\n"),
  );

const create = (client: KubeClient, o: KubeObject) =>
  client.create(o.kind === "Service" ? resources.service : resources.endpoints, o, { fieldManager: "mc-bench-limit" });

export async function measureReal(n: number): Promise<RealSyncFigures> {
  const b = await startBackend("real");
  const dir = mkdtempSync(join(tmpdir(), "mc-bench-real-"));
  try {
    await Promise.all([T.install(b.east), T.install(b.west)]);
    await T.link(b);
    const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `ns-${i}`);
    for (const c of [b.east, b.west]) await createNamespaces(c, namespaces);
    await pool(
      Array.from({ length: n }, (_, i) => i),
      32,
      async (i) => {
        await b.east.client.create(resources.service, eastService(i, NAMESPACES));
        await b.east.client.create(resources.endpoints, eastEndpoints(i, NAMESPACES));
      },
    );
    say(`${size(n)}: east seeded`);
    const kubeconfig = await T.controllerKubeconfig(b, dir);
    const timeout = 120_000 + n * 60;
    const svcs = counting(b.west.client, resources.service, (s) => s >= n, `${n} mirrors`, timeout, exportsOnly);
    const eps = counting(b.west.client, resources.endpoints, (s) => s >= n, `${n} mirror Endpoints`, timeout, exportsOnly);
    const writesBefore = await serviceWrites(b.west);
    const t0 = performance.now();
    const ctl = await T.serve(b, kubeconfig, ["east"]);
    let mirrorMs: number;
    let mirrors: KubeObject[];
    try {
      await Promise.all([svcs.reached, eps.reached]);
      mirrorMs = performance.now() - t0;
      mirrors = [...svcs.informer.cache.list(), ...eps.informer.cache.list()];
    } catch (err) {
      say(`mc serve's log:\n${ctl.stderr().trimEnd().split("\n").slice(-15).join("\n")}`);
      throw err;
    } finally {
      ctl.proc.kill("SIGTERM");
      await ctl.proc.exited;
      await Promise.all([svcs.informer.stop(), eps.informer.stop()]);
    }
    const writes = (await serviceWrites(b.west)) - writesBefore;
    say(
      `${size(n)}: mc serve (its own process) mirrored in ${ms(mirrorMs)} (${perSecond(n, mirrorMs).toFixed(0)}/s), ${(writes / n).toFixed(2)} writes/mirror`,
    );

    // The limit, into fresh namespaces of west: the concurrency search first (which also warms up), then all 2N.
    await createNamespaces(b.west, ["limit-search", "limit"]);
    const ordered = [...mirrors.filter((o) => o.kind === "Service"), ...mirrors.filter((o) => o.kind !== "Service")];
    const search = (i: number) => {
      const o = asWritten(ordered[i % ordered.length]!, "limit-search");
      return create(b.west.client, { ...o, metadata: { ...o.metadata, name: `s${Math.floor(i / ordered.length)}-${o.metadata.name}` } });
    };
    const { concurrency } = await bestConcurrency(SAMPLE, 0, search, [4, 16, 64]);
    const limitMs = await writeAll(ordered.length, concurrency, (i) => create(b.west.client, asWritten(ordered[i]!, "limit")));
    const f: RealSyncFigures = {
      n,
      mirrorMs,
      mirrorsPerSecond: perSecond(n, mirrorMs),
      writesPerMirror: writes / n,
      limitConcurrency: concurrency,
      limitMs,
      limitMirrorsPerSecond: perSecond(n, limitMs),
      ratio: limitMs / mirrorMs,
    };
    say(
      `${size(n)}: plain client wrote ${ordered.length} objects in ${ms(limitMs)} at ${concurrency} in flight; controller / limit ${ratio(f.ratio)}`,
    );
    return f;
  } finally {
    await b.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
