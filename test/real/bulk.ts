// N exported selector-less Services (and their Endpoints) created in east in a namespace of their own, 32 writes at a time; resolves once
// west holds every mirror with its Endpoints, seen by an informer on west (events, no polling); then deletes east's namespace and waits for
// every mirror to go. Returns how long each took (for the log; figures are a benchmark's business).
import { Informer, resources, type KubeClient, type KubeObject } from "../../src/kube/index.ts";
import { EXPORTED } from "../../src/model/labels.ts";
import type { Backend } from "./backend.ts";

const NAMESPACE = "bulk";

async function pool<T>(items: T[], n: number, fn: (t: T) => Promise<unknown>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (i < items.length) await fn(items[i++]!);
    }),
  );
}

/** Resolves once `done(cache size)` holds for an informer on east's mirrors in west (in one namespace, or those a field selector picks). */
export function counting(
  client: KubeClient,
  res: typeof resources.service | typeof resources.endpoints,
  done: (size: number) => boolean,
  what: string,
  timeoutMs: number,
  scope: { namespace?: string; fieldSelector?: string } = { namespace: NAMESPACE },
): { informer: Informer<KubeObject>; reached: Promise<void> } {
  const informer = new Informer<KubeObject>({ client, resource: res, ...scope, labelSelector: "mirror.linkerd.io/cluster-name=east" });
  const reached = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what} (${informer.cache.size} now)`)), timeoutMs);
    const check = () => {
      if (informer.hasSynced && done(informer.cache.size)) {
        clearTimeout(timer);
        resolve();
      }
    };
    informer.onKey(check);
    void informer.synced.then(check);
  });
  informer.start();
  return { informer, reached };
}

export async function syncServices(b: Backend, n: number, timeoutMs = 240_000): Promise<{ syncMs: number; removeMs: number }> {
  const east = b.east.client;
  await b.west.kubectl(["create", "namespace", NAMESPACE]);
  await b.east.kubectl(["create", "namespace", NAMESPACE]);
  const svcs = counting(b.west.client, resources.service, (s) => s === n, `${n} mirrors in west`, timeoutMs);
  const eps = counting(b.west.client, resources.endpoints, (s) => s === n, `${n} mirror Endpoints in west`, timeoutMs);
  try {
    const started = performance.now();
    await pool(
      Array.from({ length: n }, (_, i) => `svc-${i}`),
      32,
      async (name) => {
        await east.create(resources.service, {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name, namespace: NAMESPACE, labels: { [EXPORTED]: "true" } },
          spec: { ports: [{ name: "http", port: 80 }] },
        } as KubeObject);
        await east.create(resources.endpoints, {
          apiVersion: "v1",
          kind: "Endpoints",
          metadata: { name, namespace: NAMESPACE },
          subsets: [{ addresses: [{ ip: "10.1.0.7" }], ports: [{ name: "http", port: 8080 }] }],
        } as KubeObject);
      },
    );
    await Promise.all([svcs.reached, eps.reached]);
    const syncMs = performance.now() - started;
    const removed = performance.now();
    const gone = counting(b.west.client, resources.service, (s) => s === 0, "every bulk mirror deleted", timeoutMs);
    try {
      await b.east.kubectl(["delete", "namespace", NAMESPACE, "--wait=false"]);
      await gone.reached;
    } finally {
      await gone.informer.stop();
    }
    return { syncMs, removeMs: performance.now() - removed };
  } finally {
    await Promise.all([svcs.informer.stop(), eps.informer.stop()]);
  }
}
