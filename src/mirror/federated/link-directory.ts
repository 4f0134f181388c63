// LinkDirectory: the Links of one namespace as federated services need them — each target cluster's Link age (the oldest member's metadata
// wins) and which clusters' Links were seen deleted (their members are dropped). One informer on the namespace's Links, shared by every
// controller of the process (`mc serve --all` serves them all from one).
import { Informer, type KubeClient, type KubeObject } from "../../kube/index.ts";
import type { BackoffOptions } from "../../runtime/index.ts";
import { logger } from "../../log.ts";
import { linkResource } from "../../model/link.ts";
import type { KnownLinks } from "./federated.ts";

// Only what it saw: a Link deleted before the process started is not known as gone (`mc check` reports
// its members).

export class LinkDirectory implements KnownLinks {
  readonly informer: Informer<KubeObject>;
  private readonly byCluster = new Map<string, Set<string>>();
  private readonly gone = new Set<string>();
  private readonly listeners = new Set<(cluster: string) => void>();

  constructor(o: { client: KubeClient; namespace: string; backoff?: Partial<BackoffOptions> }) {
    this.informer = new Informer<KubeObject>({
      client: o.client,
      resource: linkResource,
      namespace: o.namespace,
      log: logger(`informer:${o.client.cluster}`),
      backoff: o.backoff,
    });
    this.informer.on((e) => {
      const cluster = clusterOf(e.object);
      const before = e.type === "updated" ? clusterOf(e.old) : cluster;
      const moved = e.type === "deleted" || before !== cluster;
      if (moved && e.type !== "added" && before) this.forget(before, e.key);
      if (e.type !== "deleted" && cluster) {
        this.byCluster.set(cluster, (this.byCluster.get(cluster) ?? new Set()).add(e.key));
        this.gone.delete(cluster);
      }
      if (e.type === "added" || moved) for (const c of new Set([before, cluster])) if (c) for (const l of this.listeners) l(c);
    });
  }

  get synced(): Promise<void> {
    return this.informer.synced;
  }

  start(): this {
    this.informer.start();
    return this;
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }

  /** Told when a Link appears, goes, or changes its target cluster (with that cluster). */
  onChange(listener: (cluster: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  createdAt(cluster: string): string | undefined {
    const times = [...(this.byCluster.get(cluster) ?? [])]
      .map((k) => this.informer.cache.getByKey(k)?.metadata.creationTimestamp)
      .filter((t): t is string => !!t);
    return times.sort()[0];
  }

  /** The Links (name, creationTimestamp) that target `cluster`, as seen. */
  linksFor(cluster: string): Array<{ name: string; creationTimestamp?: string }> {
    return [...(this.byCluster.get(cluster) ?? [])].flatMap((k) => {
      const m = this.informer.cache.getByKey(k)?.metadata;
      return m?.name ? [{ name: m.name, ...(m.creationTimestamp && { creationTimestamp: m.creationTimestamp }) }] : [];
    });
  }

  isGone(cluster: string): boolean {
    return this.gone.has(cluster);
  }

  /** The Link `key` no longer links `cluster`: with no other Link for it, the cluster is gone. */
  private forget(cluster: string, key: string): void {
    const keys = this.byCluster.get(cluster);
    keys?.delete(key);
    if (keys?.size) return;
    this.byCluster.delete(cluster);
    this.gone.add(cluster);
  }
}

function clusterOf(obj: KubeObject): string {
  const c = (obj.spec as { targetClusterName?: unknown } | undefined)?.targetClusterName;
  return typeof c === "string" ? c : "";
}
