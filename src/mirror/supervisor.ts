// LinkSupervisor: keeps one MirrorController running for the named Link. It watches the Link and
// its credentials Secret in the source cluster and (re)starts the controller when the Link's
// spec or the Secret changes — never for a status-only update, which the controller itself
// causes (Linkerd #13579). A deleted Link stops mirroring and keeps the mirrors; a bad Link or
// Secret is reported once and waited on; a failure to read them is retried with backoff.
import { formatError, UserError } from "../errors.ts";
import { connectFromSecret, Informer, resources, type KubeClient, type KubeObject, type SecretConnectOptions } from "../kube/index.ts";
import { WorkQueue } from "../runtime/index.ts";
import { logger, type Logger } from "../log.ts";
import type { Metrics } from "../metrics.ts";
import { LinkError, linkResource, parseLink, type Link } from "../model/link.ts";
import { MirrorController, type MirrorControllerOptions } from "./controller.ts";

/** What every controller of this process shares; the Link, namespace and clients come from the supervisor. */
export type ControllerSettings = Omit<MirrorControllerOptions, "link" | "namespace" | "local" | "remote" | "metrics">;

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

export type SupervisorState = "starting" | "no-link" | "invalid-link" | "no-secret" | "bad-secret" | "running" | "stopped";

const WAITING_STATES: ReadonlySet<SupervisorState> = new Set(["no-link", "invalid-link", "no-secret", "bad-secret"]);

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

  /** Ready, or waiting for the user to fix or create the Link or its Secret: nothing this process can do meanwhile. */
  get settled(): boolean {
    return this.ready || WAITING_STATES.has(this.state);
  }

  get status(): SupervisorState {
    return this.state;
  }

  /** The Link and Secret informers (tests wait on them). */
  get informers(): { links: Informer<KubeObject>; secrets: Informer<KubeObject> | undefined } {
    return { links: this.links, secrets: this.secrets };
  }

  /** Resolves once every Link/Secret change seen so far has been acted on. */
  settle(): Promise<void> {
    return this.queue.drain();
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
    this.queue.start();
    this.queue.add("link");
  }

  /** Stops mirroring (mirrors stay) and every watch. */
  async stop(): Promise<void> {
    this.stopping = true;
    // Informers first: an evaluation waiting for a sync (the API may be down) then ends.
    await Promise.all([this.links.stop(), this.secrets?.stop()]);
    await this.queue.stop();
    await this.stopController(true); // a standby (or a stopped process) exports no series for the link
    this.setState("stopped");
  }

  private async evaluate(): Promise<void> {
    await this.links.synced;
    const where = `Link ${this.o.namespace}/${this.o.linkName}`;
    const obj = this.links.cache.get(this.o.namespace, this.o.linkName);
    if (!obj) {
      if (this.state !== "no-link") this.log.warn(`${where} not found; ${this.current ? "stopped mirroring (mirrors are kept)" : "waiting for it"}`);
      await this.stopController(true);
      this.fingerprint = undefined;
      this.setState("no-link");
      return;
    }
    const spec = stableJson(obj.spec);
    let link: Link;
    try {
      link = parseLink(obj);
    } catch (err) {
      if (!(err instanceof LinkError)) throw err;
      if (this.fingerprint !== `invalid ${spec}`) this.log.error(`${err.message}; not mirroring until the Link is fixed`);
      await this.stopController();
      this.fingerprint = `invalid ${spec}`;
      this.setState("invalid-link");
      return;
    }
    const secrets = await this.watchSecret(link.clusterCredentialsSecret);
    if (this.stopping) return;
    const secret = secrets.cache.get(this.o.namespace, link.clusterCredentialsSecret) as (KubeObject & { type?: string; data?: Record<string, string> }) | undefined;
    const fingerprint = `${spec} ${link.clusterCredentialsSecret} ${secret ? Bun.hash(`${secret.type ?? ""}\n${JSON.stringify(secret.data ?? {})}`) : "-"}`;
    if (fingerprint === this.fingerprint) return; // a status-only change, or nothing at all
    const restarting = this.current !== undefined;
    const previousCluster = this.current?.cluster;
    await this.stopController();
    if (previousCluster && previousCluster !== link.targetClusterName) this.o.metrics.forgetCluster(previousCluster);
    const secretWhere = `Secret ${this.o.namespace}/${link.clusterCredentialsSecret}`;
    if (!secret) {
      this.log.warn(`credentials ${secretWhere} not found; waiting for it`);
      this.fingerprint = fingerprint;
      this.setState("no-secret");
      return;
    }
    let remote: KubeClient;
    try {
      remote = await (this.o.connect ?? connectFromSecret)(this.o.local, this.o.namespace, link.clusterCredentialsSecret, { name: link.targetClusterName });
    } catch (err) {
      if (!(err instanceof UserError)) throw err; // transient: retried
      this.log.error(`${formatError(err)}; waiting for the Secret to change`);
      this.fingerprint = fingerprint;
      this.setState("bad-secret");
      return;
    }
    if (this.stopping) return;
    const ctl = new MirrorController({ ...this.o.controller, link, namespace: this.o.namespace, local: this.o.local, remote, metrics: this.o.metrics });
    this.current = ctl;
    this.fingerprint = fingerprint;
    ctl.start();
    this.setState("running");
    this.log.info(restarting ? `${where} or its credentials changed; restarted mirroring of ${link.targetClusterName}` : `mirroring ${link.targetClusterName} (${where})`);
    for (const l of this.listeners) l(ctl);
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
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}
