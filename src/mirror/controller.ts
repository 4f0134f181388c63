// MirrorController: one Link's service mirror: its lifecycle over the parts wiring.ts wires. Remote informers (exported Services, selected
// by the Link, and every Endpoints object — or EndpointSlice — kept compact), local informers (Services, our Endpoints, Namespaces) and the
// gateway's liveness all feed one keyed queue; `reconcile(key)` does the rest.
import { formatError } from "../errors.ts";
import type { Informer, KubeObject } from "../kube/index.ts";
import type { Priority } from "../runtime/index.ts";
import type { MirrorState } from "../metrics.ts";
import type { Link } from "../model/link.ts";
import type { MirrorSettings } from "../model/mirror-settings.ts";
import type { GatewayProber } from "../prober/types.ts";
import { reconcileFederated } from "./federated/federated-reconcile.ts";
import type { FederatedOutcomes } from "./federated/federated-status.ts";
import { serviceKey, type MirrorKey, type ServiceKey } from "./sources/keys.ts";
import type { Outcomes } from "./reconcile/outcomes.ts";
import { reconcileService, type ServiceReconciled } from "./reconcile/reconcile.ts";
import { rewriteLiveness } from "./reconcile/liveness.ts";
import type { ControllerHealth } from "./sources/target-health.ts";
import { allInformers, allKeys, federatedKeys, liveKeys, type Sources } from "./sources/sources.ts";
import { isSpecialKey, RENAMED_KEY, type ResolvedGateway } from "./types.ts";
import { wireController, type ControllerParts, type MirrorControllerOptions } from "./wiring.ts";
import type { McsImporter } from "../mcs/importer.ts";

// Start waits for every cache before the first key runs, so an empty cache is never mistaken for
// "nothing is exported". A refresh every period re-resolves the gateway and requeues every key. Each
// target Service key also reconciles this Link's membership in `<svc>-federated`
// (federated-reconcile.ts) when the Link has a federatedServiceSelector; a Link with no target cluster
// (`mc serve --local`) is the local mirror, whose members are the local cluster's own.

