// LinkSupervisor: keeps one MirrorController running for the named Link. It watches the Link and its credentials Secret in the source
// cluster and (re)starts the controller when the Link's spec or the Secret changes — never for a status-only update, which the controller
// itself causes (as Linkerd since linkerd/linkerd2#13579).
import { formatError, UserError } from "../errors.ts";
import {
  connectFromSecret,
  createWriter,
  Informer,
  resources,
  type KubeClient,
  type KubeObject,
  type SecretConnectOptions,
} from "../kube/index.ts";
import { WorkQueue } from "../runtime/index.ts";
import { logger, type Logger } from "../log.ts";
import type { Metrics } from "../metrics.ts";
import { findCondition } from "../model/conditions.ts";
import { LinkError, linkResource, oldestFirst, parseLink, type Link } from "../model/link.ts";
import { serviceMirrorName } from "../model/names.ts";
import { systemClock } from "../runtime/index.ts";
import { MirrorController, type MirrorControllerOptions } from "../mirror/controller.ts";
import type { ControllerHealth } from "../mirror/sources/target-health.ts";
import { eventRecorder } from "../mirror/status/events.ts";
import { LinkStatus } from "../mirror/status/link-status.ts";
import { mirrorSettings } from "../model/mirror-settings.ts";
import { LinkConditions } from "./link-conditions.ts";
import {
  badSecret,
  invalidLink,
  refusedLink,
  rivalsCondition,
  selectionCondition,
  targetConditions,
  unusable,
  type TargetState,
} from "./link-health.ts";

// A deleted Link stops mirroring and keeps the mirrors; a bad Link or Secret is reported once and
// waited on; a failure to read them is retried with backoff. What it and its controller learn about
// the Link is written as the Link's status.conditions, with an Event on each transition
// (link-conditions.ts, link-health.ts).

/** What every controller of this process shares; the Link, namespace and clients come from the supervisor. */
export type ControllerSettings = Omit<MirrorControllerOptions, "link" | "namespace" | "local" | "remote" | "metrics" | "status">;

export type ConnectRemote = (local: KubeClient, namespace: string, secret: string, opts: SecretConnectOptions) => Promise<KubeClient>;

export interface SupervisorOptions {
  local: KubeClient;
  namespace: string;
  linkName: string;
  metrics: Metrics;
  controller?: ControllerSettings;
  /** Default connectFromSecret. */
  connect?: ConnectRemote;
  log?: Logger;
}

/** `conflict`: an older Link of the namespace targets the same cluster; this one is not served. */
export type SupervisorState = "starting" | "no-link" | "invalid-link" | "no-secret" | "bad-secret" | "conflict" | "running" | "stopped";

export class LinkSupervisor {
  private readonly links: Informer<KubeObject>;
  private secrets: Informer<KubeObject> | undefined;
  private secretName = "";
  private readonly queue: WorkQueue<"link">;
  private readonly log: Logger;
  private current: MirrorController | undefined;
  private fingerprint: string | undefined;
  private state: SupervisorState = "starting";
  private stopping = false;
  private readonly listeners = new Set<(c: MirrorController | undefined) => void>();
  private readonly statusListeners = new Set<(state: SupervisorState) => void>();
  /** The Link's status.conditions. */
  readonly conditions: LinkConditions;
  /** The writer of the Link's status (its conditions, and what each controller reports). */
  private readonly linkStatus: LinkStatus;
  /** What the running controller said last: the target's answers, and whether its caches synced. */
  private target: TargetState = { state: "unknown" };
  private synced = false;
  /** The target cluster of the Link as last parsed: other Links appearing or going for it are looked at. */
  private cluster: string | undefined;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(private readonly o: SupervisorOptions) {
    this.log = o.log ?? logger(`mirror:${o.linkName}`);
    this.links = new Informer<KubeObject>({
      client: o.local,
      resource: linkResource,
      namespace: o.namespace,
      fieldSelector: `metadata.name=${o.linkName}`,
      log: logger(`informer:${o.local.cluster}`),
      backoff: o.controller?.informerBackoff,
    });
    this.links.onKey(() => this.queue.add("link"));
    const directory = o.controller?.links;
    if (directory) this.unsubscribe.push(directory.onChange((cluster) => cluster === this.cluster && this.queue.add("link")));
    const clock = o.controller?.clock ?? systemClock;
    const writer = createWriter(o.local, { log: logger(`write:${o.local.cluster}`) });
    // The Link's one status writer, shared by its conditions and each controller it runs; its retry rule is the mirror queue's.
    this.linkStatus = new LinkStatus({
      writer,
      namespace: o.namespace,
      name: o.linkName,
      log: this.log,
      requeueLimit: mirrorSettings(o.controller?.settings).eventRequeueLimit,
      backoff: o.controller?.queueBackoff,
      clock,
    });
    this.conditions = new LinkConditions({
      status: this.linkStatus,
      namespace: o.namespace,
      name: o.linkName,
      events: eventRecorder(writer, serviceMirrorName(o.linkName), clock, this.log),
      clock,
    });
    // Reading the Link or the Secret, or connecting, can fail for as long as the API is down: retry for ever.
    this.queue = new WorkQueue<"link">(() => this.evaluate(), {
      requeueLimit: Number.POSITIVE_INFINITY,
      backoff: { initialMs: 200, maxMs: 30_000, jitter: 0.2 },
      isRetryable: () => true,
      log: this.log,
    });
  }

