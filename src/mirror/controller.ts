// MirrorController: one Link's service mirror, wired. Remote informers (exported Services,
// selected by the Link, and every Endpoints object — or EndpointSlice — kept compact), local
// informers (Services, our Endpoints, Namespaces)
// and the gateway's liveness all feed one keyed queue; `reconcile(key)` does the rest. Start
// waits for every cache before the first key runs, so an empty cache is never mistaken for
// "nothing is exported". A refresh every period re-resolves the gateway and requeues every key.
// Each target Service key also reconciles this Link's membership in `<svc>-federated`
// (federated-reconcile.ts) when the Link has a federatedServiceSelector; a Link with no target
// cluster (`mc serve --local`) is the local mirror, whose members are the local cluster's own.
import { formatError } from "../errors.ts";
import { createWriter, getIfExists, resources, type Informer, type KubeClient, type KubeObject, type Writer } from "../kube/index.ts";
import { systemClock, WorkQueue, type BackoffOptions, type Clock, type Priority } from "../runtime/index.ts";
import { logger, type Logger } from "../log.ts";
import { createMetrics, type Metrics, type MirrorState } from "../metrics.ts";
import { controllerAccess } from "../model/access.ts";
import type { Link } from "../model/link.ts";
import { mirrorSettings, type MirrorSettings } from "../model/mirror-settings.ts";
import { LOCAL_LINK_NAME, probeGatewayName, serviceMirrorName } from "../model/names.ts";
import type { GatewayProber, ProberFactory } from "../prober/types.ts";
import { eventRecorder } from "./status/events.ts";
import { createExecutor } from "./reconcile/execute.ts";
import { federatedKeyOf, onlyLink, type KnownLinks } from "./federated/federated.ts";
import { reconcileFederated, type FederatedDeps } from "./federated/federated-reconcile.ts";
import { federatedFromStatus, FederatedOutcomes } from "./federated/federated-status.ts";
import { GatewayAddresses, hostPort, systemResolver, type Resolver } from "./gateway.ts";
import type { LinkDirectory } from "./federated/link-directory.ts";
import { LinkStatusWriter } from "./status/link-status.ts";
import { keyOfLocal, serviceKey, type MirrorKey, type ServiceKey } from "./sources/keys.ts";
import { failuresFromStatus } from "./status/status.ts";
import { Outcomes } from "./reconcile/outcomes.ts";
import { byHeadlessMirror, type Svc } from "./reconcile/read.ts";
import { reconcileGatewayMirror, reconcileService, type ReconcileDeps } from "./reconcile/reconcile.ts";
import { RemoteSlices } from "./sources/remote-slices.ts";
import { TargetHealth, type ControllerHealth } from "./sources/target-health.ts";
import { allInformers, allKeys, createSources, federatedKeys, liveKeys, wireSources, type SharedLocalInformers, type Sources } from "./sources/sources.ts";
import { sweepRenamed } from "./renamed.ts";
import { GATEWAY_KEY, RENAMED_KEY, STATUS_KEY, type ResolvedGateway } from "./types.ts";
import { LocalView } from "./reconcile/view.ts";

export interface MirrorControllerOptions {
  link: Link;
  /** The Link's namespace: the probe Service's Endpoints and the Link status are written there. */
  namespace: string;
  local: KubeClient;
  remote: KubeClient;
  /** `mc serve`'s mirroring flags, whole (src/model/mirror-settings.ts); what is not given takes its default. */
  settings?: Partial<MirrorSettings>;
  /** Keys reconciled at once after a gateway liveness change, whose keys go ahead of routine work. Default 16. */
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
  /**
   * The namespace's Links (started and stopped by the caller): federated Services take their
   * metadata from the member with the oldest Link and drop members whose Link was deleted.
   * Default: only this Link is known.
   */
  links?: LinkDirectory;
  /** Local informers shared with other controllers (started and stopped by the caller). */
  shared?: SharedLocalInformers;
}

/** Measured with `bun run bench flip` (docs/decisions.md#d46). */
const DEFAULT_LIVENESS_WORKERS = 16;

/** After a failed gateway resolution, try again this soon (or at the refresh period, if shorter). */
const RESOLVE_RETRY_MS = 5_000;

