// East→west for the controller benchmarks, on the test kit's clusters and fake gateway (test/helpers/clusters.ts), prepared from src/ the
// way `mc demo` does (src/demo/walkthrough.ts): a stand-in Linkerd, `mc install` on both, `mc link` against east (TLS, so its token
// authenticates) applied to west. Plus a ledger of every write west stores, by what it wrote.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { buildInstall, defaultInstallOptions } from "../../src/linker/install.ts";
import { defaultLinkOptions } from "../../src/cli/link-flags.ts";
import { buildLinkBundle } from "../../src/linker/link.ts";
import * as L from "../../src/model/labels.ts";
import * as N from "../../src/model/names.ts";
import { applyObjects } from "../../src/demo/apply.ts";
import type { Sandbox } from "../../src/sandbox/index.ts";
import { fakeLinkerd } from "../../src/demo/fake-linkerd.ts";
import { startCluster, startFakeGateway, type FakeGateway } from "../../test/helpers/clusters.ts";
import { storageKey } from "../../src/sandbox/storage/keys.ts";
import type { StoreEvent } from "../../src/sandbox/storage/watch-hub.ts";
import type { KubeObject, ResourceType } from "../../src/sandbox/types.ts";

export const NS = N.DEFAULT_NAMESPACE;
export const CLUSTER = "east";

export interface Pair {
  east: Sandbox;
  west: Sandbox;
  eastKubeconfig: string;
  westKubeconfig: string;
  /** Killed (probes refused, as with a dead gateway) and restarted on its port by the failure scenario. */
  gateway: FakeGateway;
  stop(): Promise<void>;
}

export interface PairOptions {
  /** Namespaces created in both clusters: `ns-0` … */
  namespaces: number;
  /** Written into the Link's probeSpec. */
  probePeriod: string;
  /** The Link's probeSpec.failureThreshold (default "1": dead at the first failed probe). */
  failureThreshold?: string;
  /** The Link's probeSpec.timeout (default "1s"). */
  probeTimeout?: string;
  /** Events each sandbox keeps for watch resumes (the sandbox's default when absent). */
  historyLimit?: number;
}

const type = (sb: Sandbox, apiVersion: string, kind: string): ResourceType => {
  const t = sb.api.registry.findKind(apiVersion, kind);
  if (!t) throw new Error(`sandbox ${sb.name} serves no ${apiVersion} ${kind}`);
  return t;
};

/** A stand-in Linkerd, `mc install`, and namespaces `ns-0` … in a sandbox. */
export async function prepareCluster(sb: Sandbox, kubeconfigPath: string, namespaces: number): Promise<void> {
  fakeLinkerd(sb);
  applyObjects(sb, await buildInstall(defaultInstallOptions(pkg.version, kubeconfigPath)), "mc-bench");
  const ns = type(sb, "v1", "Namespace");
  for (let n = 0; n < namespaces; n++)
    sb.api.create(ns, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: `ns-${n}` } }, { fieldManager: "mc-bench" });
}

