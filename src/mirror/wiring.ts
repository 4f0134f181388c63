// The parts of one Link's MirrorController and how they are wired: the Link status writer, the gateway's addresses, the sources (informers)
// and the local views of what the mirror owns, the outcomes, the queue, the reconcile and federated dependencies, the prober, and what each
// key that is no Service runs (SPECIAL_KEYS, dispatched from one table).
import { createWriter, getIfExists, resources, type KubeClient, type KubeObject, type Writer } from "../kube/index.ts";
import { systemClock, WorkQueue, type BackoffOptions, type Clock } from "../runtime/index.ts";
import { logger, type Logger } from "../log.ts";
import { createMetrics, type Metrics } from "../metrics.ts";
import { controllerAccess } from "../model/access.ts";
import type { Link } from "../model/link.ts";
import { mirrorSettings, type MirrorSettings } from "../model/mirror-settings.ts";
import { LOCAL_LINK_NAME, probeGatewayName, serviceMirrorName } from "../model/names.ts";
import type { GatewayProber, ProberFactory } from "../prober/types.ts";
import { eventRecorder } from "./status/events.ts";
import { createExecutor, type ExecutorDeps } from "./reconcile/execute.ts";
import { federatedKeyOf, onlyLink, type KnownLinks } from "./federated/federated.ts";
import type { FederatedDeps } from "./federated/federated-reconcile.ts";
import { federatedFromStatus, FederatedOutcomes } from "./federated/federated-status.ts";
import { GatewayAddresses, hostPort, systemResolver, type Resolver } from "./gateway.ts";
import type { LinkDirectory } from "./federated/link-directory.ts";
import { federatedServicesPart, LinkStatus, mirrorServicesPart } from "./status/link-status.ts";
import { keysOfLocal, type MirrorKey } from "./sources/keys.ts";
import { MirrorNameClaims } from "./sources/claims.ts";
import { failuresFromStatus } from "./status/status.ts";
import { Outcomes } from "./reconcile/outcomes.ts";
import { byMirrorOf, bySliceService, type Svc } from "./reconcile/read.ts";
import { reconcileGatewayMirror, type ReconcileDeps } from "./reconcile/reconcile.ts";
import { RemoteSlices } from "./sources/remote-slices.ts";
import { SelectedServices } from "./sources/selected.ts";
import { TargetHealth } from "./sources/target-health.ts";
import { Propagation } from "./sources/propagation.ts";
import { createSources, keysOfSlice, wireSources, type SharedLocalInformers, type Sources } from "./sources/sources.ts";
import { adoptMirrors } from "./adopt.ts";
import { sweepRenamed } from "./renamed.ts";
import { sweepSlices } from "./slices-sweep.ts";
import { GATEWAY_KEY, RENAMED_KEY, SLICES_KEY, type ResolvedGateway, type SpecialKey } from "./types.ts";
import { LocalView } from "./reconcile/view.ts";
import { linkStands } from "./link-stands.ts";
import { CleanKeys, type LivenessDeps } from "./reconcile/liveness.ts";
import { McsImporter } from "../mcs/importer.ts";

// The controller keeps the lifecycle (start, sync, refresh, liveness, stop); `hooks` is how the parts
// call back into it.

export interface MirrorControllerOptions {
  link: Link;
  /** The Link's namespace: the probe Service's Endpoints and the Link status are written there. */
  namespace: string;
  local: KubeClient;
  remote: KubeClient;
  /** `mc serve`'s mirroring flags, whole (src/model/mirror-settings.ts); what is not given takes its default. */
  settings?: Partial<MirrorSettings>;
  /** Keys reconciled at once after a gateway liveness change, whose keys go ahead of routine work. Default 32. */
  livenessWorkers?: number;
  resolver?: Resolver;
  proberFactory?: ProberFactory;
  metrics?: Metrics;
  /** Drives the refresh timer and status times; default the system clock. */
  clock?: Clock;
  log?: Logger;
  /** Tests: keys wait for `drain()` / `processNext()` instead of running as they arrive. */
  manual?: boolean;
  informerBackoff?: Partial<BackoffOptions>;
  queueBackoff?: Partial<BackoffOptions>;
  statusCap?: number;
  /** The Link's status writer, shared with the supervisor's conditions; default: the controller's own. */
  status?: LinkStatus;
  /**
   * The namespace's Links (started and stopped by the caller): federated Services take their
   * metadata from the member with the oldest Link and drop members whose Link was deleted.
   * Default: only this Link is known.
   */
  links?: LinkDirectory;
  /** Local informers shared with other controllers (started and stopped by the caller). */
  shared?: SharedLocalInformers;
  /** The Multi-Cluster Services import of the target's ServiceExports (src/mcs/); default on. */
  mcs?: boolean;
  /** The local mirror: this cluster's name in the ClusterSet; with it, its own ServiceExports are imported here and their status written. */
  localClusterName?: string;
}

