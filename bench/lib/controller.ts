// The controller as the benchmarks run it: `mc serve` in-process (src/serve/serve.ts: leader election, the supervisor, the controller, its
// real prober probing the pair's fake gateway), and what west holds as the controller writes it — mirrors, and how many have ready
// Endpoints — followed through the ledger, so a wait ends on the write that completes it.
import { connect } from "../../src/kube/index.ts";
import type { MirrorController } from "../../src/mirror/controller.ts";
import { serve, type Serving } from "../../src/serve/serve.ts";
import type { LinkSupervisor } from "../../src/serve/supervisor.ts";
import * as L from "../../src/model/labels.ts";
import * as Names from "../../src/model/names.ts";
import { proberFactory, type ProberDeps } from "../../src/prober/index.ts";
import {
  CLUSTER,
  notReadyAddresses,
  NS,
  readyAddresses,
  seedExported,
  startPair,
  until,
  WriteLedger,
  type Pair,
  type PairOptions,
} from "./pair.ts";

/** What west holds, followed write by write. */
export interface WestView {
  ledger: WriteLedger;
  /** Mirror Services in west (`ns/name`). */
  mirrors: Set<string>;
  /** Mirror Endpoints with ready addresses only / not-ready only. */
  ready: Set<string>;
  notReady: Set<string>;
  /** Resolves when `check` holds, re-checked on every write to west. */
  until(check: () => boolean, what: string, timeoutMs: number): Promise<void>;
  close(): void;
}

export interface Mirroring extends WestView {
  serving: Serving;
  controller: MirrorController;
  /** Waits until the controller's informers saw every write to west, then drains its queue. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

export interface MirroringOptions {
  endpointRefreshPeriod?: number;
  /** `mc serve --mirror-endpoint-slices`. */
  mirrorEndpointSlices?: boolean;
  /** `mc serve --mirror-name-template`. */
  mirrorNameTemplate?: string;
  /** `mc serve --namespace-selector`. */
  namespaceSelector?: string;
  prober?: ProberDeps;
  /** Called once the controller exists, before it syncs. */
  onController?: (c: MirrorController) => void;
}

/** The controller `serving` starts once it leads; resolves as soon as it exists (before it syncs). */
function controllerOf(serving: Serving): Promise<MirrorController> {
  return new Promise<MirrorController>((resolve) => {
    const watch = (s: LinkSupervisor | undefined) => {
      if (s?.controller) return resolve(s.controller);
      s?.onController((c) => c && resolve(c));
    };
    if (serving.leading) watch(serving.supervisor);
    serving.onLeading((leading) => leading && watch(serving.supervisor));
  });
}

/** Follows west's mirrors through its store's commits. */
export function watchWest(pair: Pair): WestView {
  const ledger = new WriteLedger(pair.west);
  const mirrors = new Set<string>();
  const ready = new Set<string>();
  const notReady = new Set<string>();
  ledger.on((kind, e) => {
    const key = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
    if (kind === "mirrorService") e.type === "DELETED" ? mirrors.delete(key) : mirrors.add(key);
    if (kind === "mirrorEndpoints") {
      const live = e.type !== "DELETED";
      const r = live && readyAddresses(e.object) > 0 && notReadyAddresses(e.object) === 0;
      const n = live && notReadyAddresses(e.object) > 0 && readyAddresses(e.object) === 0;
      r ? ready.add(key) : ready.delete(key);
      n ? notReady.add(key) : notReady.delete(key);
    }
  });
  return {
    ledger,
    mirrors,
    ready,
    notReady,
    until: (check, what, timeoutMs) => until(check, [(fire) => ledger.on(fire)], what, timeoutMs),
    close: () => ledger.close(),
  };
}

