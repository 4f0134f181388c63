// LeaderUnit: leader election on one Lease (optional), and — while leading — one runner (a LinkSupervisor for a Link, or the local mirror).
// Losing the lease stops the runner (mirrors stay) and campaigning goes on; stop() releases the lease so a standby takes over at once.
import { LeaderElector, type KubeClient } from "../kube/index.ts";
import { logger, type Logger } from "../log.ts";

// A replica that leads again starts its new runner only once the old one has stopped: the old prober's
// stop() removes the cluster's gateway series, which would otherwise wipe the new one's.

/** What runs while leading. */
export interface Runner {
  start(): void;
  stop(): Promise<void>;
  /** Mirroring with every cache synced, the target's too. */
  readonly ready: boolean;
  /** Its informers on this process's own cluster have synced (what `/ready` asks of it; docs/decisions.md#d125). */
  readonly localReady: boolean;
}

export interface LeaderUnitOptions<R extends Runner> {
  local: KubeClient;
  namespace: string;
  leaseName: string;
  /** `--leader-elect` (default on). */
  leaderElect?: boolean;
  /** `--identity`; default $HOSTNAME_<8 hex> (a suffix per process). */
  identity?: string;
  lease?: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  create(): R;
  log: Logger;
}

export class LeaderUnit<R extends Runner> {
  private current: R | undefined;
  private stopping: Promise<void> = Promise.resolve();
  private attempted = false;
  private isLeading = false;
  private readonly listeners = new Set<(leading: boolean) => void>();
  private readonly rounds = new Set<() => void>();
  private readonly elector: LeaderElector | undefined;

  constructor(private readonly o: LeaderUnitOptions<R>) {
    this.elector =
      (o.leaderElect ?? true)
        ? new LeaderElector({
            client: o.local,
            namespace: o.namespace,
            name: o.leaseName,
            identity: o.identity,
            ...o.lease,
            log: logger(`lease:${o.leaseName}`),
            onStartedLeading: () => this.lead(),
            onStoppedLeading: () => this.stepDown(),
            onAttempt: () => {
              this.attempted = true;
              for (const l of this.rounds) l();
            },
          })
        : undefined;
  }

  get leading(): boolean {
    return this.isLeading;
  }

  /** The runner while leading. */
  get runner(): R | undefined {
    return this.current;
  }

  /**
   * What `/ready` asks of this unit (docs/decisions.md#d125): leader election has run a round and
   * knows who leads (or is off), and, while leading, the runner's informers on this cluster have
   * synced. The target's health is not asked: it is the Link's status.
   */
  get ready(): boolean {
    if (this.isLeading) return this.current?.localReady ?? false;
    return this.attempted && this.elector !== undefined && this.elector.leader !== "";
  }

  onLeading(listener: (leading: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onElection(listener: () => void): () => void {
    this.rounds.add(listener);
    return () => this.rounds.delete(listener);
  }

  start(): void {
    if (this.elector) {
      this.o.log.info(`campaigning for lease ${this.o.namespace}/${this.o.leaseName} as ${this.elector.identity}`);
      this.elector.start();
    } else {
      this.lead();
    }
  }

  /** `release: false` behaves like a crash: the lease is left to expire. */
  async stop(opts: { release?: boolean } = {}): Promise<void> {
    // Stop writing before the lease goes, so a successor never overlaps with us.
    const r = this.current;
    this.current = undefined;
    await r?.stop();
    await this.stopping;
    if (this.elector) await this.elector.stop({ release: opts.release });
    else this.isLeading = false;
  }

  private lead(): void {
    this.isLeading = true;
    const r = this.o.create();
    this.current = r;
    // After the previous runner (if any) has stopped, and only if we still lead with this one.
    const start = () => {
      if (this.current === r) r.start();
    };
    void this.stopping.then(start, start);
    for (const l of this.listeners) l(true);
  }

  private stepDown(): void {
    this.isLeading = false;
    const r = this.current;
    this.current = undefined;
    this.stopping = this.stopping.then(() => r?.stop());
    for (const l of this.listeners) l(false);
  }
}
