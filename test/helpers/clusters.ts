// The two-cluster test kit, at two levels. `startPair`: east (target) and west (source) sandboxes with real clients, the Link CRD and
// namespaces in both — for tests that drive a controller themselves.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  connectKubeconfigText,
  resources,
  waitForObject,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from "../../src/kube/index.ts";
import { renderLinkCrd } from "../../src/manifests/crd.ts";
import { parseManifests } from "../../src/manifests/output.ts";
import type { Manifest } from "../../src/manifests/meta.ts";
import * as L from "../../src/model/labels.ts";
import { linkResource } from "../../src/model/link.ts";
import type { MirrorSettings } from "../../src/model/mirror-settings.ts";
import { DEFAULT_NAMESPACE, serviceMirrorName, tokenSecretName } from "../../src/model/names.ts";
import type { MirrorController } from "../../src/mirror/controller.ts";
import { serve, type Serving } from "../../src/serve/serve.ts";
import type { LinkSupervisor } from "../../src/serve/supervisor.ts";
import { proberFactory } from "../../src/prober/index.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { runMc } from "../cmd/run-mc.ts";
import { applyObjects } from "./apply.ts";
import { fakeLinkerd } from "./linkerd.ts";

// `multiclusterSetup`: a healthy setup built the way a user builds one — fake Linkerd on every
// cluster, `mc install` applied to targets and source, `mc link` (run against each target) applied to
// west, and each link's controller running in this process as `mc serve <cluster> --probe-address`
// runs it (src/serve/serve.ts), its real prober probing a loopback fake gateway. Targets are TLS
// there, so the token `mc link` puts in the credentials authenticates. With `enforceRbac` (or
// MC_ENFORCE_RBAC=1 in the environment, to run a whole suite that way) every sandbox authorizes every
// request and each controller runs as the ServiceAccount `mc link` renders, with exactly its rendered
// RBAC. Every wait ends on an event.

export const NS = DEFAULT_NAMESPACE;
/** Probe period and threshold written into each Link: the floor (1s), so a dead gateway shows within ~1.1 s. */
export const PROBE_PERIOD = "1s";
/**
 * Every Link's gateway address: TEST-NET-1 (RFC 5737), data only — a real API server refuses a
 * loopback address in Endpoints. Never contacted: the controllers probe each target's fake gateway
 * on loopback through --probe-address.
 */
export const GATEWAY_IP = "192.0.2.10";

/** A loopback gateway answering the probe path with 200 until killed. */
export interface FakeGateway {
  port: number;
  /** Added before every answer, in ms (a known probe latency). */
  delayMs: number;
  /** Closes the listener and every connection: probes get "connection refused". */
  kill(): Promise<void>;
  /** Listens again on the same port (after kill). */
  restart(): void;
}

export function startFakeGateway(o: { delayMs?: number } = {}): FakeGateway {
  const listen = (port: number) =>
    Bun.serve({
      hostname: "127.0.0.1",
      port,
      fetch: async (req) => {
        if (gateway.delayMs > 0) await Bun.sleep(gateway.delayMs);
        const ready = new URL(req.url).pathname === "/ready";
        return new Response(ready ? "ok\n" : "", { status: ready ? 200 : 404 });
      },
    });
  let server: ReturnType<typeof Bun.serve> | undefined;
  const gateway: FakeGateway = {
    port: 0,
    delayMs: o.delayMs ?? 0,
    async kill() {
      const s = server;
      server = undefined;
      await s?.stop(true);
    },
    restart() {
      server ??= listen(gateway.port);
    },
  };
  server = listen(0);
  gateway.port = server.port!;
  return gateway;
}

/** One link's controller, as `mc serve <cluster>` runs it (src/serve/serve.ts). */
export interface RunningController {
  cluster: string;
  serving: Serving;
  /** Stops probing and mirroring and releases the Lease (what a Deployment's pod does on exit). */
  stop(): Promise<void>;
}

export interface Target {
  name: string;
  sandbox: Sandbox;
  client: KubeClient;
  kubeconfigPath: string;
  gateway: FakeGateway;
}

