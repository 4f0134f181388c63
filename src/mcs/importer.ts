// The MCS importer for one exporting cluster: keeps in the source that cluster's share of each ServiceImport.
import { formatError } from "../errors.ts";
import {
  AccessTableError,
  createWriter,
  Informer,
  isNotFound,
  resources,
  type KubeClient,
  type KubeObject,
  type ResourceType,
  type Writer,
} from "../kube/index.ts";
import type { Logger } from "../log.ts";
import { systemClock, WorkQueue, type BackoffOptions, type Clock } from "../runtime/index.ts";
import {
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  LABEL_SOURCE_CLUSTER,
  MANAGED_BY_MC,
  mcsResources,
  type ServiceExportObject,
  type ServiceImportObject,
} from "./api.ts";
import {
  derivedServiceName,
  desiredSlice,
  LABEL_MC_IMPORT,
  viewOfSlice,
  type DerivedServiceObject,
  type EndpointSliceObject,
} from "./desired.ts";
import { changedConditions } from "./export-status.ts";
import { deleteDeparted, sliceEndpoints, writeMerged, writeSlice, type SliceSource } from "./import-writes.ts";
import { judgeExport, mergeViews, type ExportedService, type ExportView, type MergedImport } from "./merge.ts";

// The MCS importer for one exporting cluster (a Link's target, or with `mc serve --local` the
// source itself): watches that cluster's ServiceExports and Services, and keeps in the source its
// share of each import — its EndpointSlice (which carries its ExportView) — then the ServiceImport,
// its derived Service and `status.clusters`, merged from every cluster's slice, so several
// importers writing the same import agree. The last slice gone takes the import and the derived
// Service with it. A cluster whose Link was seen deleted has its slices dropped by the importers
// left. A cluster that serves no ServiceExports (or may not read them) turns it off.

/** The namespace's Links as the importer needs them (the process's LinkDirectory). */
export interface DepartedLinks {
  /** Whether `cluster`'s last Link was seen deleted. */
  isGone(cluster: string): boolean;
  /** Told when a Link appears, goes, or changes its target (with that cluster). */
  onChange(listener: (cluster: string) => void): () => void;
}

export interface ImporterOptions {
  /** The exporting cluster's name (status.clusters, the slice's source-cluster label). */
  cluster: string;
  /** Where the ServiceExports and Services are read (a Link's restricted client, or the local one). */
  remote: KubeClient;
  /** Where imports, derived Services and slices are written. */
  local: KubeClient;
  source: SliceSource;
  log: Logger;
  clock?: Clock;
  /** Everything is looked at again this often. Default 60 s. */
  resyncMs?: number;
  informerBackoff?: Partial<BackoffOptions>;
  /** The local importer: also writes the conditions of the ServiceExports it reads (they are this cluster's). */
  exportStatus?: boolean;
  /** With it, a cluster whose Link is seen deleted leaves every import: its slices are deleted and the imports merged again without it. */
  links?: DepartedLinks;
}

/** Why an importer is off, if it is. */
export type ImporterState = { on: true } | { on: false; why: string };

type Obj = KubeObject;

/** `ns/name` → its parts. */
function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf("/");
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** Keeps what a Service informer needs of a Service (its spec), not its status or managed fields. */
const slim = <T extends Obj>(o: T): T => ({ ...o, metadata: { ...o.metadata, managedFields: undefined }, status: undefined });

export class McsImporter {
  private readonly writer: Writer;
  private readonly clock: Clock;
  private readonly queue: WorkQueue<string>;
  private informers:
    | {
        exports: Informer<ServiceExportObject & Obj>;
        /** The target's Services and (endpoints source) Endpoints: watched only once it exports something (lazily, so a Link whose target exports nothing costs no second watch of every Service). */
        services?: Informer<ExportedService & Obj>;
        imports: Informer<ServiceImportObject & Obj>;
        slices: Informer<EndpointSliceObject & Obj>;
        derived: Informer<DerivedServiceObject & Obj>;
        namespaces: Informer<Obj & { status?: { phase?: string } }>;
        endpoints?: Informer<Obj>;
      }
    | undefined;
  private stopped = false;
  private cancelTimer: () => void = () => {};
  private unsubscribe: () => void = () => {};
  private running: Promise<void> | undefined;
  private stateNow: ImporterState = { on: false, why: "starting" };
  /** Exports not imported because their namespace is missing here: `ns/name` → message. */
  readonly missingNamespaces = new Map<string, string>();