/** A west alone (for the plain client's limit): prepared as in a pair, its kubeconfig in a temporary directory. */
export async function startWest(namespaces: number): Promise<{ west: Sandbox; kubeconfig: string; stop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "mc-bench-"));
  const kubeconfig = join(dir, "west.kubeconfig");
  const { sandbox: west } = await startCluster("west", { kubeconfigPath: kubeconfig });
  await prepareCluster(west, kubeconfig, namespaces);
  return {
    west,
    kubeconfig,
    async stop() {
      await west.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function startPair(o: PairOptions): Promise<Pair> {
  const dir = await mkdtemp(join(tmpdir(), "mc-bench-"));
  const eastPath = join(dir, "east.kubeconfig");
  const westPath = join(dir, "west.kubeconfig");
  const { sandbox: east } = await startCluster(CLUSTER, { tls: true, kubeconfigPath: eastPath, historyLimit: o.historyLimit });
  const { sandbox: west } = await startCluster("west", { kubeconfigPath: westPath, historyLimit: o.historyLimit });
  await prepareCluster(east, eastPath, o.namespaces);
  await prepareCluster(west, westPath, o.namespaces);
  const gateway = startFakeGateway();
  const bundle = await buildLinkBundle(defaultLinkOptions(CLUSTER, eastPath));
  // The gateway's address is the sandbox load balancer's 192.0.2.1 (data, never contacted): mc serve
  // probes the fake gateway with --probe-address (startMirroring, the memory scenario).
  for (const obj of bundle) {
    if (obj.kind !== "Link") continue;
    const spec = obj.spec as { probeSpec: Record<string, string> };
    spec.probeSpec = {
      ...spec.probeSpec,
      port: String(gateway.port),
      period: o.probePeriod,
      failureThreshold: o.failureThreshold ?? "1",
      timeout: o.probeTimeout ?? "1s",
    };
  }
  applyObjects(west, bundle, "mc-bench");
  return {
    east,
    west,
    eastKubeconfig: eastPath,
    westKubeconfig: westPath,
    gateway,
    async stop() {
      await gateway.kill();
      await Promise.all([east.stop(), west.stop()]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A Service `svc-<i>` of east as the benchmarks export it: two ports, labels `app` and the export
 * label, no selector — its Endpoints are written by hand (eastEndpoints), not by the sandbox's
 * endpoints controller from Pods.
 */
export function eastService(i: number, namespaces: number, exported = true): KubeObject {
  const namespace = `ns-${i % namespaces}`;
  const name = `svc-${i}`;
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace, labels: { app: name, [L.EXPORTED]: exported ? "true" : "false" } },
    spec: {
      ports: [
        { name: "http", port: 80, targetPort: 8080 },
        { name: "admin", port: 9990, targetPort: 9990 },
      ],
    },
  };
}

/** The ready Endpoints of `eastService(i)`: one address, both ports, the Service's labels (as the endpoints controller copies them). */
export function eastEndpoints(i: number, namespaces: number, exported = true): KubeObject {
  const namespace = `ns-${i % namespaces}`;
  const name = `svc-${i}`;
  return {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: { name, namespace, labels: { app: name, [L.EXPORTED]: exported ? "true" : "false" } },
    subsets: [
      {
        addresses: [{ ip: `10.1.${(i >> 8) & 255}.${i & 255}` }],
        ports: [
          { name: "http", port: 8080 },
          { name: "admin", port: 9990 },
        ],
      },
    ],
  };
}

/** Exported Services `svc-<from>` … `svc-<from+count-1>` with ready Endpoints in east, round-robin over `namespaces`. */
export function seedExported(east: Sandbox, count: number, namespaces: number, from = 0): void {
  const services = type(east, "v1", "Service");
  const endpoints = type(east, "v1", "Endpoints");
  const write = { fieldManager: "mc-bench" };
  for (let i = from; i < from + count; i++) {
    east.api.create(services, `ns-${i % namespaces}`, eastService(i, namespaces), write);
    east.api.create(endpoints, `ns-${i % namespaces}`, eastEndpoints(i, namespaces), write);
  }
}

export type WriteKind = "mirrorService" | "mirrorEndpoints" | "gatewayMirror" | "link" | "lease" | "other";
export type WriteCounts = Record<WriteKind, number>;

type Eps = KubeObject & { subsets?: Array<{ addresses?: unknown[]; notReadyAddresses?: unknown[] }> };
export const readyAddresses = (ep: KubeObject): number => ((ep as Eps).subsets ?? []).reduce((n, s) => n + (s.addresses?.length ?? 0), 0);
export const notReadyAddresses = (ep: KubeObject): number =>
  ((ep as Eps).subsets ?? []).reduce((n, s) => n + (s.notReadyAddresses?.length ?? 0), 0);

/**
 * Every write west stores (sandbox writes are counted only when they change something, as
 * `store.writes` counts them), sorted by what it was, seen in-process as the store commits it.
 * `lastRv` is the resourceVersion of the newest write each of the controller's local informers
 * would see (all Services; Endpoints labelled with the cluster), to know when they caught up.
 */
export class WriteLedger {
  readonly counts: WriteCounts = { mirrorService: 0, mirrorEndpoints: 0, gatewayMirror: 0, link: 0, lease: 0, other: 0 };
  readonly lastRv = { services: 0, endpoints: 0 };
  private readonly listeners = new Set<(kind: WriteKind, e: StoreEvent) => void>();
  private readonly unwatch: Array<() => void> = [];
  private readonly keys: Record<string, "service" | "endpoints" | "link" | "lease">;

  constructor(private readonly sb: Sandbox) {
    this.keys = {
      [storageKey(type(sb, "v1", "Service"))]: "service",
      [storageKey(type(sb, "v1", "Endpoints"))]: "endpoints",
      [storageKey(type(sb, `${N.LINK_GROUP}/v1alpha3`, "Link"))]: "link",
      [storageKey(type(sb, "coordination.k8s.io/v1", "Lease"))]: "lease",
    };
    for (const key of Object.keys(this.keys)) this.unwatch.push(sb.store.watch({ key, send: (e) => this.record(e) }));
  }

  /** Writes of every kind so far; `other` is what `store.writes` counted beyond the watched kinds. */
  snapshot(): WriteCounts & { total: number } {
    const w = this.sb.store.writes;
    const total = w.create + w.update + w.patch + w.delete;
    const known =
      this.counts.mirrorService + this.counts.mirrorEndpoints + this.counts.gatewayMirror + this.counts.link + this.counts.lease;
    return { ...this.counts, other: total - known, total };
  }

  /** Told of every write as it is stored; returns the unsubscribe function. */
  on(listener: (kind: WriteKind, e: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    for (const u of this.unwatch.splice(0)) u();
  }

  private record(e: StoreEvent): void {
    const what = this.keys[e.key];
    const meta = e.object.metadata;
    const ours = meta.labels?.[L.CLUSTER_NAME] === CLUSTER;
    let kind: WriteKind = "other";
    if (what === "link") kind = "link";
    else if (what === "lease") kind = "lease";
    else if (what === "service") {
      this.lastRv.services = e.rv;
      if (ours && meta.labels?.[L.MIRRORED_SERVICE] === "true") kind = "mirrorService";
    } else if (what === "endpoints" && ours) {
      this.lastRv.endpoints = e.rv;
      kind = meta.namespace === NS && meta.name === N.probeGatewayName(CLUSTER) ? "gatewayMirror" : "mirrorEndpoints";
    }
    this.counts[kind]++;
    for (const l of this.listeners) l(kind, e);
  }
}

export function diff(after: WriteCounts & { total: number }, before: WriteCounts & { total: number }): WriteCounts & { total: number } {
  const out = { ...after };
  for (const k of Object.keys(out) as Array<keyof typeof out>) out[k] = after[k] - before[k];
  return out;
}

/** Resolves when `check()` holds: now, or after one of the events `subscribe` delivers; fails after `ms`. */
export function until(check: () => boolean, subscribe: Array<(fire: () => void) => () => void>, what: string, ms: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const unsubs: Array<() => void> = [];
    const finish = (err?: Error) => {
      clearTimeout(timer);
      for (const u of unsubs.splice(0)) u();
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => finish(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    const fire = () => {
      if (check()) finish();
    };
    for (const s of subscribe) unsubs.push(s(fire));
    fire();
  });
}