export interface Setup {
  west: Sandbox;
  /** `listing(west)` before `mc install` was applied to it. */
  baseline: string[];
  westClient: KubeClient;
  westKubeconfig: string;
  targets: Map<string, Target>;
  controllers: Map<string, RunningController>;
  /** Starts (again) the controller of a link and waits until it leads, synced, probed once; `settings` over the setup's. */
  startController(cluster: string, settings?: Partial<MirrorSettings>): Promise<RunningController>;
  /** Sandboxes authorize every request; controllers run as their rendered ServiceAccounts. */
  enforceRbac: boolean;
  /** The client each link's controller uses on west (its ServiceAccount's token when enforcing). */
  controllerClients: Map<string, KubeClient>;
  /** The kubeconfig text behind each controller client (for `mc serve` as a process). */
  controllerKubeconfigs: Map<string, string>;
  /** With `durable`: each sandbox's data file, by cluster name. */
  dataFiles: Map<string, string>;
  /** The temporary directory holding kubeconfigs and data files. */
  root: string;
  stop(): Promise<void>;
}

const dir = () => mkdtempSync(join(tmpdir(), "mc-setup-"));

export interface ClusterOptions {
  /** Serve HTTPS (a target's token from `mc link` authenticates only over TLS). */
  tls?: boolean;
  /** Also write the kubeconfig here. */
  kubeconfigPath?: string;
  enforceRbac?: boolean;
  /** Keep the objects in this data file (`startSandbox({ data })`). */
  data?: string;
  /** Events kept for watch resumes (the sandbox's default when absent). */
  historyLimit?: number;
  /** The client's request timeout (the client's default when absent). */
  timeoutMs?: number;
}

/** One sandbox and a client for it, named after the cluster (as the controller names clients in messages). */
export async function startCluster(name: string, o: ClusterOptions = {}): Promise<{ sandbox: Sandbox; client: KubeClient }> {
  const sb = await startSandbox({
    name,
    tls: o.tls,
    enforceRbac: o.enforceRbac,
    kubeconfigPath: o.kubeconfigPath,
    data: o.data,
    historyLimit: o.historyLimit,
  });
  return { sandbox: sb, client: await connectKubeconfigText(sb.kubeconfig, `kubeconfig ${name}`, { name, timeoutMs: o.timeoutMs }) };
}

/** A client for a sandbox, named after its cluster, with a 5 s request timeout. */
export async function clientFor(sb: Sandbox, name = sb.name): Promise<KubeClient> {
  return connectKubeconfigText(sb.kubeconfig, `kubeconfig ${name}`, { name, timeoutMs: 5000 });
}

/** Creates namespaces that do not exist yet. */
export async function ensureNamespaces(client: KubeClient, names: string[]): Promise<void> {
  for (const name of names) {
    try {
      await client.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
    } catch {
      // already there
    }
  }
}

/** East and west, bare: what a test that steps a controller itself starts from. */
export interface Pair {
  east: Sandbox;
  west: Sandbox;
  eastClient: KubeClient;
  westClient: KubeClient;
  /** Controllers a test started on the pair: stopped with it. */
  controllers: Array<{ stop(): Promise<void> }>;
  stop(): Promise<void>;
}

/** East and west with clients, the Link CRD in west, `namespaces` (default ns1, ns2) in both and the extension namespace in west. */
export async function startPair(o: { namespaces?: string[] } & Pick<ClusterOptions, "tls" | "historyLimit"> = {}): Promise<Pair> {
  const [e, w] = await Promise.all([
    startCluster("east", { ...o, timeoutMs: 5000 }),
    startCluster("west", { historyLimit: o.historyLimit, timeoutMs: 5000 }),
  ]);
  const [east, west, eastClient, westClient] = [e.sandbox, w.sandbox, e.client, w.client];
  await westClient.create(resources.customResourceDefinition, renderLinkCrd("mc/test") as unknown as KubeObject);
  const namespaces = o.namespaces ?? ["ns1", "ns2"];
  await ensureNamespaces(eastClient, namespaces);
  await ensureNamespaces(westClient, [DEFAULT_NAMESPACE, ...namespaces]);
  const pair: Pair = {
    east,
    west,
    eastClient,
    westClient,
    controllers: [],
    async stop() {
      await Promise.all(pair.controllers.map((c) => c.stop()));
      await Promise.all([east.stop(), west.stop()]);
    },
  };
  return pair;
}

async function mcOut(args: string[]): Promise<Manifest[]> {
  const r = await runMc(args);
  if (r.code !== 0) throw new Error(`mc ${args.join(" ")} failed: ${r.stderr}`);
  return parseManifests(r.stdout);
}

