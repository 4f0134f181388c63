// `mc serve` as a library: the admin server (up at once), leader election on the Lease
// `service-mirror-write-<link>` (optional), and — while leading — the LinkSupervisor that runs
// the mirror controller. Losing the lease stops mirroring (mirrors stay) and campaigning goes
// on; stop() releases the lease so a standby takes over at once. A replica that leads again
// starts its new supervisor only once the old one has stopped: the old prober's stop() removes
// the cluster's gateway series, which would otherwise wipe the new prober's.
import { startAdmin, type AdminServer } from "../admin.ts";
import { LeaderElector, type KubeClient } from "../kube/index.ts";
import { logger, type Logger } from "../log.ts";
import { createMetrics, type Metrics } from "../metrics.ts";
import { leaseName } from "../model/names.ts";
import { proberFactory } from "../prober/index.ts";
import { LinkSupervisor, type ConnectRemote, type ControllerSettings } from "./supervisor.ts";

export interface ServeOptions {
  local: KubeClient;
  /** Where the Link, its Secret and the Lease live. */
  namespace: string;
  linkName: string;
  /** `--admin-addr`. */
  adminAddr: string;
  /** `--leader-elect` (default on). */
  leaderElect?: boolean;
  /** `--identity`; default $HOSTNAME. */
  identity?: string;
  lease?: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  /**
   * `--status-interval`: the fastest a steady status.gateway is rewritten (default 10 s), bound
   * into the production prober. Not together with `controller.proberFactory`, which binds its own.
   */
  statusIntervalMs?: number;
  /**
   * `--fast-failure-detection`: the prober confirms a failed probe at period/10 (bound into the
   * production prober like `statusIntervalMs`, so also not with `controller.proberFactory`).
   */
  fastFailureDetection?: boolean;
  /** Default: the production prober (`proberFactory({ statusIntervalMs, fastFailureDetection })`). */
  controller?: ControllerSettings;
  connect?: ConnectRemote;
  metrics?: Metrics;
  log?: Logger;
}

export interface Serving {
  admin: AdminServer;
  metrics: Metrics;
  /** Leading (always true without leader election). */
  readonly leading: boolean;
  /** What `/ready` says: leading with every cache synced, or standing by behind another leader. */
  readonly ready: boolean;
  /** The supervisor while leading. */
  readonly supervisor: LinkSupervisor | undefined;
  /** Told when this replica starts (true) or stops (false) leading. */
  onLeading(listener: (leading: boolean) => void): () => void;
  /** Told after every election round (readiness of a standby may have changed). */
  onElection(listener: () => void): () => void;
  /** `release: false` behaves like a crash: the lease is left to expire. */
  stop(opts?: { release?: boolean }): Promise<void>;
}

export async function serve(o: ServeOptions): Promise<Serving> {
  const log = o.log ?? logger(`mirror:${o.linkName}`);
  const metrics = o.metrics ?? createMetrics();
  const leaderElect = o.leaderElect ?? true;
  let supervisor: LinkSupervisor | undefined;
  let stopping: Promise<void> = Promise.resolve();
  let attempted = false;
  let leading = false;
  const listeners = new Set<(leading: boolean) => void>();
  const rounds = new Set<() => void>();
  const controller = controllerSettings(o);

  const lead = () => {
    leading = true;
    const s = new LinkSupervisor({ local: o.local, namespace: o.namespace, linkName: o.linkName, metrics, controller, connect: o.connect, log });
    supervisor = s;
    // After the previous supervisor (if any) has stopped, and only if we still lead with this one.
    const start = () => {
      if (supervisor === s) s.start();
    };
    void stopping.then(start, start);
    for (const l of listeners) l(true);
  };
  const stepDown = () => {
    leading = false;
    const s = supervisor;
    supervisor = undefined;
    stopping = stopping.then(() => s?.stop());
    for (const l of listeners) l(false);
  };

  const elector = leaderElect
    ? new LeaderElector({
        client: o.local,
        namespace: o.namespace,
        name: leaseName(o.linkName),
        identity: o.identity,
        ...o.lease,
        log: logger(`lease:${o.linkName}`),
        onStartedLeading: lead,
        onStoppedLeading: stepDown,
        onAttempt: () => {
          attempted = true;
          for (const l of rounds) l();
        },
      })
    : undefined;

  // Ready: leading with every cache synced, or a standby that has seen who leads.
  const isReady = () => (leading ? (supervisor?.ready ?? false) : attempted && elector !== undefined && elector.leader !== "");
  const admin = startAdmin({ addr: o.adminAddr, metrics, ready: isReady });
  log.info(`admin server listening on ${admin.url}`);
  if (elector) {
    log.info(`campaigning for lease ${o.namespace}/${leaseName(o.linkName)} as ${elector.identity}`);
    elector.start();
  } else {
    lead();
  }

  return {
    admin,
    metrics,
    get leading() {
      return leading;
    },
    get ready() {
      return isReady();
    },
    get supervisor() {
      return supervisor;
    },
    onLeading(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onElection(listener) {
      rounds.add(listener);
      return () => rounds.delete(listener);
    },
    async stop(opts = {}) {
      // Stop writing before the lease goes, so a successor never overlaps with us.
      const s = supervisor;
      supervisor = undefined;
      await s?.stop();
      await stopping;
      if (elector) await elector.stop({ release: opts.release });
      else leading = false;
      await admin.stop();
    },
  };
}

/** The controller settings with the prober bound: the caller's factory, or the production one with `statusIntervalMs` and `fastFailureDetection`. */
function controllerSettings(o: ServeOptions): ControllerSettings {
  for (const bound of ["statusIntervalMs", "fastFailureDetection"] as const) {
    if (o.controller?.proberFactory && o[bound] !== undefined) throw new Error(`serve: ${bound} is bound by controller.proberFactory; pass one or the other`);
  }
  return { ...o.controller, proberFactory: o.controller?.proberFactory ?? proberFactory({ statusIntervalMs: o.statusIntervalMs, fastFailureDetection: o.fastFailureDetection }) };
}
