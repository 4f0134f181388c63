// `mc serve` as a library: the admin server, the namespace's Links, and one Link, every Link or the local mirror under leader election.
import { startAdmin, type AdminServer } from "./admin.ts";
import { connectFromSecret, type KubeClient } from "../kube/index.ts";
import { logger, type Logger } from "../log.ts";
import { createMetrics, type Metrics } from "../metrics.ts";
import { mirrorSettings, type MirrorSettings } from "../model/mirror-settings.ts";
import { LOCAL_MIRROR_LEASE, leaseName } from "../model/names.ts";
import { proberFactory } from "../prober/index.ts";
import { AllLinks } from "./all-links.ts";
import { LeaderUnit, type Runner } from "./leader-unit.ts";
import { LinkDirectory } from "../mirror/federated/link-directory.ts";
import { sweepDepartedClusters } from "../mcs/departed.ts";
import { LocalMirror, type LocalMirrorSpec } from "./local-mirror.ts";
import { sharedLocalInformers } from "../mirror/sources/sources.ts";
import { LinkSupervisor, type ConnectRemote, type ControllerSettings } from "./supervisor.ts";

// `mc serve` as a library: the admin server (up at once), the namespace's Links (a LinkDirectory,
// for federated services), and one of three things, each under leader election (LeaderUnit):
// one Link (`mc serve LINK`: Lease `service-mirror-write-<link>`, a LinkSupervisor running its
// controller), every Link of the namespace (`mc serve --all`: a unit per Link, AllLinks, sharing
// the local Service and Namespace informers), or the local mirror (`mc serve --local`: Lease
// `local-service-mirror-write`). stop() stops mirroring first, then releases the Leases.

export interface ServeOptions {
  local: KubeClient;
  /** Where the Links, their Secrets and the Leases live. */
  namespace: string;
  /** Serve this Link. Exactly one of linkName, all and localMirror. */
  linkName?: string;
  /** `--all`: serve every Link of the namespace. */
  all?: boolean;
  /** `--local`: the local mirror (federated members of this cluster). */
  localMirror?: LocalMirrorSpec;
  /** `--admin-addr`. */
  adminAddr: string;
  /** `--leader-elect` (default on). */
  leaderElect?: boolean;
  /** `--identity`; default $HOSTNAME_<8 hex> (a suffix per process). */
  identity?: string;
  lease?: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  /** The mirroring settings (`mc serve`'s flags of src/model/mirror-settings.ts); the rest take their defaults. */
  settings?: Partial<MirrorSettings>;
  /** What is not a flag (clock, backoffs, workers at a liveness change, a prober for tests); default prober: the production one with the settings' statusInterval and fastFailureDetection. */
  controller?: Omit<ControllerSettings, "settings">;
  connect?: ConnectRemote;
  metrics?: Metrics;
  log?: Logger;
}

export interface Serving {
  admin: AdminServer;
  metrics: Metrics;
  /** The namespace's Links. */
  links: LinkDirectory;
  /** Leading (always true without leader election); with `all`, false. */
  readonly leading: boolean;
  /** What `/ready` says: this process's informers on its own cluster synced and each election run (leading with the runner's local caches synced, or standing by behind another leader); a target's health is its Link's status, not this. */
  readonly ready: boolean;
  /** The supervisor while leading (one Link). */
  readonly supervisor: LinkSupervisor | undefined;
  /** The local mirror while leading (`localMirror`). */
  readonly localMirror: LocalMirror | undefined;
  /** Every Link's unit (`all`). */
  readonly all: AllLinks | undefined;
  /** Told when this replica starts (true) or stops (false) leading (one Link, or the local mirror). */
  onLeading(listener: (leading: boolean) => void): () => void;
  /** Told after every election round (readiness of a standby may have changed). */
  onElection(listener: () => void): () => void;
  /** `release: false` behaves like a crash: the leases are left to expire. */
  stop(opts?: { release?: boolean }): Promise<void>;
}