  /** The running controller, if any. */
  get controller(): MirrorController | undefined {
    return this.current;
  }

  /** Mirroring, with every cache synced. */
  get ready(): boolean {
    return this.current?.isSynced ?? false;
  }

  /**
   * Its informers on this cluster synced: the Link and its Secret read and acted on once, and the
   * running controller's local caches (mirrors, namespaces). Whether the target answers is not
   * asked (the Link's conditions say it).
   */
  get localReady(): boolean {
    if (this.state === "starting" || this.state === "stopped" || !this.links.hasSynced) return false;
    return (this.secrets?.hasSynced ?? true) && (this.current?.localSynced ?? true);
  }

  get status(): SupervisorState {
    return this.state;
  }

  /** The Link and Secret informers (tests wait on them). */
  get informers(): { links: Informer<KubeObject>; secrets: Informer<KubeObject> | undefined } {
    return { links: this.links, secrets: this.secrets };
  }

  /** Resolves once every Link/Secret change seen so far has been acted on, and the conditions it led to are written. */
  async settle(): Promise<void> {
    await this.queue.drain();
    await this.conditions.settle();
  }

  /** Told whenever a controller starts (or stops, with undefined). */
  onController(listener: (c: MirrorController | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Told on every change of `status`. */
  onStatus(listener: (state: SupervisorState) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  start(): void {
    this.links.start();
    this.linkStatus.start();
    this.queue.start();
    this.queue.add("link");
  }

  /** Stops mirroring (mirrors stay) and every watch. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const off of this.unsubscribe.splice(0)) off();
    // Informers first: an evaluation waiting for a sync (the API may be down) then ends.
    await Promise.all([this.links.stop(), this.secrets?.stop()]);
    await this.queue.stop();
    await this.stopController(true); // a standby (or a stopped process) exports no series for the link
    await this.linkStatus.stop();
    await this.conditions.stop();
    this.setState("stopped");
  }

  private async evaluate(): Promise<void> {
    await this.links.synced;
    const where = `Link ${this.o.namespace}/${this.o.linkName}`;
    const obj = this.links.cache.get(this.o.namespace, this.o.linkName);
    if (!obj) {
      if (this.state !== "no-link")
        this.log.warn(`${where} not found; ${this.current ? "stopped mirroring (mirrors are kept)" : "waiting for it"}`);
      await this.stopController(true);
      this.fingerprint = undefined;
      this.setState("no-link");
      return;
    }
    this.conditions.seen(obj);
    const spec = stableJson(obj.spec);
    let link: Link;
    try {
      link = parseLink(obj);
    } catch (err) {
      if (!(err instanceof LinkError)) throw err;
      if (this.fingerprint !== `invalid ${spec}`) this.log.error(`${err.message}; not mirroring until the Link is fixed`);
      await this.stopController();
      this.fingerprint = `invalid ${spec}`;
      this.conditions.update(invalidLink(err.message), { clearAlive: true });
      this.setState("invalid-link");
      return;
    }
    this.cluster = link.targetClusterName;
    const claim = await this.claim(link, obj);
    if (this.stopping) return;
    if (claim.owner !== this.o.linkName) {
      const fingerprint = `conflict ${link.targetClusterName} ${claim.owner}`;
      if (this.fingerprint !== fingerprint) {
        this.log.error(
          `${where} targets cluster ${link.targetClusterName}, which Link ${this.o.namespace}/${claim.owner} (created earlier) mirrors: not serving it until one of them is deleted or targets another cluster`,
        );
      }
      await this.stopController(); // the cluster's metric series are the older Link's
      this.fingerprint = fingerprint;
      this.conditions.update(refusedLink({ namespace: this.o.namespace }, link.targetClusterName, claim.owner), { clearAlive: true });
      this.setState("conflict");
      return;
    }
    this.reportRivals(link.targetClusterName, claim.refused);
    const secrets = await this.watchSecret(link.clusterCredentialsSecret);
    if (this.stopping) return;
    const secret = secrets.cache.get(this.o.namespace, link.clusterCredentialsSecret) as
      | (KubeObject & { type?: string; data?: Record<string, string> })
      | undefined;
    // The uid too: a Link deleted and made again with the same spec between two evaluations (a
    // GitOps re-sync, `kubectl replace --force`) is another Link, whose controller labels and adopts by its uid.
    const fingerprint = `${obj.metadata.uid ?? "-"} ${spec} ${link.clusterCredentialsSecret} ${secret ? Bun.hash(`${secret.type ?? ""}\n${JSON.stringify(secret.data ?? {})}`) : "-"}`;
    if (fingerprint === this.fingerprint) return; // a status-only change, or nothing at all
    const restarting = this.current !== undefined;
    const previousCluster = this.current?.cluster;
    await this.stopController();
    if (previousCluster && previousCluster !== link.targetClusterName) this.o.metrics.forgetCluster(previousCluster);
    const secretWhere = `Secret ${this.o.namespace}/${link.clusterCredentialsSecret}`;
    if (!secret) {
      this.log.warn(`credentials ${secretWhere} not found; waiting for it`);
      this.fingerprint = fingerprint;
      this.conditions.update(
        badSecret(false, `credentials ${secretWhere} not found (re-run mc link, or fix spec.clusterCredentialsSecret)`),
        { clearAlive: true },
      );
      this.setState("no-secret");
      return;
    }
    let remote: KubeClient;
    try {
      remote = await (this.o.connect ?? connectFromSecret)(this.o.local, this.o.namespace, link.clusterCredentialsSecret, {
        name: link.targetClusterName,
      });
    } catch (err) {
      if (!(err instanceof UserError)) throw err; // transient: retried
      this.log.error(`${formatError(err)}; waiting for the Secret to change`);
      this.fingerprint = fingerprint;
      this.conditions.update(badSecret(true, `${formatError(err)} (re-run mc link)`), { clearAlive: true });
      this.setState("bad-secret");
      return;
    }
    if (this.stopping) return;
    const ctl = new MirrorController({
      ...this.o.controller,
      link,
      namespace: this.o.namespace,
      local: this.o.local,
      remote,
      metrics: this.o.metrics,
      status: this.linkStatus,
    });
    this.current = ctl;
    this.fingerprint = fingerprint;
    this.target = { state: "unknown" };
    this.synced = false;
    ctl.onHealth((h) => this.health(ctl, h));
    this.conditions.update(targetConditions(this.target, false, link.targetClusterName));
    ctl.start();
    this.setState("running");
    this.log.info(
      restarting
        ? `${where} or its credentials changed; restarted mirroring of ${link.targetClusterName}`
        : `mirroring ${link.targetClusterName} (${where})`,
    );
    for (const l of this.listeners) l(ctl);
  }

  /**
   * Which Link of the namespace mirrors this Link's cluster (the oldest; docs/decisions.md#d127)
   * and which are refused. Without the namespace's Links (a supervisor on its own), this one.
   */
  private async claim(link: Link, obj: KubeObject): Promise<{ owner: string; refused: string[] }> {
    const directory = this.o.controller?.links;
    if (!directory) return { owner: this.o.linkName, refused: [] };
    await directory.synced;
    const me = { name: this.o.linkName, creationTimestamp: obj.metadata.creationTimestamp };
    const all = oldestFirst([me, ...directory.linksFor(link.targetClusterName).filter((l) => l.name !== me.name)]);
    return { owner: all[0]!.name, refused: all.slice(1).map((l) => l.name) };
  }

  /** Conflicted on the Link that mirrors its cluster: True while newer Links target it too, False once they are gone (only written once there was a conflict). */
  private reportRivals(cluster: string, refused: string[]): void {
    const before = findCondition(this.conditions.conditions, "Conflicted");
    if (refused.length === 0 && before?.status !== "True") return;
    const next = rivalsCondition({ namespace: this.o.namespace }, cluster, refused);
    if (before?.message !== next.message && refused.length > 0)
      this.log.warn(`Link ${this.o.namespace}/${this.o.linkName}: ${next.message}`);
    this.conditions.update({ Conflicted: next });
  }

  /** What the running controller says, as conditions (nothing from a controller that was replaced). */
  private health(ctl: MirrorController, h: ControllerHealth): void {
    if (ctl !== this.current) return;
    const c = ctl.cluster;
    if (h.kind === "selection") {
      this.conditions.update({
        ServicesSelected: selectionCondition(h.selection, findCondition(this.conditions.conditions, "ServicesSelected"), c),
      });
      const where = h.selection.namespaceSelector
        ? `${c}'s namespaces selected by --namespace-selector ${h.selection.namespaceSelector}`
        : c;
      if (h.selection.mirrorsExisted)
        this.log.warn(
          `Link ${this.o.namespace}/${this.o.linkName}: spec.selector matches no Service in ${where}, though its mirrors existed: they are deleted`,
        );
      return;
    }
    if (h.kind === "historyReset") {
      const message = `${c}'s history went backwards: ${h.what} listed at resourceVersion ${h.resourceVersion}, below ${h.before} already seen (as after an etcd restore); relisted, and the mirrors follow the new list`;
      this.log.warn(`Link ${this.o.namespace}/${this.o.linkName}: ${message}`);
      this.conditions.record("Warning", "TargetHistoryReset", message);
      return;
    }
    if (h.kind === "synced") this.synced = true;
    else this.target = h.target;
    this.conditions.update(targetConditions(this.target, this.synced, c), { clearAlive: unusable(this.target) });
  }

  /** The Secret informer for `name` (a new one when the Link names another Secret), synced. */
  private async watchSecret(name: string): Promise<Informer<KubeObject>> {
    if (this.stopping) throw new Error("stopping");
    if (!this.secrets || this.secretName !== name) {
      await this.secrets?.stop();
      this.secretName = name;
      this.secrets = new Informer<KubeObject>({
        client: this.o.local,
        resource: resources.secret,
        namespace: this.o.namespace,
        fieldSelector: `metadata.name=${name}`,
        log: logger(`informer:${this.o.local.cluster}`),
        backoff: this.o.controller?.informerBackoff,
      });
      this.secrets.onKey(() => this.queue.add("link"));
      this.secrets.start();
    }
    await this.secrets.synced;
    return this.secrets;
  }

  /** Stops the controller (mirrors stay); `forget` also drops the cluster's metric series. */
  private async stopController(forget = false): Promise<void> {
    const ctl = this.current;
    if (!ctl) return;
    this.current = undefined;
    this.fingerprint = undefined;
    await ctl.stop();
    if (forget) this.o.metrics.forgetCluster(ctl.cluster);
    for (const l of this.listeners) l(undefined);
  }

  private setState(state: SupervisorState): void {
    if (this.state === state) return;
    this.state = state;
    for (const l of this.statusListeners) l(state);
  }
}

/** JSON with sorted keys: equal specs give equal strings whatever the key order. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}
