// How many target Services the Link exports (its selector through a gateway, or its remote- discovery selector) in the namespaces
// --namespace-selector selects: by the rule reconcile follows (exportMode; the informer may be unfiltered, coveringSelector). O(1) per
// Service event, a namespace's Services per Namespace event; read by the health (ServicesSelected) and the log.
import type { Informer, KubeObject } from "../../kube/index.ts";
import type { Link } from "../../model/link.ts";
import { exportMode } from "../reconcile/remote-discovery.ts";
import type { Svc } from "../reconcile/read.ts";

export class SelectedServices {
  /** Exported Services' keys by namespace, whether or not the namespace is selected. */
  private readonly byNamespace = new Map<string, Set<string>>();
  private readonly namespaces: Informer<KubeObject> | undefined;
  private count = 0;
  readonly close: () => void;

  constructor(informer: Informer<Svc> | undefined, link: Link, namespaces?: Informer<KubeObject>) {
    const hasGateway = !!link.gateway;
    this.namespaces = namespaces;
    const offServices =
      informer?.on((e) => {
        const ns = e.object.metadata.namespace ?? "";
        if (e.type !== "deleted" && exportMode(link, e.object, hasGateway) !== null) this.add(ns, e.key);
        else this.remove(ns, e.key);
      }) ?? (() => {});
    // A namespace's event changes whether it is selected (added: now matches; deleted: no longer; updated: still does).
    const offNamespaces =
      namespaces?.on((e) => {
        const name = e.object.metadata.name ?? "";
        const keys = this.byNamespace.get(name)?.size ?? 0;
        if (e.type === "added") this.count += keys;
        else if (e.type === "deleted") this.count -= keys;
      }) ?? (() => {});
    this.close = () => {
      offServices();
      offNamespaces();
    };
  }

  /** Exported Services in selected namespaces. */
  get size(): number {
    return this.count;
  }

  private selected(namespace: string): boolean {
    return !this.namespaces || this.namespaces.cache.get(undefined, namespace) !== undefined;
  }

  private add(namespace: string, key: string): void {
    let keys = this.byNamespace.get(namespace);
    if (!keys) this.byNamespace.set(namespace, (keys = new Set()));
    if (keys.has(key)) return;
    keys.add(key);
    if (this.selected(namespace)) this.count++;
  }

  private remove(namespace: string, key: string): void {
    const keys = this.byNamespace.get(namespace);
    if (!keys?.delete(key)) return;
    if (keys.size === 0) this.byNamespace.delete(namespace);
    if (this.selected(namespace)) this.count--;
  }
}