/** Measured with `bun run bench blackbox` (docs/decisions.md#d162): 16 left the server idle between a key's writes. */
const DEFAULT_LIVENESS_WORKERS = 32;

/** How the parts call back into the controller that owns them. */
export interface ControllerHooks {
  reconcile(key: MirrorKey): Promise<void>;
  gaveUp(key: MirrorKey, err: unknown): void;
  enqueue(key: MirrorKey): void;
  enqueueFederated(): void;
  setAlive(alive: boolean): void;
  gateway(): ResolvedGateway | null;
  gatewayAddresses(): string[];
  alive(): boolean;
}

export interface ControllerParts {
  settings: MirrorSettings;
  /** The target cluster's name; "local" for the local mirror. */
  cluster: string;
  metrics: Metrics;
  clock: Clock;
  log: Logger;
  writer: Writer;
  /** The Link's status writer; `ownStatus` when the controller made it (else it is the supervisor's, started and stopped there). */
  status: LinkStatus;
  ownStatus: boolean;
  addresses: GatewayAddresses | undefined;
  informers: Sources;
  /** With enableEndpointSlices: the target's Endpoints as read from its slices. */
  remoteSlices: RemoteSlices | undefined;
  views: Array<LocalView<KubeObject>>;
  outcomes: Outcomes;
  federated: FederatedOutcomes;
  queue: WorkQueue<MirrorKey>;
  deps: ReconcileDeps;
  /** Keys whose mirror only a liveness flip may have changed since their last full reconcile, and the path that rewrites their Endpoints. */
  clean: CleanKeys;
  liveness: LivenessDeps;
  federatedDeps: FederatedDeps | undefined;
  gatewayRef: { namespace: string; name: string };
  health: TargetHealth;
  /** Times each change of the target until its mirror is written (mc_propagation_seconds). */
  propagation: Propagation;
  /** The target Services the Link exports (its selectors' count, whatever the informer caches). */
  selected: SelectedServices;
  prober: GatewayProber | undefined;
  /** What each key that is no Service runs. */
  special: Record<SpecialKey, () => Promise<void>>;
  /** The Multi-Cluster Services import, when on. */
  mcs: McsImporter | undefined;
  unsubscribe: Array<() => void>;
}