  constructor(private readonly o: ImporterOptions) {
    this.writer = createWriter(o.local, { log: o.log });
    this.clock = o.clock ?? systemClock;
    this.queue = new WorkQueue<string>((key) => this.reconcile(key), {
      requeueLimit: 12,
      clock: this.clock,
      log: o.log,
      // Several writers of one import meet conflicts (retried with backoff); a key given up is looked at again at the next resync.
      onGiveUp: (key, err) => o.log.warn(`MCS import ${key} from ${o.cluster}: ${formatError(err)}; looked at again at the next resync`),
    });
  }

  get state(): ImporterState {
    return this.stateNow;
  }

  /** Resolves once the informers synced (or the importer turned itself off). */
  start(): this {
    if (!this.running) this.running = this.run();
    return this;
  }

  /** The first sync (or being off). */
  get ready(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async run(): Promise<void> {
    const why = await this.probe();
    if (this.stopped) return;
    if (why) {
      this.stateNow = { on: false, why };
      this.o.log.info(`MCS import from ${this.o.cluster} is off: ${why}`);
      this.schedule(() => {
        this.running = this.run();
      });
      return;
    }
    const { remote, local } = this.o;
    const backoff = this.o.informerBackoff;
    const mcsSlices = `${LABEL_MANAGED_BY}=${MANAGED_BY_MC},${LABEL_SERVICE_NAME}`;
    this.informers = {
      exports: new Informer({ client: remote, resource: mcsResources.serviceExport, backoff, clock: this.clock }),
      imports: new Informer({
        client: local,
        resource: mcsResources.serviceImport,
        labelSelector: LABEL_MC_IMPORT,
        backoff,
        clock: this.clock,
      }),
      slices: new Informer({ client: local, resource: resources.endpointSlice, labelSelector: mcsSlices, backoff, clock: this.clock }),
      derived: new Informer({
        client: local,
        resource: resources.service,
        labelSelector: LABEL_SERVICE_NAME,
        backoff,
        clock: this.clock,
        transform: slim,
      }),
      namespaces: new Informer({ client: local, resource: resources.namespace, backoff, clock: this.clock }),
    };
    const all = Object.values(this.informers) as unknown as Array<Informer<Obj>>;
    const enqueue = (key: string) => this.queue.add(key);
    for (const i of [this.informers.exports, this.informers.imports]) i.onKey(enqueue);
    this.informers.exports.on(() => this.watchTargets());
    for (const i of [this.informers.slices, this.informers.derived] as unknown as Array<Informer<Obj>>) {
      i.on((e) => {
        const name = e.object.metadata.labels?.[LABEL_SERVICE_NAME];
        if (name) enqueue(`${e.object.metadata.namespace}/${name}`);
      });
    }
    // A namespace that appears here brings the exports waiting for it.
    this.informers.namespaces.on((e) => {
      if (e.type === "deleted") return;
      for (const key of this.missingNamespaces.keys()) if (key.startsWith(`${e.object.metadata.name}/`)) enqueue(key);
    });
    // A cluster whose Link went: every import it took part in is merged again (its slice dropped).
    this.unsubscribe = this.o.links?.onChange((c) => this.departed(c)) ?? (() => {});
    for (const i of all) i.start();
    try {
      await Promise.all(all.map((i) => i.synced));
    } catch {
      return; // stopped
    }
    if (this.stopped) return;
    this.stateNow = { on: true };
    this.o.log.info(`MCS import from ${this.o.cluster}: ${this.informers.exports.cache.size} ServiceExport(s)`);
    this.enqueueAll();
    this.queue.start();
    this.scheduleResync();
    this.watchTargets();
  }

  /** Starts the watches of the exported Services (and their Endpoints) at the first export; every key once they synced. */
  private watchTargets(): void {
    const inf = this.informers;
    if (!inf || inf.services || this.stopped || inf.exports.cache.size === 0) return;
    const { remote } = this.o;
    const backoff = this.o.informerBackoff;
    const enqueue = (key: string) => this.queue.add(key);
    inf.services = new Informer({ client: remote, resource: resources.service, backoff, clock: this.clock, transform: slim });
    if (this.o.source.kind === "endpoints")
      inf.endpoints = new Informer({ client: remote, resource: resources.endpoints, backoff, clock: this.clock });
    const started = [inf.services, inf.endpoints].filter((i): i is Informer<Obj> => i !== undefined);
    for (const i of started) {
      i.onKey(enqueue);
      i.start();
    }
    void Promise.all(started.map((i) => i.synced))
      .then(() => this.enqueueAll())
      .catch(() => {}); // stopped
  }

  /** Whether the exported Services are known (their watch synced). */
  private get targetsKnown(): boolean {
    return this.informers?.services?.hasSynced === true && (this.informers.endpoints?.hasSynced ?? true);
  }

  /** Why the importer cannot run, or undefined: both clusters serve the MCS kinds to these credentials. */
  private async probe(): Promise<string | undefined> {
    const ask = async (client: KubeClient, res: ResourceType, where: string) => {
      try {
        await client.list(res, { limit: 1 });
        return undefined;
      } catch (err) {
        if (err instanceof AccessTableError) return `${res.plural} are outside the access table`;
        const code = (err as { code?: number }).code;
        if (isNotFound(err)) return `${where} serves no ${res.plural} (mc install renders the MCS CRDs)`;
        if (code === 403) return `the credentials may not list ${res.plural} in ${where} (mc install renders the grant)`;
        return `${res.plural} in ${where}: ${formatError(err)}`;
      }
    };
    return (
      (await ask(this.o.remote, mcsResources.serviceExport, this.o.remote.cluster)) ??
      (await ask(this.o.local, mcsResources.serviceImport, this.o.local.cluster))
    );
  }

  private schedule(fn: () => void): void {
    if (this.stopped) return;
    this.cancelTimer = this.clock.setTimer(this.o.resyncMs ?? 60_000, fn);
  }

  private scheduleResync(): void {
    this.schedule(() => {
      this.enqueueAll();
      this.scheduleResync();
    });
  }

  /** Gateway liveness changed: this cluster's slices move to ready or not. */
  refreshEndpoints(): void {
    if (!this.informers || this.stateNow.on !== true) return;
    for (const s of this.informers.slices.cache.list(`${LABEL_SOURCE_CLUSTER}=${this.o.cluster}`)) {
      const name = s.metadata.labels?.[LABEL_SERVICE_NAME];
      if (name) this.queue.add(`${s.metadata.namespace}/${name}`, "high");
    }
  }

  /** A Link changed: if `c`'s last Link is gone, each import with its slice is looked at again. */
  private departed(c: string): void {
    if (c === this.o.cluster || !this.o.links?.isGone(c) || !this.informers) return;
    for (const s of this.informers.slices.cache.list(`${LABEL_SOURCE_CLUSTER}=${c}`)) {
      const name = s.metadata.labels?.[LABEL_SERVICE_NAME];
      if (name) this.queue.add(`${s.metadata.namespace}/${name}`);
    }
  }

  private enqueueAll(): void {
    if (!this.informers) return;
    for (const k of this.informers.exports.cache.keys()) this.queue.add(k);
    for (const s of this.informers.slices.cache.list()) {
      const name = s.metadata.labels?.[LABEL_SERVICE_NAME];
      if (name) this.queue.add(`${s.metadata.namespace}/${name}`);
    }
    for (const k of this.informers.imports.cache.keys()) this.queue.add(k);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.cancelTimer();
    this.unsubscribe();
    await this.queue.stop();
    if (this.informers) await Promise.all((Object.values(this.informers) as unknown as Array<Informer<Obj>>).map((i) => i.stop()));
    await this.running;
  }

  /** Every key queued so far processed (tests). */
  drain(): Promise<void> {
    return this.queue.drain();
  }

  private async reconcile(key: string): Promise<void> {
    const merged = await this.reconcileImport(key);
    if (this.o.exportStatus) await this.writeExportStatus(key, merged);
  }

  private async writeExportStatus(key: string, merged: MergedImport | undefined): Promise<void> {
    const inf = this.informers;
    const { namespace, name } = splitKey(key);
    const exp = inf?.exports.cache.get(namespace, name);
    if (!inf || !exp || !this.targetsKnown) return;
    const conditions = changedConditions(this.o.cluster, exp, {
      service: inf.services?.cache.get(namespace, name),
      imported: merged?.clusters.includes(this.o.cluster) === true && inf.imports.cache.get(namespace, name) !== undefined,
      merged,
      nowMs: this.clock.now(),
    });
    if (!conditions) return;
    const status = { status: { conditions } };
    await this.o.local.patch(mcsResources.serviceExport, namespace, name, status, { type: "merge", subresource: "status" });
  }

  /** The import of `key` brought to what the slices say; returns the merge (undefined: no import). */
  private async reconcileImport(key: string): Promise<MergedImport | undefined> {
    const inf = this.informers;
    if (!inf) return undefined;
    const { namespace, name } = splitKey(key);
    const { cluster } = this.o;
    const exp = inf.exports.cache.get(namespace, name);
    // An export whose Service is not known yet waits for the watch (its sync queues every key).
    if (exp && !this.targetsKnown) return undefined;
    const judged = exp ? judgeExport(cluster, exp, inf.services?.cache.get(namespace, name)) : undefined;
    const own = judged && "view" in judged ? judged.view : undefined;
    const all = inf.slices.cache.list(`${LABEL_SERVICE_NAME}=${name}`).filter((s) => s.metadata.namespace === namespace);
    // The slices of clusters whose Link was seen deleted: nobody keeps or probes them any more, so they go.
    const gone = (s: Obj) => {
      const c = s.metadata.labels?.[LABEL_SOURCE_CLUSTER];
      return c !== undefined && c !== cluster && this.o.links?.isGone(c) === true;
    };
    for (const s of all.filter(gone)) await deleteDeparted(this.writer, this.o.log, s);
    const slices = all.filter((s) => !gone(s));
    const mine = slices.find((s) => s.metadata.labels?.[LABEL_SOURCE_CLUSTER] === cluster);

    if (own && !mine && !this.namespaceExists(namespace)) {
      const message = `namespace ${namespace} does not exist in ${this.o.local.cluster}: ServiceImport ${namespace}/${name} from ${cluster} is not created`;
      if (this.missingNamespaces.get(key) !== message) this.o.log.warn(message);
      this.missingNamespaces.set(key, message);
      return undefined;
    }
    this.missingNamespaces.delete(key);

    // 1. This cluster's slice (its view with it), written first: the import is merged from the slices.
    if (own)
      await writeSlice(
        this.writer,
        desiredSlice(namespace, name, own, sliceEndpoints(this.o.source, inf.endpoints?.cache.get(namespace, name))),
        mine,
      );
    else if (mine) await this.writer.delete(resources.endpointSlice, namespace, mine.metadata.name ?? "");

    // 2. The import, merged from every cluster's view.
    const views: ExportView[] = slices.filter((s) => s !== mine).flatMap((s) => viewOfSlice(s) ?? []);
    if (own) views.push(own);
    const merged = mergeViews(views);
    const current = inf.imports.cache.get(namespace, name);
    if (!merged) {
      if (current) {
        await this.writer.delete(mcsResources.serviceImport, namespace, name, { preconditions: { uid: current.metadata.uid } });
      }
      await this.writer.delete(resources.service, namespace, derivedServiceName(name));
      return undefined;
    }
    await writeMerged(
      this.writer,
      this.o.local,
      namespace,
      name,
      merged,
      current,
      inf.derived.cache.get(namespace, derivedServiceName(name)),
    );
    return merged;
  }

  /** Whether the namespace exists here and takes new objects (not being deleted). */
  private namespaceExists(namespace: string): boolean {
    const ns = this.informers?.namespaces.cache.get(undefined, namespace);
    return ns !== undefined && ns.status?.phase !== "Terminating" && !ns.metadata.deletionTimestamp;
  }
}
