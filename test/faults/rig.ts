// The fault suite's rig: west and east sandboxes in this process, a few hundred exported Services under churn, `mc serve` processes.
import { Database } from "bun:sqlite";
import { copyFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { seededRandom, startSandbox, type FaultSettings, type Sandbox } from "../../src/sandbox/index.ts";
import { applyObjects } from "../../src/demo/apply.ts";
import { linkResource } from "../../src/model/link.ts";
import type { KubeObject } from "../../src/kube/index.ts";
import { GATEWAY_IP, multiclusterSetup, type Setup, type Target } from "../helpers/clusters.ts";
import { debugLogs } from "../helpers/capture.ts";
import { MC, spawnUntil, type Until } from "../helpers/mc.ts";
import { churn, NAMESPACES, seedServices, type Churn } from "./churn.ts";
import { CLUSTER, describeDiff, diffMirrors, EXPORTED, isClean, MIRRORED, ownershipMonitor, type Diff } from "./expected.ts";

// The fault suite's rig: west and east sandboxes in this process (so their faults can be switched
// while everything runs; both enforce RBAC and keep their objects in data files, so east can be
// restarted on its file), `mc install` + `mc link` applied as a user would, a loopback gateway,
// a few hundred exported Services under churn, and the controller as real `mc serve` processes
// running with the ServiceAccount token `mc link`'s RBAC is for. Convergence is waited on
// through the stores' commits; a guard deadline turns a hang into a failure that says what is
// still wrong.

export interface RigOptions {
  services: number;
  seed: number;
  /** Lease timings of the replicas: short, so a standby takes over within the suite's budget. */
  lease?: { duration: string; renew: string; retry: string };
}

export interface Replica {
  identity: string;
  run: Until;
  admin: string;
  /** Exited (a replica must never exit unless killed). */
  readonly exited: boolean;
  kill(signal?: "SIGKILL" | "SIGTERM"): Promise<void>;
}

export interface Counts {
  writes: number;
  injected: number;
}

const LINK = "east";
const NS = "linkerd-multicluster";

export class Rig {
  readonly replicas: Replica[] = [];
  readonly churn: Churn;
  readonly foreign = new Set<string>();
  /** The target names the Link has had (mirrors of each are mc's own); the first is the Link's name. */
  readonly clusters = new Set<string>([LINK]);
  /** Objects with a cluster-name label the user applied (mc link's output), before any controller ran. */
  readonly applied = new Set<string>();
  /** The Link's spec.targetClusterName now. */
  cluster = LINK;
  private readonly monitor;
  private restarting: Promise<void> | undefined;
  private constructor(
    readonly setup: Setup,
    readonly target: Target,
    private readonly kubeconfigPath: string,
    readonly o: RigOptions,
  ) {
    this.churn = churn(() => this.east, seededRandom(o.seed + 1), { everyMs: 15 });
    this.monitor = ownershipMonitor(setup.west, this.clusters);
  }

  static async start(o: RigOptions): Promise<Rig> {
    const exports = { east: [] as string[] };
    const setup = await multiclusterSetup({
      enforceRbac: true,
      durable: true,
      startControllers: false,
      exports,
      probe: { period: "1s", failureThreshold: "1", timeout: "1s" },
    });
    const target = setup.targets.get(LINK)!;
    for (const ns of NAMESPACES.slice(1))
      for (const sb of [setup.west, target.sandbox]) applyObjects(sb, [{ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }]);
    seedServices(target.sandbox, seededRandom(o.seed), o.services);
    // A Service on west that takes a mirror's name: mc must leave it alone.
    applyObjects(setup.west, [
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "taken-east", namespace: "default", labels: { app: "mine" } },
        spec: { ports: [{ port: 1 }] },
      },
    ]);
    applyObjects(target.sandbox, [
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "taken", namespace: "default", labels: { [EXPORTED]: "true" } },
        spec: { ports: [{ port: 80 }] },
      },
    ]);
    const kubeconfigPath = join(setup.root, "controller-east.kubeconfig");
    writeFileSync(kubeconfigPath, setup.controllerKubeconfigs.get(LINK)!, { mode: 0o600 });
    const rig = new Rig(setup, target, kubeconfigPath, o);
    rig.foreign.add("default/taken-east");
    // What `mc link`'s output put there (the probe Service): the user's, not the controller's.
    for (const m of rig.mirrorObjects()) rig.applied.add(m);
    return rig;
  }

  get west(): Sandbox {
    return this.setup.west;
  }
  get east(): Sandbox {
    return this.target.sandbox;
  }
  get violations(): string[] {
    return this.monitor.violations;
  }
  /** The foreign Service's resourceVersion: it must never change. */
  foreignVersion(): string | undefined {
    return this.west.store.get({ group: "", plural: "services" }, "default", "taken-east")?.metadata.resourceVersion;
  }

  /**
   * Starts an `mc serve` replica; resolves once it runs (with `lead`, once it leads and has synced).
   * With `hostname`, no --identity is given: the replica picks its own from $HOSTNAME, as in a pod.
   */
  async startReplica(identity: string, o: { lead?: boolean; hostname?: string } = {}): Promise<Replica> {
    const lease = this.o.lease ?? { duration: "2s", renew: "1500ms", retry: "300ms" };
    const args = [
      "bun",
      MC,
      "--kubeconfig",
      this.kubeconfigPath,
      "serve",
      `--namespace=${NS}`,
      "--admin-addr=127.0.0.1:0",
      `--probe-address=127.0.0.1:${this.target.gateway.port}`,
    ];
    if (o.hostname === undefined) args.push(`--identity=${identity}`);
    // A key that keeps failing is given up after the requeue limit until the next refresh: the floor (10s) here, 1m by default.
    if (debugLogs) args.push("--log-level=debug");
    args.push(
      "--endpoint-refresh-period=10s",
      `--leader-elect-lease-duration=${lease.duration}`,
      `--leader-elect-renew-deadline=${lease.renew}`,
      `--leader-elect-retry-period=${lease.retry}`,
      LINK,
    );
    const ready = o.lead ? /synced with east/ : /campaigning for lease/;
    const run = await spawnUntil(args, ready, {
      env: { ...process.env, NO_COLOR: "1", ...(o.hostname !== undefined && { HOSTNAME: o.hostname }) },
    });
    const admin = /admin server listening on (\S+)/.exec(run.stderr())?.[1] ?? "";
    if (o.hostname !== undefined) identity = /campaigning for lease \S+ as (\S+)/.exec(run.stderr())?.[1] ?? identity;
    let exited = false;
    void run.proc.exited.then(() => (exited = true));
    const replica: Replica = {
      identity,
      run,
      admin,
      get exited() {
        return exited;
      },
      async kill(signal = "SIGKILL") {
        run.proc.kill(signal);
        await run.proc.exited;
      },
    };
    this.replicas.push(replica);
    return replica;
  }

  /** The identity holding the Lease now. */
  leader(): string | undefined {
    return (
      this.west.store.get({ group: "coordination.k8s.io", plural: "leases" }, NS, `service-mirror-write-${LINK}`)?.spec as
        | { holderIdentity?: string }
        | undefined
    )?.holderIdentity;
  }

  /** Faults on both API servers at once (what is not given is left as it is). */
  faults(settings: FaultSettings): void {
    for (const [i, sb] of [this.west, this.east].entries()) {
      const { seed: _s, ...rest } = settings;
      if (settings.seed !== undefined) sb.control.faults.random = seededRandom(settings.seed + i);
      Object.assign(sb.control.faults, rest);
    }
  }

  clearFaults(): void {
    this.west.control.clear();
    this.east.control.clear();
  }

  counts(): Counts {
    const w = this.west.store.writes;
    const injected = (sb: Sandbox) =>
      sb.control.injected.failures + sb.control.injected.conflicts + sb.control.injected.gone + sb.control.injected.drops;
    return { writes: w.create + w.update + w.patch + w.delete, injected: injected(this.west) + injected(this.east) };
  }

  /** Restarts east on its data file and port, as after `kill -9` of its process. Stops the churn (restart it after). */
  restartEast(): Promise<void> {
    return this.replaceEast(() => {});
  }

  /** Stops east, runs `between` (the process is down), and starts it again on its data file and port. */
  private async replaceEast(between: () => void): Promise<void> {
    const old = this.east;
    let done!: () => void;
    this.restarting = new Promise((r) => (done = r));
    this.churn.stop();
    await old.stop();
    between();
    const injected = old.control.injected;
    this.target.sandbox = await startSandbox({
      name: LINK,
      port: old.port,
      tls: true,
      enforceRbac: true,
      data: this.setup.dataFiles.get(LINK),
    });
    // Keep counting across the restart.
    Object.assign(this.target.sandbox.control.injected, injected);
    done();
  }

  /** A copy of east's data file as it is now (what an etcd snapshot is); `restoreEast` puts it back. */
  snapshotEast(name: string): string {
    const file = join(this.setup.root, `${name}.db`);
    const db = new Database(this.setup.dataFiles.get(LINK)!, { readonly: true });
    try {
      db.run(`VACUUM INTO '${file}'`);
    } finally {
      db.close();
    }
    return file;
  }

  /**
   * Restarts east from a snapshot, as after an etcd restore: every object as it was then and a
   * resourceVersion counter lower than what the controller has seen. Stops the churn.
   */
  async restoreEast(snapshot: string): Promise<void> {
    const data = this.setup.dataFiles.get(LINK)!;
    await this.replaceEast(() => {
      for (const f of [data, `${data}-wal`, `${data}-shm`]) rmSync(f, { force: true });
      copyFileSync(snapshot, data);
    });
  }

  /** The Link's target renamed (`kubectl patch link east --type merge -p '{"spec":{"targetClusterName":…}}'`). */
  async renameTarget(cluster: string): Promise<void> {
    this.clusters.add(cluster);
    await this.setup.westClient.patch(linkResource, NS, LINK, { spec: { targetClusterName: cluster } });
    this.cluster = cluster;
  }

  /** The Link deleted and made again from what it was (`kubectl delete link east`, then `mc link … | kubectl apply`): a new uid. */
  async recreateLink(): Promise<void> {
    const old = await this.setup.westClient.get<KubeObject>(linkResource, NS, LINK);
    await this.setup.westClient.delete(linkResource, NS, LINK);
    const { name, namespace, labels, annotations } = old.metadata;
    await this.setup.westClient.create(linkResource, {
      apiVersion: old.apiVersion,
      kind: old.kind,
      metadata: { name, namespace, ...(labels && { labels }), ...(annotations && { annotations }) },
      spec: old.spec,
    } as KubeObject);
  }

  /** Services and Endpoints on west with a cluster-name label of a name the Link has had: `Kind ns/name cluster`. */
  private mirrorObjects(): string[] {
    const out: string[] = [];
    for (const [kind, plural] of [
      ["Service", "services"],
      ["Endpoints", "endpoints"],
    ] as const) {
      for (const o of this.west.store.scan({ group: "", plural }, { labels: [{ key: CLUSTER, op: "exists" }] })) {
        const c = o.metadata.labels?.[CLUSTER];
        if (c !== undefined && this.clusters.has(c)) out.push(`${kind} ${o.metadata.namespace}/${o.metadata.name} ${c}`);
      }
    }
    return out;
  }

  /** What the controller made on west for a target name the Link no longer has: `Kind ns/name`. */
  leftovers(): string[] {
    return this.mirrorObjects()
      .filter((m) => !this.applied.has(m) && !m.endsWith(` ${this.cluster}`))
      .map((m) => m.slice(0, m.lastIndexOf(" ")))
      .sort();
  }

  diff(): Diff {
    const link = this.west.store.get({ group: "multicluster.linkerd.io", plural: "links" }, NS, LINK) as unknown as {
      metadata: { uid?: string };
      spec: { gatewayPort: string };
      status?: { gateway?: { alive?: boolean } };
    };
    return diffMirrors(this.east, this.west, {
      cluster: this.cluster,
      linkUid: link.metadata.uid,
      gatewayIp: GATEWAY_IP,
      gatewayPort: Number(link.spec.gatewayPort),
      alive: link.status?.gateway?.alive ?? true,
      foreign: this.foreign,
    });
  }

  /**
   * Resolves with the time taken once the mirrors equal the expected set, none of an earlier target
   * name is left and the leader's queue is empty; checked at every commit of either store. Rejects after `deadlineMs`, saying what is wrong.
   */
  async converged(deadlineMs = 40_000): Promise<number> {
    await this.restarting;
    const started = performance.now();
    return new Promise<number>((resolve, reject) => {
      let pending: ReturnType<typeof setTimeout> | undefined;
      let settled = false;
      const offs = [this.west, this.east].map((sb) => sb.store.onCommit(() => schedule()));
      const finish = (err?: Error) => {
        settled = true;
        offs.forEach((off) => off());
        clearTimeout(pending);
        clearTimeout(guard);
        if (err) reject(err);
        else resolve(performance.now() - started);
      };
      const check = async () => {
        pending = undefined;
        if (settled || !this.clean()) return;
        if (!(await this.queueEmpty())) return schedule(50);
        if (!settled && this.clean()) finish();
      };
      const schedule = (ms = 20) => {
        pending ??= setTimeout(() => void check(), ms);
      };
      const guard = setTimeout(
        () =>
          finish(
            new Error(
              `not converged after ${deadlineMs} ms: ${describeDiff(this.diff())}; mirror objects of earlier target names left: [${this.leftovers().slice(0, 8).join(", ")}]`,
            ),
          ),
        deadlineMs,
      );
      schedule(0);
    });
  }

  /**
   * Resolves once the Link's status says the gateway is `alive` (or not) and every mirror
   * Endpoints of the target that has subsets lists the gateway as ready (alive) or not ready:
   * the mirrors followed that transition. Checked at every commit of west; rejects after `deadlineMs`.
   */
  followed(alive: boolean, deadlineMs = 40_000): Promise<void> {
    const done = () => {
      const link = this.west.store.get({ group: "multicluster.linkerd.io", plural: "links" }, NS, LINK) as unknown as
        | { status?: { gateway?: { alive?: boolean } } }
        | undefined;
      if (link?.status?.gateway?.alive !== alive) return false;
      const mirrors = this.west.store.scan(
        { group: "", plural: "endpoints" },
        {
          labels: [
            { key: MIRRORED, op: "=", value: "true" },
            { key: CLUSTER, op: "=", value: this.cluster },
          ],
        },
      );
      return mirrors.every((e) => {
        const s = (e as { subsets?: Array<{ addresses?: unknown[]; notReadyAddresses?: unknown[] }> }).subsets?.[0];
        if (!s) return true;
        const [now, before] = alive ? [s.addresses, s.notReadyAddresses] : [s.notReadyAddresses, s.addresses];
        return (now?.length ?? 0) > 0 && (before?.length ?? 0) === 0;
      });
    };
    return new Promise<void>((resolve, reject) => {
      let pending: ReturnType<typeof setTimeout> | undefined;
      const finish = (err?: Error) => {
        off();
        clearTimeout(pending);
        clearTimeout(guard);
        if (err) reject(err);
        else resolve();
      };
      const check = () => {
        pending = undefined;
        if (done()) finish();
      };
      const off = this.west.store.onCommit(() => void (pending ??= setTimeout(check, 20)));
      const guard = setTimeout(
        () => finish(new Error(`the mirrors did not follow the gateway turning ${alive ? "alive" : "not alive"} within ${deadlineMs} ms`)),
        deadlineMs,
      );
      pending = setTimeout(check, 0);
    });
  }

  /** The expected mirrors exactly, and none of a name the Link's target no longer has. */
  private clean(): boolean {
    return isClean(this.diff()) && this.leftovers().length === 0;
  }

  /** The leading replica's work queue is empty (mc_queue_depth 0 on its /metrics). */
  private async queueEmpty(): Promise<boolean> {
    const leader = this.replicas.find((r) => r.identity === this.leader() && !r.exited);
    if (!leader) return false;
    const text = await fetch(`${leader.admin}/metrics`).then(
      (r) => r.text(),
      () => "",
    );
    // Every queue (a renamed target's too) is empty.
    const depths = [...text.matchAll(/^mc_queue_depth\{[^}]*\} (\d+)/gm)].map((m) => m[1]);
    return depths.length > 0 && depths.every((d) => d === "0");
  }

  /** `ns/name` of every Service east exports now. */
  exportedKeys(): Set<string> {
    const out = new Set<string>();
    for (const s of this.east.store.scan({ group: "", plural: "services" }, { labels: [{ key: EXPORTED, op: "=", value: "true" }] }))
      out.add(`${s.metadata.namespace}/${s.metadata.name}`);
    return out;
  }

  /** Mirrors of the Link's target on west (what the controller owns). */
  mirrorCount(): number {
    return this.west.store.scan({ group: "", plural: "services" }, { labels: [{ key: CLUSTER, op: "=", value: this.cluster }] }).length;
  }

  async stop(): Promise<void> {
    this.churn.stop();
    this.monitor.stop();
    for (const r of this.replicas) if (!r.exited) await r.kill("SIGTERM");
    await this.setup.stop();
  }
}