/** Starts `mc serve east` against west, in this process. Returns once the controller exists. */
export async function startMirroring(pair: Pair, o: MirroringOptions = {}): Promise<Mirroring> {
  const west = watchWest(pair);
  const { ledger } = west;
  const local = await connect({ kubeconfig: pair.westKubeconfig });
  const serving = await serve({
    local,
    namespace: NS,
    linkName: CLUSTER,
    adminAddr: "127.0.0.1:0",
    identity: "mc-bench",
    // The prober runs as in production, but rewrites a steady status.gateway only once an hour.
    settings: {
      probeAddress: { "": `127.0.0.1:${pair.gateway.port}` },
      endpointRefreshPeriod: o.endpointRefreshPeriod,
      mirrorEndpointSlices: o.mirrorEndpointSlices,
      mirrorNameTemplate: o.mirrorNameTemplate,
      namespaceSelector: o.namespaceSelector,
    },
    controller: { proberFactory: proberFactory({ statusIntervalMs: 3_600_000, ...o.prober }) },
  });
  const controller = await controllerOf(serving);
  o.onController?.(controller);

  // The newest resourceVersion each local informer has seen, to know when it caught up with west.
  const seen = { services: 0, endpoints: 0 };
  const seenFires = new Set<() => void>();
  for (const k of ["services", "endpoints"] as const) {
    controller.informers[k].on((e) => {
      seen[k] = Math.max(seen[k], Number(e.object.metadata.resourceVersion));
      for (const f of seenFires) f();
    });
  }
  const onSeen = (fire: () => void) => {
    seenFires.add(fire);
    return () => seenFires.delete(fire);
  };
  const m: Mirroring = {
    ...west,
    serving,
    controller,
    async settle() {
      for (let round = 0; round < 5; round++) {
        const want = { ...ledger.lastRv };
        const caughtUp = () =>
          Math.max(seen.services, Number(controller.informers.services.resourceVersion)) >= want.services &&
          Math.max(seen.endpoints, Number(controller.informers.endpoints.resourceVersion)) >= want.endpoints;
        await until(caughtUp, [onSeen], "the controller's informers to see every write to west", 120_000);
        await controller.drain();
        if (ledger.lastRv.services === want.services && ledger.lastRv.endpoints === want.endpoints) return;
      }
      throw new Error("west still changing after 5 settle rounds");
    },
    async stop() {
      await serving.stop();
      west.close();
    },
  };
  return m;
}

/** Waits until `n` mirrors exist with ready Endpoints (every mirror of the pair's exported Services). */
export function allMirrored(m: WestView, n: number, timeoutMs = 60_000 + n * 30): Promise<void> {
  return m.until(() => m.mirrors.size >= n && m.ready.size >= n, `${n} mirrors with ready Endpoints in west`, timeoutMs);
}

export type MirrorObject = Record<string, unknown> & {
  kind: string;
  metadata: { name: string; namespace: string; labels?: Record<string, string>; annotations?: Record<string, string> };
};

/** The mirrors in west as a plain client would write them: our Services and Endpoints, server fields stripped. */
export function mirrorObjects(pair: Pair): MirrorObject[] {
  const ours = [{ key: L.CLUSTER_NAME, op: "=" as const, value: CLUSTER }];
  const out: MirrorObject[] = [];
  const services = pair.west.store
    .scan(pair.west.api.registry.findKind("v1", "Service")!, { labels: ours })
    .filter((s) => s.metadata.labels?.[L.MIRRORED_SERVICE] === "true");
  const endpoints = new Map(
    pair.west.store
      .scan(pair.west.api.registry.findKind("v1", "Endpoints")!, { labels: ours })
      .map((e) => [`${e.metadata.namespace}/${e.metadata.name}`, e]),
  );
  for (const s of services) {
    const meta = {
      name: s.metadata.name!,
      namespace: s.metadata.namespace!,
      labels: s.metadata.labels,
      annotations: s.metadata.annotations,
    };
    const { clusterIP: _c, clusterIPs: _cs, ...spec } = s.spec as Record<string, unknown>;
    out.push({ apiVersion: "v1", kind: "Service", metadata: meta, spec });
    const e = endpoints.get(`${meta.namespace}/${meta.name}`);
    if (e && e.metadata.name !== Names.probeGatewayName(CLUSTER)) {
      out.push({
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: { name: meta.name, namespace: meta.namespace, labels: e.metadata.labels, annotations: e.metadata.annotations },
        subsets: e.subsets,
      });
    }
  }
  return out;
}

/**
 * A pair with `n` exported Services in east, `mc serve` mirroring them into west (all mirrored
 * and settled before `body` runs), torn down after it however it ends.
 */
export async function withMirrors<T>(
  n: number,
  pairOptions: PairOptions,
  mirroring: MirroringOptions,
  body: (pair: Pair, m: Mirroring) => Promise<T>,
): Promise<T> {
  const pair = await startPair(pairOptions);
  try {
    seedExported(pair.east, n, pairOptions.namespaces);
    const m = await startMirroring(pair, mirroring);
    try {
      await allMirrored(m, n);
      await m.settle();
      return await body(pair, m);
    } finally {
      await m.stop();
    }
  } finally {
    await pair.stop();
  }
}