export function wireController(opts: MirrorControllerOptions, hooks: ControllerHooks): ControllerParts {
  const settings = mirrorSettings(opts.settings);
  const { link } = opts;
  // The local mirror has no target cluster: its logs and metrics say "local".
  const c = link.targetClusterName || LOCAL_LINK_NAME;
  const metrics = opts.metrics ?? createMetrics();
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? logger(`mirror:${c}`);
  const writer = createWriter(opts.local, { echoes: true, log: logger(`write:${opts.local.cluster}`) });
  // The Link's one status writer: the supervisor's (shared with its conditions, outliving this
  // controller), else the controller's own. Its retry rule is the mirror queue's.
  const status =
    opts.status ??
    new LinkStatus({
      writer,
      namespace: opts.namespace,
      name: link.name,
      log,
      requeueLimit: settings.eventRequeueLimit,
      backoff: opts.queueBackoff,
      clock,
      // The local mirror has no Link to write to.
      disabled: link.targetClusterName === "",
    });
  const counted = () => metrics.apiWrites.inc({ target_cluster_name: c, verb: "patch" });
  const addresses = link.gateway ? new GatewayAddresses(link.gateway.addresses, opts.resolver ?? systemResolver, c, log) : undefined;

  // The target is only asked what the remote-access ClusterRole grants (src/model/access.ts): anything else is a bug, caught in tests.
  const remote = opts.remote.restrictedTo(
    controllerAccess({ endpointSlices: settings.enableEndpointSlices, namespaces: settings.namespaceSelector !== "" }),
    "src/model/access.ts",
  );
  const informers = createSources({
    link,
    local: opts.local,
    remote,
    enableEndpointSlices: settings.enableEndpointSlices,
    mirrorEndpointSlices: settings.mirrorEndpointSlices,
    namespaceSelector: settings.namespaceSelector,
    backoff: opts.informerBackoff,
    shared: opts.shared,
  });
  const remoteSlices = informers.remoteEndpointSlices && new RemoteSlices(informers.remoteEndpointSlices);
  const services = new LocalView(informers.services, byMirrorOf(c));
  const endpoints = new LocalView(informers.endpoints);
  const slices = informers.slices && new LocalView(informers.slices, bySliceService);
  /** The views of the kinds the mirror owns (reconcile/kinds.ts), by kind. */
  const viewOf = { Service: services, Endpoints: endpoints, EndpointSlice: slices } as ExecutorDeps["views"];
  const views = Object.values(viewOf).filter((v) => v !== undefined) as Array<LocalView<KubeObject>>;
  const outcomes = new Outcomes(c, clock, metrics, () => status.changed("mirrorServices"));
  outcomes.seed(failuresFromStatus(link.status.mirrorServices));
  const federated = new FederatedOutcomes(clock, () => status.changed("federatedServices"));
  federated.seed(federatedFromStatus(link.status.federatedServices));
  const detachStatus = [
    status.attach(
      "mirrorServices",
      mirrorServicesPart({
        current: link.status.mirrorServices,
        failures: () => ({ list: outcomes.failures(), total: outcomes.failureCount }),
        cap: opts.statusCap,
        log,
        written: counted,
      }),
    ),
    status.attach(
      "federatedServices",
      federatedServicesPart({
        current: link.status.federatedServices,
        entries: () => federated.all(),
        cap: opts.statusCap,
        written: counted,
      }),
    ),
  ];
  const queue = new WorkQueue<MirrorKey>((key) => hooks.reconcile(key), {
    requeueLimit: settings.eventRequeueLimit,
    workers: settings.workers,
    highWorkers: opts.livenessWorkers ?? DEFAULT_LIVENESS_WORKERS,
    backoff: opts.queueBackoff,
    log,
    onGiveUp: (key, err) => hooks.gaveUp(key, err),
  });
  const probeService = settings.probeService || probeGatewayName(c);
  const claims = new MirrorNameClaims();
  const deps: ReconcileDeps = {
    link: { link, namespace: opts.namespace, probeService, settings, gateway: hooks.gateway, alive: hooks.alive },
    caches: {
      remoteServices: informers.remoteServices?.cache ?? null,
      remoteEndpoints: remoteSlices ?? informers.remoteEndpoints?.cache ?? null,
      services,
      endpoints,
      namespaces: informers.namespaces.cache,
      remoteNamespaces: informers.remoteNamespaces?.cache ?? null,
      slices: slices ?? null,
    },
    writer: {
      execute: createExecutor({
        writer,
        views: viewOf,
        metrics,
        cluster: c,
        ...(link.targetClusterName !== "" && { linkStands: linkStands(opts.local, link, log) }),
      }),
      remoteEvent: eventRecorder(createWriter(remote, { log: logger(`write:${c}`) }), serviceMirrorName(c), clock, log),
      localEvent: eventRecorder(writer, serviceMirrorName(c), clock, log),
    },
    outcomes,
    log,
    claims,
    ...(!slices && { endpointsRecreated: () => hooks.enqueue(SLICES_KEY) }),
  };
  const members = informers.remoteFederated;
  const links: KnownLinks = opts.links ?? onlyLink(link);
  const federatedDeps: FederatedDeps | undefined = members && {
    link,
    enableNamespaceCreation: settings.enableNamespaceCreation,
    target: (ns, name) => members.cache.get(ns, name),
    namespaceExists: (ns) => informers.namespaces.cache.get(undefined, ns) !== undefined,
    services,
    readLive: (ns, name) => getIfExists<Svc>(opts.local, resources.service, ns, name),
    execute: deps.writer.execute,
    links,
    outcomes: federated,
    log,
  };
  const unsubscribe: Array<() => void> = [...detachStatus];
  if (members && opts.links) unsubscribe.push(opts.links.onChange(() => hooks.enqueueFederated()));
  const gatewayRef = { namespace: opts.namespace, name: probeService };
  // The views subscribed to the local informers first, so they know an echo before wireSources asks.
  const propagation = new Propagation(
    () => clock.now(),
    (s) => metrics.propagation.observe({ target_cluster_name: c }, s),
  );
  unsubscribe.push(
    ...wireSources(
      informers,
      c,
      gatewayRef,
      (k) => hooks.enqueue(k),
      metrics,
      (e) => views.some((v) => v.isEcho(e)),
      (k) => propagation.changed(k),
      claims,
      settings.namespaceMap,
    ),
  );
  for (const view of views) {
    const keysOf = view === (slices as LocalView<KubeObject> | undefined) ? keysOfSlice : keysOfLocal;
    view.onMissed((e) => {
      const keys = keysOf(e.object.metadata, c, gatewayRef, claims);
      const federatedKey = keys.length === 0 && informers.remoteFederated ? federatedKeyOf(e.object.metadata) : undefined;
      for (const k of federatedKey ? [federatedKey] : keys) hooks.enqueue(k);
    });
  }
  const selected = new SelectedServices(informers.remoteServices, link, informers.remoteNamespaces);
  unsubscribe.push(selected.close);
  const health = new TargetHealth(informers, c, selected, settings.namespaceSelector);
  const probe = link.probe;
  const override = settings.probeAddress[link.name] ?? settings.probeAddress[""];
  const prober =
    probe && opts.proberFactory
      ? opts.proberFactory({
          link,
          targets: () =>
            override
              ? [override]
              : settings.probeDirect
                ? hooks.gatewayAddresses().map((ip) => hostPort(ip, probe.port))
                : [hostPort(probeService, probe.port)],
          onLiveness: (alive) => hooks.setAlive(alive),
          writeStatus: async (gateway) => void ((await status.writeGateway(gateway)) && counted()),
          metrics,
          log: logger(`probe:${c}`),
        })
      : undefined;
  const special: Record<SpecialKey, () => Promise<void>> = {
    [GATEWAY_KEY]: () => reconcileGatewayMirror(deps),
    // Adopted first: a re-created Link's mirrors carry its uid before the sweep looks for them by uid.
    [RENAMED_KEY]: async () => {
      await adoptMirrors({ local: opts.local, writer, link, namespace: opts.namespace, metrics, log });
      await sweepRenamed({ local: opts.local, writer, link, metrics, log });
    },
    // With slices on, the slice phases keep them; off, what is left from before goes.
    [SLICES_KEY]: async () => {
      if (slices) return;
      const has = (view: LocalView<KubeObject>) => (ns: string, name: string) => view.get(ns, name) !== undefined;
      await sweepSlices({ local: opts.local, writer, cluster: c, hasService: has(services), hasEndpoints: has(endpoints), metrics, log });
    },
  };
  const local = link.targetClusterName === "";
  const mcsCluster = local ? opts.localClusterName : link.targetClusterName;
  const mcs =
    opts.mcs !== false && mcsCluster
      ? new McsImporter({
          cluster: mcsCluster,
          remote: local ? opts.local : remote,
          local: opts.local,
          // Without a gateway (remote discovery), the slices point at the target's own endpoints.
          source: local || !link.gateway ? { kind: "endpoints" } : { kind: "gateway", gateway: hooks.gateway, alive: hooks.alive },
          exportStatus: local,
          links: opts.links,
          log: opts.log ?? logger(`mcs:${mcsCluster}`),
          clock,
          resyncMs: settings.endpointRefreshPeriod,
          informerBackoff: opts.informerBackoff,
        })
      : undefined;
  return {
    settings,
    cluster: c,
    metrics,
    clock,
    log,
    writer,
    status,
    ownStatus: opts.status === undefined,
    addresses,
    informers,
    remoteSlices,
    views,
    outcomes,
    federated,
    queue,
    deps,
    clean: new CleanKeys(),
    liveness: { endpoints, execute: deps.writer.execute, cluster: c },
    federatedDeps,
    gatewayRef,
    health,
    propagation,
    selected,
    prober,
    special,
    mcs,
    unsubscribe,
  };
}
