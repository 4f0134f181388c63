// What west holds of east's mirrors, as a user's watch sees it: informers in the bench process on west's Services and Endpoints labelled
// with the cluster (the mirrors in ns-*, not the gateway mirror), following the mirrors, which have ready / only not-ready Endpoints, and
// every churn label seen (`slices`: readiness read from their EndpointSlices instead). A wait ends on the event that completes it.
import { Informer, resources, type KubeClient, type KubeObject } from "../../../src/kube/index.ts";
import * as L from "../../../src/model/labels.ts";

type Eps = KubeObject & { subsets?: Array<{ addresses?: unknown[]; notReadyAddresses?: unknown[] }> };
const readyAddresses = (e: KubeObject) => ((e as Eps).subsets ?? []).reduce((n, s) => n + (s.addresses?.length ?? 0), 0);
const notReadyAddresses = (e: KubeObject) => ((e as Eps).subsets ?? []).reduce((n, s) => n + (s.notReadyAddresses?.length ?? 0), 0);
type Slice = KubeObject & { endpoints?: Array<{ conditions?: { ready?: boolean } }> };
const sliceReady = (e: KubeObject, ready: boolean) =>
  ((e as Slice).endpoints ?? []).filter((x) => (x.conditions?.ready === true) === ready).length;

export interface WestView {
  mirrors: Set<string>;
  ready: Set<string>;
  notReady: Set<string>;
  /** Called with every mirror Service event (key, object, when it arrived). */
  onService(fn: (key: string, obj: KubeObject, at: number) => void): () => void;
  /** Called with every mirror Endpoints event. */
  onEndpoints(fn: (key: string, obj: KubeObject | undefined, at: number) => void): () => void;
  until(check: () => boolean, what: string, timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

const inMirrorNamespace = (o: KubeObject) => o.metadata.namespace?.startsWith("ns-") === true;

/**
 * `cluster`: the value of the cluster-name label followed (`east`: mc's mirrors; the limit client labels its copies `limit`; `*`: the
 * mirrors of every Link).
 */
export async function watchWest(client: KubeClient, cluster = "east", o: { slices?: boolean } = {}): Promise<WestView> {
  const selector = cluster === "*" ? L.CLUSTER_NAME : `${L.CLUSTER_NAME}=${cluster}`;
  const services = new Informer<KubeObject>({ client, resource: resources.service, labelSelector: selector, relistIntervalMs: 0 });
  // A mirror's endpoints: its Endpoints, or (`slices`) its EndpointSlice, keyed by the Service it names (one slice per mirror here).
  const endpoints = new Informer<KubeObject>({
    client,
    resource: o.slices ? resources.endpointSlice : resources.endpoints,
    labelSelector: selector,
    relistIntervalMs: 0,
  });
  const keyOf = (e: { key: string; object: KubeObject }) =>
    o.slices ? `${e.object.metadata.namespace}/${e.object.metadata.labels?.[L.SLICE_SERVICE_NAME] ?? ""}` : e.key;
  const counts = o.slices
    ? (e: KubeObject) => [sliceReady(e, true), sliceReady(e, false)] as const
    : (e: KubeObject) => [readyAddresses(e), notReadyAddresses(e)] as const;
  const mirrors = new Set<string>();
  const ready = new Set<string>();
  const notReady = new Set<string>();
  const svcFns = new Set<(key: string, obj: KubeObject, at: number) => void>();
  const epFns = new Set<(key: string, obj: KubeObject | undefined, at: number) => void>();
  const fires = new Set<() => void>();
  const fire = () => {
    for (const f of fires) f();
  };
  services.on((e) => {
    if (!inMirrorNamespace(e.object)) return;
    const at = performance.now();
    if (e.type === "deleted") mirrors.delete(e.key);
    else mirrors.add(e.key);
    for (const f of svcFns) f(e.key, e.object, at);
    fire();
  });
  endpoints.on((e) => {
    if (!inMirrorNamespace(e.object)) return;
    const at = performance.now();
    const live = e.type !== "deleted";
    const [readyCount, notReadyCount] = counts(e.object);
    const r = live && readyCount > 0 && notReadyCount === 0;
    const n = live && notReadyCount > 0 && readyCount === 0;
    const key = keyOf(e);
    r ? ready.add(key) : ready.delete(key);
    n ? notReady.add(key) : notReady.delete(key);
    for (const f of epFns) f(key, live ? e.object : undefined, at);
    fire();
  });
  services.start();
  endpoints.start();
  await Promise.all([services.synced, endpoints.synced]);
  const sub = <F>(set: Set<F>, fn: F) => {
    set.add(fn);
    return () => void set.delete(fn);
  };
  return {
    mirrors,
    ready,
    notReady,
    onService: (fn) => sub(svcFns, fn),
    onEndpoints: (fn) => sub(epFns, fn),
    until: (check, what, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        const done = (err?: Error) => {
          clearTimeout(timer);
          fires.delete(test);
          err ? reject(err) : resolve();
        };
        const test = () => void (check() && done());
        const timer = setTimeout(
          () =>
            done(
              new Error(
                `timed out after ${timeoutMs} ms waiting for ${what} (mirrors ${mirrors.size}, ready ${ready.size}, not ready ${notReady.size})`,
              ),
            ),
          timeoutMs,
        );
        fires.add(test);
        test();
      }),
    stop: async () => {
      await Promise.all([services.stop(), endpoints.stop()]);
    },
  };
}