export class MirrorController {
  readonly link: Link;
  readonly cluster: string;
  readonly informers: Sources;
  readonly synced: Promise<void>;
  readonly outcomes: Outcomes;
  readonly federated: FederatedOutcomes;
  private readonly opts: MirrorControllerOptions;
  /** The mirroring settings, whole. */
  readonly settings: MirrorSettings;
  private readonly queue: WorkQueue<MirrorKey>;
  private readonly status: LinkStatusWriter;
  private readonly addresses: GatewayAddresses | undefined;
  private readonly metrics: Metrics;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly deps: ReconcileDeps;
  private readonly federatedDeps: FederatedDeps | undefined;
  private readonly unsubscribe: Array<() => void> = [];
  private readonly writer: Writer;
  private readonly gatewayRef: { namespace: string; name: string };
  private readonly views: Array<LocalView<KubeObject>>;
  /** With enableEndpointSlices: the target's Endpoints as read from its slices. */
  private readonly remoteSlices: RemoteSlices | undefined;
  private readonly prober: GatewayProber | undefined;
  private resolveSynced!: () => void;
  private rejectSynced!: (err: Error) => void;
  private isAlive = true;
  private hasSynced = false;
  private stopped = false;
  private cancelRefresh = () => {};
  private running: Promise<void> | undefined;
  private readonly health: TargetHealth;
  /** The refresh in progress (or the last one), for tests that advance the clock. */
  refreshing: Promise<void> = Promise.resolve();

  constructor(opts: MirrorControllerOptions) {
    this.opts = opts;
    const settings = mirrorSettings(opts.settings);
    this.settings = settings;
    this.link = opts.link;
    // The local mirror has no target cluster: its logs and metrics say "local".
    this.cluster = opts.link.targetClusterName || LOCAL_LINK_NAME;
    const c = this.cluster;
    this.metrics = opts.metrics ?? createMetrics();
    this.clock = opts.clock ?? systemClock;
    this.log = opts.log ?? logger(`mirror:${c}`);
    const writer = createWriter(opts.local, { log: logger(`write:${opts.local.cluster}`) });
    this.writer = writer;
    const { link } = opts;
    this.status = new LinkStatusWriter({
      writer,
      namespace: opts.namespace,
      name: link.name,
      cluster: c,
      metrics: this.metrics,
      log: this.log,
      current: link.status.mirrorServices,
      currentFederated: link.status.federatedServices,
      cap: opts.statusCap,
      // The local mirror has no Link to write to.
      disabled: link.targetClusterName === "",
    });
    this.addresses = link.gateway ? new GatewayAddresses(link.gateway.addresses, opts.resolver ?? systemResolver, c, this.log) : undefined;
    this.synced = new Promise<void>((resolve, reject) => {
      this.resolveSynced = resolve;
      this.rejectSynced = reject;
    });
    this.synced.catch(() => {});

    // The target is only asked what the remote-access ClusterRole grants (src/model/access.ts): anything else is a bug, caught in tests.
    const remote = opts.remote.restrictedTo(controllerAccess({ endpointSlices: settings.enableEndpointSlices }), "src/model/access.ts");
    this.informers = createSources({ link, local: opts.local, remote, enableEndpointSlices: settings.enableEndpointSlices, backoff: opts.informerBackoff, shared: opts.shared });
    this.remoteSlices = this.informers.remoteEndpointSlices && new RemoteSlices(this.informers.remoteEndpointSlices);
    const services = new LocalView(this.informers.services, byHeadlessMirror(c));
    const endpoints = new LocalView(this.informers.endpoints);
    this.views = [services, endpoints] as Array<LocalView<KubeObject>>;
    this.outcomes = new Outcomes(c, this.clock, this.metrics, () => this.enqueue(STATUS_KEY));
    this.outcomes.seed(failuresFromStatus(link.status.mirrorServices));
    this.federated = new FederatedOutcomes(this.clock, () => this.enqueue(STATUS_KEY));
    this.federated.seed(federatedFromStatus(link.status.federatedServices));
    this.queue = new WorkQueue<MirrorKey>((key) => this.reconcile(key), {
      requeueLimit: settings.eventRequeueLimit,
      workers: settings.workers,
      highWorkers: opts.livenessWorkers ?? DEFAULT_LIVENESS_WORKERS,
      backoff: opts.queueBackoff,
      log: this.log,
      onGiveUp: (key, err) => this.gaveUp(key, err),
    });
    const probeService = settings.probeService || probeGatewayName(c);
    this.deps = {
      link: {
        link,
        namespace: opts.namespace,
        probeService,
        settings,
        gateway: () => this.gateway,
        alive: () => this.isAlive,
      },
      caches: {
        remoteServices: this.informers.remoteServices?.cache ?? null,
        remoteEndpoints: this.remoteSlices ?? this.informers.remoteEndpoints?.cache ?? null,
        services,
        endpoints,
        namespaces: this.informers.namespaces.cache,
      },
      writer: {
        execute: createExecutor({ writer, services, endpoints, metrics: this.metrics, cluster: c }),
        remoteEvent: eventRecorder(createWriter(remote, { log: logger(`write:${c}`) }), serviceMirrorName(c), this.clock, this.log),
        localEvent: eventRecorder(writer, serviceMirrorName(c), this.clock, this.log),
      },
      outcomes: this.outcomes,
      log: this.log,
    };
    const federated = this.informers.remoteFederated;
    const links: KnownLinks = opts.links ?? onlyLink(link);
    this.federatedDeps = federated && {
      link,
      enableNamespaceCreation: settings.enableNamespaceCreation,
      target: (ns, name) => federated.cache.get(ns, name),
      namespaceExists: (ns) => this.informers.namespaces.cache.get(undefined, ns) !== undefined,
      services,
      readLive: (ns, name) => getIfExists<Svc>(opts.local, resources.service, ns, name),
      execute: this.deps.writer.execute,
      links,
      outcomes: this.federated,
      log: this.log,
    };
    if (federated && opts.links) this.unsubscribe.push(opts.links.onChange(() => this.enqueueFederated()));
    this.gatewayRef = { namespace: opts.namespace, name: probeService };
    // The views subscribed to the local informers first, so they know an echo before wireSources asks.
    this.unsubscribe.push(...wireSources(this.informers, c, this.gatewayRef, (k) => this.enqueue(k), this.metrics, (e) => services.isEcho(e) || endpoints.isEcho(e)));
    for (const view of this.views) {
      view.onMissed((e) => {
        const k = keyOfLocal(e.object.metadata, c, this.gatewayRef) ?? (this.informers.remoteFederated ? federatedKeyOf(e.object.metadata) : undefined);
        if (k) this.enqueue(k);
      });
    }
    this.health = new TargetHealth(this.informers, this.cluster);
    const probe = opts.link.probe;
    const override = settings.probeAddress[opts.link.name] ?? settings.probeAddress[""];
    this.prober =
      probe && opts.proberFactory
        ? opts.proberFactory({
            link: opts.link,
            targets: () => (override ? [override] : settings.probeDirect ? this.gatewayAddresses.map((ip) => hostPort(ip, probe.port)) : [hostPort(probeService, probe.port)]),
            onLiveness: (alive) => this.setAlive(alive),
            writeStatus: (gateway) => this.status.writeGateway(gateway),
            metrics: this.metrics,
            log: logger(`probe:${c}`),
          })
        : undefined;
  }