/** An exported Service in a target with one ready endpoint: a selector-less Service, so the Endpoints are the test's (the endpoints controller manages only Services with a selector). */
export function exportService(
  target: Target,
  namespace: string,
  name: string,
  labels: Record<string, string> = { [L.EXPORTED]: "true" },
): void {
  applyObjects(target.sandbox, [
    { apiVersion: "v1", kind: "Service", metadata: { name, namespace, labels }, spec: { ports: [{ name: "http", port: 80 }] } },
    {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name, namespace, labels },
      subsets: [{ addresses: [{ ip: "10.1.0.7" }], ports: [{ name: "http", port: 8080 }] }],
    },
  ]);
}

export interface SetupOptions {
  targets?: string[];
  exports?: Record<string, string[]>;
  /** Written into each Link's probeSpec; default period PROBE_PERIOD, failureThreshold 1, timeout 1s. */
  probe?: { period?: string; failureThreshold?: string; timeout?: string };
  /** Each fake gateway's answer delay (FakeGateway.delayMs). */
  gatewayDelayMs?: number;
  /** Default: MC_ENFORCE_RBAC=1 in the environment. */
  enforceRbac?: boolean;
  /** Start each link's controller in-process (default true); false leaves that to the caller (`mc serve` processes). */
  startControllers?: boolean;
  /** Keep every sandbox's objects in a data file (`startSandbox({ data })`), so it can be restarted on it. */
  durable?: boolean;
  /** More `mc link` flags (each link's bundle is rendered with them). */
  linkArgs?: string[];
  /** More `mc install` flags for the targets (`--namespaces-access`, say). */
  installArgs?: string[];
  /** The controllers' mirroring settings (mc serve's flags), beyond the probe address. */
  settings?: Partial<MirrorSettings>;
}

/**
 * A kubeconfig for west holding a token of the ServiceAccount `mc link` renders for a link's
 * controller — what the pod's projected token is in a cluster. The token Secret's name leaves the
 * cluster out, so listings of a link's objects do not count it (mc never owned it).
 */
export async function controllerKubeconfig(west: Sandbox, cluster: string): Promise<string> {
  const sa = serviceMirrorName(cluster);
  const name = tokenSecretName(`sa-${Bun.hash(sa).toString(36)}`);
  applyObjects(west, [
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name, namespace: NS, annotations: { "kubernetes.io/service-account.name": sa } },
      type: "kubernetes.io/service-account-token",
    },
  ]);
  const secret = west.store.get({ group: "", plural: "secrets" }, NS, name) as { data?: { token?: string } } | undefined;
  if (!secret?.data?.token) throw new Error(`no token minted for ServiceAccount ${NS}/${sa}`);
  return west.kubeconfigWith({ token: Buffer.from(secret.data.token, "base64").toString() });
}

