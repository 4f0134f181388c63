// The local mirror (`mc serve --local`, Linkerd's `-local-mirror`): the service mirror pointed at the source cluster itself, with no Link —
// only a federated selector and exclusions from flags — so the local cluster's own Services join their federated Services as the
// local-discovery member. It writes no Link status (there is no Link) and holds the Lease `local-service-mirror-write`.
import type { KubeClient } from "../kube/index.ts";
import type { Metrics } from "../metrics.ts";
import { parseLink, type Link } from "../model/link.ts";
import { LINK_API_VERSION, LINK_KIND, LOCAL_LINK_NAME } from "../model/names.ts";
import type { LabelSelector } from "../model/selector.ts";
import { MirrorController } from "../mirror/controller.ts";
import type { Runner } from "./leader-unit.ts";
import type { ControllerSettings } from "./supervisor.ts";

export interface LocalMirrorSpec {
  /** `--federated-service-selector` (Linkerd's charts pass `mirror.linkerd.io/federated=member`). */
  federatedServiceSelector: LabelSelector;
  excludedLabels: string[];
  excludedAnnotations: string[];
  /** `--cluster-name`: this cluster's name in the ClusterSet; with it the local mirror also imports its own ServiceExports (src/mcs/). */
  clusterName?: string;
}

/** The Link the local mirror acts as: named `local`, no target cluster, only the federated selector. Pure. */
export function localMirrorLink(spec: LocalMirrorSpec, namespace: string): Link {
  const base = parseLink({
    apiVersion: LINK_API_VERSION,
    kind: LINK_KIND,
    metadata: { name: LOCAL_LINK_NAME, namespace },
    spec: { targetClusterName: LOCAL_LINK_NAME, clusterCredentialsSecret: "-" },
  });
  return {
    ...base,
    targetClusterName: "",
    clusterCredentialsSecret: "",
    federatedServiceSelector: spec.federatedServiceSelector.length > 0 ? spec.federatedServiceSelector : null,
    excludedLabels: spec.excludedLabels,
    excludedAnnotations: spec.excludedAnnotations,
  };
}

export class LocalMirror implements Runner {
  private ctl: MirrorController | undefined;

  constructor(
    private readonly o: { local: KubeClient; namespace: string; spec: LocalMirrorSpec; metrics: Metrics; controller?: ControllerSettings },
  ) {}

  get controller(): MirrorController | undefined {
    return this.ctl;
  }

  get ready(): boolean {
    return this.ctl?.isSynced ?? false;
  }

  /** Its target is this cluster: all of its informers are local. */
  get localReady(): boolean {
    return this.ready;
  }

  start(): void {
    const link = localMirrorLink(this.o.spec, this.o.namespace);
    this.ctl = new MirrorController({
      ...this.o.controller,
      proberFactory: undefined,
      link,
      namespace: this.o.namespace,
      local: this.o.local,
      remote: this.o.local,
      metrics: this.o.metrics,
      localClusterName: this.o.spec.clusterName,
    });
    this.ctl.start();
  }

  async stop(): Promise<void> {
    const ctl = this.ctl;
    this.ctl = undefined;
    await ctl?.stop();
  }
}