  private get allInformers(): Array<Informer<KubeObject>> {
    return allInformers(this.informers);
  }

  get isSynced(): boolean {
    return this.hasSynced;
  }
  get alive(): boolean {
    return this.isAlive;
  }
  get gateway(): ResolvedGateway | null {
    const g = this.link.gateway;
    return g ? { addresses: this.gatewayAddresses, port: g.port, identity: g.identity } : null;
  }
  get gatewayAddresses(): string[] {
    return this.addresses?.addresses ?? [];
  }
  get probe(): GatewayProber | undefined {
    return this.prober;
  }

  /** What became of a target Service (`ns/name`). */
  outcome(key: ServiceKey): MirrorState | undefined {
    return this.outcomes.stateOf(key);
  }

  /** Told what the watches of the target say, when the caches synced, and whether the selector selects anything. */
  onHealth(listener: (h: ControllerHealth) => void): () => void {
    return this.health.on(listener);
  }

  /** Starts the informers; keys run once every cache has synced (`synced`). Returns at once. */
  start(): this {
    if (this.running) return this;
    for (const i of this.allInformers) i.start();
    this.running = this.run();
    return this;
  }

  private async run(): Promise<void> {
    try {
      await this.addresses?.refresh();
      await Promise.all([...this.allInformers.map((i) => i.synced), this.opts.links?.synced]);
    } catch (err) {
      this.rejectSynced(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    if (this.stopped) return;
    this.hasSynced = true;
    const exported = this.informers.remoteServices?.cache.size ?? 0;
    if (this.link.selector && !this.link.gateway) this.log.warn(`Link ${this.link.name} has a selector but no gateway address: nothing is mirrored`);
    this.log.info(`synced with ${this.cluster}: ${exported} exported service${exported === 1 ? "" : "s"}, gateway ${this.gatewayAddresses.join(", ") || "unresolved"}`);
    this.health.markSynced();
    this.enqueueAll();
    // Services the Link's status lists as failing are looked at again (their entry goes once they mirror or are gone).
    for (const f of this.outcomes.failures()) this.enqueue(serviceKey(f.namespace, f.name));
    for (const k of this.federated.keys()) this.enqueue(k);
    this.enqueue(STATUS_KEY);
    this.enqueue(RENAMED_KEY);
    if (!this.opts.manual) this.queue.start();
    this.prober?.start();
    this.scheduleRefresh();
    this.resolveSynced();
  }

  /** Stops everything; mirrors stay as they are. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.cancelRefresh();
    for (const off of this.unsubscribe) off();
    await this.prober?.stop();
    await this.queue.stop();
    const shared = new Set<Informer<KubeObject>>(Object.values(this.opts.shared ?? {}));
    await Promise.all(this.allInformers.filter((i) => !shared.has(i)).map((i) => i.stop()));
    for (const v of this.views) v.close();
    this.remoteSlices?.close();
    this.rejectSynced(new Error(`mirror of ${this.cluster} stopped`));
    await this.running;
  }

  /** Processes every queued key (retries included) until none is left. */
  drain(): Promise<void> {
    return this.queue.drain();
  }

  processNext(): Promise<boolean> {
    return this.queue.processNext();
  }

  /** What the refresh timer does: re-resolve the gateway, count a repair, requeue every key. */
  async refresh(): Promise<void> {
    if (this.stopped) return;
    this.metrics.endpointRepairs.inc({ target_cluster_name: this.cluster });
    await this.addresses?.refresh();
    if (!this.hasSynced) return;
    this.enqueueAll();
    this.enqueue(STATUS_KEY); // a status write that failed for good gets another chance
    this.enqueue(RENAMED_KEY); // and so does a sweep of the mirrors of earlier target names
  }

  /**
   * Gateway liveness from the prober: a change requeues every key (endpoints move to/from
   * notReadyAddresses); those whose mirror Endpoints exist at high priority, ahead of routine
   * work (a backlog of new exports, say) and up to `livenessWorkers` at once.
   */
  setAlive(alive: boolean): void {
    if (alive === this.isAlive) return;
    this.isAlive = alive;
    if (alive) this.log.info(`gateway of ${this.cluster} is alive again; mirror endpoints are ready`);
    else this.log.warn(`gateway of ${this.cluster} is not alive; mirror endpoints are marked not ready`);
    if (!this.hasSynced) return;
    for (const k of liveKeys(this.informers, this.cluster, this.gatewayRef)) this.queue.add(k, "high");
    this.enqueueAll(); // sets the depth gauge once
  }

  private scheduleRefresh(): void {
    if (this.stopped) return;
    const period = this.settings.endpointRefreshPeriod;
    const delay = this.addresses?.isFailing ? Math.min(RESOLVE_RETRY_MS, period) : period;
    this.cancelRefresh = this.clock.setTimer(delay, () => {
      this.refreshing = this.refresh()
        .catch((err: unknown) => this.log.error(`refresh failed: ${formatError(err)}`))
        .finally(() => this.scheduleRefresh());
    });
  }

  private enqueue(key: MirrorKey, priority: Priority = "normal"): void {
    this.queue.add(key, priority);
    this.metrics.queueDepth.set({ target_cluster_name: this.cluster }, this.queue.length);
  }

  /** Every local federated Service's key (a Link appeared or went: members may change). */
  private enqueueFederated(): void {
    if (this.hasSynced) for (const k of federatedKeys(this.informers)) this.enqueue(k);
  }

  /** Every key, the depth gauge set once (not per key: at 10k keys that was most of a resync's cost). */
  private enqueueAll(): void {
    for (const k of allKeys(this.informers, this.cluster, this.gatewayRef)) this.queue.add(k);
    this.metrics.queueDepth.set({ target_cluster_name: this.cluster }, this.queue.length);
  }

  private async reconcile(key: MirrorKey): Promise<void> {
    const end = this.metrics.reconcileDuration.startTimer({ target_cluster_name: this.cluster });
    try {
      if (key === GATEWAY_KEY) await reconcileGatewayMirror(this.deps);
      else if (key === STATUS_KEY) {
        await this.status.writeFailures(this.outcomes.failures(), this.outcomes.failureCount);
        await this.status.writeFederated(this.federated.all());
      } else if (key === RENAMED_KEY) await sweepRenamed({ local: this.opts.local, writer: this.writer, link: this.link, metrics: this.metrics, log: this.log });
      else {
        await reconcileService(this.deps, key);
        if (this.federatedDeps) await reconcileFederated(this.federatedDeps, key);
      }
    } finally {
      end();
      this.metrics.queueDepth.set({ target_cluster_name: this.cluster }, this.queue.length);
    }
  }

  private gaveUp(key: MirrorKey, err: unknown): void {
    if (key === GATEWAY_KEY || key === STATUS_KEY || key === RENAMED_KEY) return;
    this.outcomes.record(key, { state: "problem", problem: { reason: "Error", message: formatError(err) } });
  }
}