export async function multiclusterSetup(o: SetupOptions = {}): Promise<Setup> {
  const root = dir();
  const westKubeconfig = join(root, "west.kubeconfig");
  const enforceRbac = o.enforceRbac ?? process.env.MC_ENFORCE_RBAC === "1";
  const dataFiles = new Map<string, string>();
  const dataFor = (name: string) => {
    if (!o.durable) return undefined;
    const file = join(root, `${name}.db`);
    dataFiles.set(name, file);
    return file;
  };
  const { sandbox: west, client: westClient } = await startCluster("west", {
    kubeconfigPath: westKubeconfig,
    enforceRbac,
    data: dataFor("west"),
  });
  fakeLinkerd(west);
  const baseline = listing(west);
  applyObjects(west, await mcOut(["--kubeconfig", westKubeconfig, "install"]));
  const targets = new Map<string, Target>();
  for (const name of o.targets ?? ["east"]) {
    const kubeconfigPath = join(root, `${name}.kubeconfig`);
    const { sandbox: sb, client } = await startCluster(name, { tls: true, kubeconfigPath, enforceRbac, data: dataFor(name) });
    fakeLinkerd(sb);
    applyObjects(sb, await mcOut(["--kubeconfig", kubeconfigPath, "install", ...(o.installArgs ?? [])]));
    const gateway = startFakeGateway({ delayMs: o.gatewayDelayMs });
    const target: Target = { name, sandbox: sb, client, kubeconfigPath, gateway };
    targets.set(name, target);
    for (const svc of o.exports?.[name] ?? ["web"]) exportService(target, "default", svc);
    const bundle = await mcOut([
      "--kubeconfig",
      kubeconfigPath,
      "link",
      "--cluster-name",
      name,
      "--gateway-addresses",
      GATEWAY_IP,
      ...(o.linkArgs ?? []),
    ]);
    for (const obj of bundle) {
      if (obj.kind !== "Link") continue;
      const spec = obj.spec as { probeSpec: Record<string, string> };
      spec.probeSpec = {
        ...spec.probeSpec,
        port: String(gateway.port),
        period: PROBE_PERIOD,
        failureThreshold: "1",
        timeout: "1s",
        ...o.probe,
      };
    }
    applyObjects(west, bundle);
  }
  const controllerClients = new Map<string, KubeClient>();
  const controllerKubeconfigs = new Map<string, string>();
  for (const name of targets.keys()) {
    const kubeconfig = enforceRbac ? await controllerKubeconfig(west, name) : west.kubeconfig;
    controllerKubeconfigs.set(name, kubeconfig);
    controllerClients.set(
      name,
      enforceRbac ? await connectKubeconfigText(kubeconfig, `controller ${name}`, { name: "west", timeoutMs: 5000 }) : westClient,
    );
  }
  const controllers = new Map<string, RunningController>();
  const startController = async (cluster: string, settings?: Partial<MirrorSettings>) => {
    await controllers.get(cluster)?.stop();
    const running = await runController(controllerClients.get(cluster) ?? westClient, cluster, targets.get(cluster)!.gateway.port, {
      ...o.settings,
      ...settings,
    });
    controllers.set(cluster, running);
    return running;
  };
  if (o.startControllers ?? true) for (const name of targets.keys()) await startController(name);
  return {
    west,
    baseline,
    westClient,
    westKubeconfig,
    targets,
    controllers,
    startController,
    enforceRbac,
    controllerClients,
    controllerKubeconfigs,
    dataFiles,
    root,
    async stop() {
      for (const c of controllers.values()) await c.stop();
      for (const t of targets.values()) {
        await t.gateway.kill();
        await t.sandbox.stop();
      }
      await west.stop();
    },
  };
}

async function runController(
  west: KubeClient,
  cluster: string,
  gatewayPort: number,
  settings: Partial<MirrorSettings> = {},
): Promise<RunningController> {
  const serving = await serve({
    local: west,
    namespace: NS,
    linkName: cluster,
    adminAddr: "127.0.0.1:0",
    identity: `test-${cluster}`,
    settings: { ...settings, probeAddress: { [cluster]: `127.0.0.1:${gatewayPort}` } },
    controller: { proberFactory: proberFactory() },
  });
  const running = { cluster, serving, stop: () => serving.stop() };
  try {
    const controller = await within(
      new Promise<MirrorController>((resolve) => {
        const watch = (s: LinkSupervisor | undefined) => {
          if (s?.controller) return resolve(s.controller);
          s?.onController((c) => c && resolve(c));
        };
        if (serving.leading) watch(serving.supervisor);
        serving.onLeading((leading) => leading && watch(serving.supervisor));
      }),
      `controller of ${cluster} to lead and start`,
    );
    await within(controller.synced, `controller of ${cluster} to sync`);
    await controller.drain();
    const probed = (l: KubeObject | undefined) =>
      !!(l as { status?: { gateway?: { lastProbeTime?: string } } } | undefined)?.status?.gateway?.lastProbeTime;
    if (controller.link.probe) await waitFor(west, linkResource, NS, cluster, probed, `first probe of ${cluster}`);
  } catch (err) {
    await serving.stop();
    throw err;
  }
  return running;
}

/** Resolves once the object satisfies `pred` (now, or at a later watch event); fails after `ms` (default 5 s). */
export async function waitFor(
  client: KubeClient,
  res: ResourceType,
  namespace: string | undefined,
  name: string,
  pred: (o: KubeObject | undefined) => boolean,
  what: string,
  ms?: number,
): Promise<void> {
  await waitForObject(client, res, namespace, name, pred, { what, timeoutMs: ms ?? 5000 });
}

export function within<T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

/** Every object in a sandbox, as `group/Kind ns/name`, sorted (a kind served at several versions once). */
export function listing(sb: Sandbox): string[] {
  const lines = sb.api.registry
    .all()
    .flatMap((type) =>
      sb.store
        .list(type)
        .map(
          (o) =>
            `${type.group ? `${type.group}/` : ""}${type.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`,
        ),
    );
  return [...new Set(lines)].sort();
}