export type { MirrorControllerOptions } from "./wiring.ts";

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
  /** Its parts, wired (wiring.ts). */
  private readonly w: ControllerParts;
  private resolveSynced!: () => void;
  private rejectSynced!: (err: Error) => void;
  private isAlive = true;
  private hasSynced = false;
  private stopped = false;
  private cancelRefresh = () => {};
  private running: Promise<void> | undefined;
  /** The refresh in progress (or the last one), for tests that advance the clock. */
  refreshing: Promise<void> = Promise.resolve();

  constructor(opts: MirrorControllerOptions) {
    this.opts = opts;
    this.link = opts.link;
    const w = wireController(opts, {
      reconcile: (key) => this.reconcile(key),
      gaveUp: (key, err) => this.gaveUp(key, err),
      enqueue: (key) => this.enqueue(key),
      enqueueFederated: () => this.enqueueFederated(),
      setAlive: (alive) => this.setAlive(alive),
      gateway: () => this.gateway,
      gatewayAddresses: () => this.gatewayAddresses,
      alive: () => this.isAlive,
    });
    this.w = w;
    this.settings = w.settings;
    this.cluster = w.cluster;
    this.informers = w.informers;
    this.outcomes = w.outcomes;
    this.federated = w.federated;
    this.synced = new Promise<void>((resolve, reject) => {
      this.resolveSynced = resolve;
      this.rejectSynced = reject;
    });
    this.synced.catch(() => {});
  }

  private get allInformers(): Array<Informer<KubeObject>> {
    return allInformers(this.informers);
  }

  get isSynced(): boolean {
    return this.hasSynced;
  }
  /** The informers on the source (this process's own cluster) have synced, whatever the target does. */
  get localSynced(): boolean {
    const i = this.informers;
    return i.services.hasSynced && i.endpoints.hasSynced && i.namespaces.hasSynced;
  }
  get alive(): boolean {
    return this.isAlive;
  }
  get gateway(): ResolvedGateway | null {
    const g = this.link.gateway;
    return g ? { addresses: this.gatewayAddresses, port: g.port, identity: g.identity } : null;
  }
  get gatewayAddresses(): string[] {
    return this.w.addresses?.addresses ?? [];
  }
  get probe(): GatewayProber | undefined {
    return this.w.prober;
  }
  /** The Multi-Cluster Services import, when on. */
  get mcs(): McsImporter | undefined {
    return this.w.mcs;
  }

  /** What became of a target Service (`ns/name`). */
  outcome(key: ServiceKey): MirrorState | undefined {
    return this.outcomes.stateOf(key);
  }

  /** Told what the watches of the target say, when the caches synced, and whether the selector selects anything. */
  onHealth(listener: (h: ControllerHealth) => void): () => void {
    return this.w.health.on(listener);
  }

  /** Starts the informers; keys run once every cache has synced (`synced`). Returns at once. */
  start(): this {
    if (this.running) return this;
    for (const i of this.allInformers) i.start();
    this.w.mcs?.start();
    this.running = this.run();
    return this;
  }

  private async run(): Promise<void> {
    try {
      await this.w.addresses?.refresh();
      await Promise.all([...this.allInformers.map((i) => i.synced), this.opts.links?.synced]);
    } catch (err) {
      this.rejectSynced(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    if (this.stopped) return;
    this.hasSynced = true;
    this.w.propagation.start();
    const exported = this.w.selected.size;
    if (this.link.selector && !this.link.gateway)
      this.w.log.warn(`Link ${this.link.name} has a selector but no gateway address: nothing is mirrored`);
    this.w.log.info(
      `synced with ${this.cluster}: ${exported} exported service${exported === 1 ? "" : "s"}, gateway ${this.gatewayAddresses.join(", ") || "unresolved"}`,
    );
    this.w.health.markSynced();
    this.enqueueAll();
    // Services the Link's status lists as failing are looked at again (their entry goes once they mirror or are gone).
    for (const f of this.outcomes.failures()) this.enqueue(serviceKey(f.namespace, f.name));
    for (const k of this.federated.keys()) this.enqueue(k);
    this.w.status.changed("mirrorServices");
    this.w.status.changed("federatedServices");
    this.enqueue(RENAMED_KEY);
    if (!this.opts.manual) {
      this.w.queue.start();
      if (this.w.ownStatus) this.w.status.start();
    }
    this.w.prober?.start();
    this.scheduleRefresh();
    this.resolveSynced();
  }

  /** Stops everything; mirrors stay as they are. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.cancelRefresh();
    for (const off of this.w.unsubscribe) off();
    await this.w.mcs?.stop();
    await this.w.prober?.stop();
    await this.w.queue.stop();
    if (this.w.ownStatus) await this.w.status.stop();
    const shared = new Set<Informer<KubeObject>>(Object.values(this.opts.shared ?? {}));
    await Promise.all(this.allInformers.filter((i) => !shared.has(i)).map((i) => i.stop()));
    for (const v of this.w.views) v.close();
    this.w.remoteSlices?.close();
    this.rejectSynced(new Error(`mirror of ${this.cluster} stopped`));
    await this.running;
  }

  /** Processes every queued key (retries included) until none is left, then writes what the Link status should say. */
  async drain(): Promise<void> {
    await this.w.queue.drain();
    await this.w.status.drain();
  }

  processNext(): Promise<boolean> {
    return this.w.queue.processNext();
  }

  /** What the refresh timer does: re-resolve the gateway, count a repair, read the cache again (overlays older than a period go), requeue every key. */
  async refresh(): Promise<void> {
    if (this.stopped) return;
    this.w.metrics.endpointRepairs.inc({ target_cluster_name: this.cluster });
    for (const v of this.w.views) v.expire();
    await this.w.addresses?.refresh();
    if (!this.hasSynced) return;
    this.enqueueAll();
    this.w.status.retry(); // a status write that failed for good gets another chance
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
    if (alive) this.w.log.info(`gateway of ${this.cluster} is alive again; mirror endpoints are ready`);
    else this.w.log.warn(`gateway of ${this.cluster} is not alive; mirror endpoints are marked not ready`);
    this.w.mcs?.refreshEndpoints();
    if (!this.hasSynced) return;
    // Not touched (liveness.ts): a key whose mirror nothing else changed takes the liveness-only path.
    for (const k of liveKeys(this.informers, this.cluster, this.w.gatewayRef)) this.w.queue.add(k, "high");
    this.enqueueAll(false); // sets the depth gauge once
  }

  private scheduleRefresh(): void {
    if (this.stopped) return;
    const period = this.settings.endpointRefreshPeriod;
    const delay = this.w.addresses?.isFailing ? Math.min(RESOLVE_RETRY_MS, period) : period;
    this.cancelRefresh = this.w.clock.setTimer(delay, () => {
      this.refreshing = this.refresh()
        .catch((err: unknown) => this.w.log.error(`refresh failed: ${formatError(err)}`))
        .finally(() => this.scheduleRefresh());
    });
  }

  /** Before the caches synced, a key comes from an initial list: part of the resync, queued low like it. */
  private enqueue(key: MirrorKey, priority: Priority = this.hasSynced ? "normal" : "low"): void {
    if (!isSpecialKey(key)) this.w.clean.touch(key);
    this.w.queue.add(key, priority);
    this.w.metrics.queueDepth.set({ target_cluster_name: this.cluster }, this.w.queue.length);
  }

  /** Every local federated Service's key (a Link appeared or went: members may change). */
  private enqueueFederated(): void {
    if (this.hasSynced) for (const k of federatedKeys(this.informers)) this.enqueue(k);
  }

  /**
   * Every key, the depth gauge set once (not per key: at 10k keys that was most of a resync's cost),
   * at low priority: a live change (normal) never waits behind a resync.
   */
  private enqueueAll(touch = true): void {
    if (touch) this.w.clean.touchAll();
    for (const k of allKeys(this.informers, this.cluster, this.w.gatewayRef)) this.w.queue.add(k, "low");
    this.w.metrics.queueDepth.set({ target_cluster_name: this.cluster }, this.w.queue.length);
  }

  private async reconcile(key: MirrorKey): Promise<void> {
    const end = this.w.metrics.reconcileDuration.startTimer({ target_cluster_name: this.cluster });
    try {
      if (isSpecialKey(key)) await this.w.special[key]();
      else if (!(await this.livenessOnly(key))) {
        const since = this.w.propagation.take(key);
        const ticket = this.w.clean.begin(key);
        let done: ServiceReconciled;
        try {
          done = await reconcileService(this.w.deps, key);
        } catch (err) {
          this.w.propagation.done(key, since, "failed");
          throw err;
        }
        this.w.propagation.done(key, since, done.writes > 0 ? "wrote" : "unchanged");
        if (this.w.federatedDeps) await reconcileFederated(this.w.federatedDeps, key);
        this.w.clean.end(key, ticket, done.made);
      }
    } finally {
      end();
      this.w.metrics.queueDepth.set({ target_cluster_name: this.cluster }, this.w.queue.length);
    }
  }

  /**
   * A key whose mirror nothing but the gateway's liveness changed since its last full reconcile: only
   * its Endpoints are rewritten (reconcile/liveness.ts). False: the key needs its full reconcile.
   */
  private async livenessOnly(key: ServiceKey): Promise<boolean> {
    const made = this.w.clean.get(key);
    if (!made) return false;
    let done: Awaited<ReturnType<typeof rewriteLiveness>>;
    try {
      done = await rewriteLiveness(this.w.liveness, made, { alive: this.isAlive, addresses: this.gatewayAddresses });
    } catch (err) {
      this.w.clean.forget(key);
      throw err;
    }
    if (!done) return false;
    this.w.clean.flipped(key, made, done.made);
    this.w.metrics.livenessOnly.inc({ target_cluster_name: this.cluster });
    return true;
  }

  private gaveUp(key: MirrorKey, err: unknown): void {
    if (isSpecialKey(key)) return;
    this.outcomes.record(key, { state: "problem", problem: { reason: "Error", message: formatError(err) } });
  }
}
