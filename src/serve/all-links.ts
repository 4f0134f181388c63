// AllLinks (`mc serve --all`): one LeaderUnit (its own Lease, supervisor, controller, queue and informers) per Link of the namespace,
// started when the Link appears and stopped — Lease released, mirrors kept — when it goes. Each is isolated: a Link whose Secret is broken,
// or whose target's API server is dead, waits or backs off on its own while the others mirror.
import { formatError } from "../errors.ts";
import type { Informer, KubeObject } from "../kube/index.ts";
import type { Logger } from "../log.ts";
import { MAX_HTTP_REQUESTS, MAX_HTTP_REQUESTS_ENV } from "../model/names.ts";
import type { LeaderUnit } from "./leader-unit.ts";
import type { LinkSupervisor } from "./supervisor.ts";

// A Link deleted and re-created starts again once its old unit has stopped. Every watch holds one of
// Bun's concurrent HTTP requests (BUN_CONFIG_MAX_HTTP_REQUESTS, 256 unless raised): past it, new
// requests wait — Lease renewals too — so serving more Links than the cap allows is said at once.

export type LinkUnit = LeaderUnit<LinkSupervisor>;

/** Watches a served Link holds at most (its Link, Secret and mirror Endpoints here; Services, Endpoints and members there), and what the process holds besides. */
const REQUESTS_PER_LINK = 6;
const REQUESTS_SHARED = 8;

/** Bun's cap on concurrent HTTP requests as this process started with it. */
export function httpRequestCap(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env[MAX_HTTP_REQUESTS_ENV]);
  return Number.isInteger(n) && n > 0 && n <= MAX_HTTP_REQUESTS ? n : 256;
}

/** The warning for serving `links` Links under `cap` concurrent requests; null while they fit. Pure. */
export function capacityWarning(links: number, cap: number): string | null {
  const need = links * REQUESTS_PER_LINK + REQUESTS_SHARED;
  if (need <= cap) return null;
  return `${links} Links hold up to ${need} concurrent requests (watches), more than this process's ${cap}: requests will wait, Lease renewals too; start mc with ${MAX_HTTP_REQUESTS_ENV}=${MAX_HTTP_REQUESTS} (mc install --shared-controller sets it)`;
}

export interface AllLinksOptions {
  /** The namespace's Links (its owner starts and stops it). */
  links: Informer<KubeObject>;
  /** A unit serving the Link of this name, not started. */
  create(linkName: string): LinkUnit;
  log: Logger;
  /** Default: from the environment (httpRequestCap). */
  requestCap?: number;
}

export class AllLinks {
  private readonly current = new Map<string, LinkUnit>();
  private readonly started = new WeakSet<LinkUnit>();
  /** Per Link name: the stop of its last unit, which a new unit waits for. */
  private readonly stopping = new Map<string, Promise<void>>();
  private unsubscribe: (() => void) | undefined;
  private stopped = false;
  private warned = false;

  constructor(private readonly o: AllLinksOptions) {}

  /** The unit of each Link being served, by Link name. */
  get units(): ReadonlyMap<string, LinkUnit> {
    return this.current;
  }

  /** The Links are listed and every unit is ready as a process is (its election runs, its informers here synced): a Link whose target is down is said in its status, not here. */
  get ready(): boolean {
    return this.o.links.hasSynced && [...this.current.values()].every((u) => u.ready);
  }

  start(): void {
    this.unsubscribe = this.o.links.on((e) => {
      const name = e.object.metadata.name ?? "";
      if (e.type === "deleted") this.remove(name);
      else this.add(name);
    });
    for (const link of this.o.links.cache.list()) this.add(link.metadata.name ?? "");
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    for (const name of [...this.current.keys()]) this.remove(name);
    await Promise.all(this.stopping.values());
  }

  private add(name: string): void {
    if (!name || this.stopped || this.current.has(name)) return;
    const unit = this.o.create(name);
    this.current.set(name, unit);
    const warning = this.warned ? null : capacityWarning(this.current.size, this.o.requestCap ?? httpRequestCap());
    if (warning) {
      this.warned = true;
      this.o.log.warn(warning);
    }
    const start = () => {
      if (this.current.get(name) !== unit || this.stopped) return;
      this.started.add(unit);
      unit.start();
      this.o.log.info(`serving Link ${name}`);
    };
    void (this.stopping.get(name) ?? Promise.resolve()).then(start, start);
  }

  private remove(name: string): void {
    const unit = this.current.get(name);
    if (!unit) return;
    this.current.delete(name);
    const stop = async () => {
      if (!this.started.has(unit)) return;
      try {
        await unit.stop();
        if (!this.stopped) this.o.log.info(`Link ${name} is gone: stopped serving it (its mirrors are kept)`);
      } catch (err) {
        this.o.log.error(`stopping the unit of Link ${name} failed: ${formatError(err)}`);
      }
    };
    const done = (this.stopping.get(name) ?? Promise.resolve()).then(stop, stop);
    this.stopping.set(name, done);
    void done.finally(() => {
      if (this.stopping.get(name) === done) this.stopping.delete(name);
    });
  }
}