export async function serve(o: ServeOptions): Promise<Serving> {
  const modes = [o.linkName !== undefined, o.all === true, o.localMirror !== undefined].filter(Boolean).length;
  if (modes !== 1) throw new Error("serve: pass exactly one of linkName, all and localMirror");
  // The client-side limit (--kube-api-qps/--kube-api-burst): a bucket for this cluster's client and one per target's; the Leases keep an unlimited client, as kube's leader election has its own.
  const settings = mirrorSettings(o.settings);
  const limits = { qps: settings.kubeApiQps, burst: settings.kubeApiBurst };
  const leaseClient = o.local;
  const connectRemote = o.connect ?? connectFromSecret;
  o = { ...o, local: o.local.limited(limits), connect: async (...args) => (await connectRemote(...args)).limited(limits) };
  const name = o.linkName ?? (o.all ? "all" : "local");
  const log = o.log ?? logger(`mirror:${name}`);
  const metrics = o.metrics ?? createMetrics();
  const links = new LinkDirectory({ client: o.local, namespace: o.namespace, backoff: o.controller?.informerBackoff }).start();
  // A Link seen deleted takes its cluster out of the MCS imports, even with no importer left here (docs/decisions.md#d150).
  const unsweep = sweepDepartedClusters({ client: o.local, links, log });
  const shared = o.all ? sharedLocalInformers(o.local, o.controller?.informerBackoff) : undefined;
  for (const i of Object.values(shared ?? {})) i.start();
  const controller: ControllerSettings = { ...controllerSettings(o), links, ...(shared && { shared }) };
  const unitFor = <R extends Runner>(lease: string, create: () => R, unitLog: Logger) =>
    new LeaderUnit<R>({
      local: leaseClient,
      namespace: o.namespace,
      leaseName: lease,
      leaderElect: o.leaderElect,
      identity: o.identity,
      lease: o.lease,
      create,
      log: unitLog,
    });
  const supervisorUnit = (linkName: string, unitLog: Logger) =>
    unitFor(
      leaseName(linkName),
      () => new LinkSupervisor({ local: o.local, namespace: o.namespace, linkName, metrics, controller, connect: o.connect, log: unitLog }),
      unitLog,
    );

  const single = o.linkName !== undefined ? supervisorUnit(o.linkName, log) : undefined;
  const local = o.localMirror
    ? unitFor(
        LOCAL_MIRROR_LEASE,
        () => new LocalMirror({ local: o.local, namespace: o.namespace, spec: o.localMirror!, metrics, controller }),
        log,
      )
    : undefined;
  const all = o.all
    ? new AllLinks({ links: links.informer, create: (n) => supervisorUnit(n, o.log ?? logger(`mirror:${n}`)), log })
    : undefined;
  const unit: LeaderUnit<Runner> | undefined = single ?? local;

  // Readiness is this process's (docs/decisions.md#d125): its informers here synced and its elections running; each Link's health is in its status.
  const localSynced = () => links.informer.hasSynced && Object.values(shared ?? {}).every((i) => i.hasSynced);
  const isReady = () => localSynced() && (all ? all.ready : (unit?.ready ?? false));
  const admin = startAdmin({ addr: o.adminAddr, metrics, ready: isReady });
  log.info(`admin server listening on ${admin.url}`);
  unit?.start();
  all?.start();
  if (all) log.info(`serving every Link in namespace ${o.namespace}`);

  return {
    admin,
    metrics,
    links,
    get leading() {
      return unit?.leading ?? false;
    },
    get ready() {
      return isReady();
    },
    get supervisor() {
      return single?.runner;
    },
    get localMirror() {
      return local?.runner;
    },
    all,
    onLeading(listener) {
      return unit?.onLeading(listener) ?? (() => {});
    },
    onElection(listener) {
      return unit?.onElection(listener) ?? (() => {});
    },
    async stop(opts = {}) {
      await Promise.all([unit?.stop(opts), all?.stop()]);
      unsweep();
      await Promise.all([links.stop(), ...Object.values(shared ?? {}).map((i) => i.stop())]);
      await admin.stop();
    },
  };
}

/** The controller settings with the mirroring settings whole and the prober bound: the caller's factory, or the production one with `statusInterval` and `fastFailureDetection`. */
function controllerSettings(o: ServeOptions): ControllerSettings {
  for (const bound of ["statusInterval", "fastFailureDetection"] as const) {
    if (o.controller?.proberFactory && o.settings?.[bound] !== undefined)
      throw new Error(`serve: settings.${bound} is bound by controller.proberFactory; pass one or the other`);
  }
  const settings = mirrorSettings(o.settings);
  return {
    ...o.controller,
    settings,
    proberFactory:
      o.controller?.proberFactory ??
      proberFactory({ statusIntervalMs: settings.statusInterval, fastFailureDetection: settings.fastFailureDetection }),
  };
}
