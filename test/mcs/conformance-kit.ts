// kubernetes-sigs/mcs-api's conformance suite (v0.5, `conformance/`) ported to bun:test: its two clusters (clients[0] exports, as the
// suite's "remote"), its hello Service and ServiceExport, its per-test namespace in every cluster, and its awaits (poll every 100 ms, 20 s
// to appear or go, 5 s for "stays").
import { expect } from "bun:test";
import { connectKubeconfigText, isNotFound, resources, type KubeClient, type KubeObject, type ResourceType } from "../../src/kube/index.ts";
import type { Logger } from "../../src/log.ts";
import { renderLinkCrd, renderMcsCrds } from "../../src/manifests/crd.ts";
import { mcsResources, type Condition, type ServiceExportObject, type ServiceImportObject } from "../../src/mcs/api.ts";
import type { McsImporter } from "../../src/mcs/importer.ts";
import { MirrorController } from "../../src/mirror/controller.ts";
import { LinkDirectory } from "../../src/mirror/federated/link-directory.ts";
import { parseLink } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import { localMirrorLink } from "../../src/serve/local-mirror.ts";
import { startBackend, type Backend } from "../real/backend.ts";
import { linkObject } from "../mirror/fixtures.ts";

// The clusters are the two-backend kit's (test/real/backend.ts): two sandboxes, or with
// MC_BACKEND=real two real kube-apiservers. mc runs in-process on each cluster as a user runs it: a
// Link to the other cluster (its controller imports the other's exports) and the local mirror with
// `--cluster-name` (imports the cluster's own exports, writes their conditions). The suite's request
// Pod is left out: it serves only the DNS and connectivity cases, which need a data plane.

export const quiet: Logger = { error() {}, warn() {}, info() {}, debug() {} };

export const helloServiceName = "hello";

export interface ClusterClients {
  name: string;
  client: KubeClient;
}

export interface ServicePort {
  name?: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

export interface HelloService {
  apiVersion: "v1";
  kind: "Service";
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: {
    type?: string;
    externalName?: string;
    clusterIP?: string;
    selector: Record<string, string>;
    ports: ServicePort[];
    sessionAffinity: string;
    sessionAffinityConfig?: { clientIP: { timeoutSeconds: number } };
    internalTrafficPolicy?: string;
    trafficDistribution?: string;
  };
}

/** The suite's hello Service (k8s_objects.go). */
export function newHelloService(): HelloService {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: helloServiceName },
    spec: {
      selector: { app: "hello" },
      ports: [
        { name: "tcp", port: 42, protocol: "TCP" },
        { name: "udp", port: 42, protocol: "UDP" },
      ],
      sessionAffinity: "ClientIP",
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10 } },
    },
  };
}

/** The suite's hello Deployment (its Pods never run here: nothing schedules them; the ServiceExport cases do not need them). */
export function newHelloDeployment(): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "hello" },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: "hello" } },
      template: {
        metadata: { labels: { app: "hello" } },
        spec: {
          containers: [
            {
              name: "hello-tcp",
              image: "alpine/socat",
              args: ["-v", "-v", "TCP-LISTEN:42,crlf,reuseaddr,fork", "SYSTEM:echo pod ip $(MY_POD_IP)"],
            },
          ],
        },
      },
    },
  };
}

export function newHelloServiceExport(): ServiceExportObject & KubeObject {
  return { apiVersion: mcsResources.serviceExport.apiVersion, kind: "ServiceExport", metadata: { name: helloServiceName }, spec: {} };
}

/** The MCS ports of Service ports, sorted by name as the suite compares them. */
export function toMCSPorts(from: readonly ServicePort[]): ServicePort[] {
  return sortMCSPorts(
    from.map((p) => ({
      ...(p.name ? { name: p.name } : {}),
      protocol: p.protocol,
      port: p.port,
      ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}),
    })),
  );
}

export function sortMCSPorts(p: readonly ServicePort[]): ServicePort[] {
  return [...p].sort((a, b) => (a.name ?? "").toLowerCase().localeCompare((b.name ?? "").toLowerCase()));
}

const POLL_MS = 100;
const AWAIT_MS = 20_000;
const ENSURE_MS = 5_000;

/** Polls `probe` until it passes (no throw) or the suite's 20 s are up; the last failure is rethrown with `message`. */
export async function eventually<T>(probe: () => Promise<T>, message: string, withinMs = AWAIT_MS): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      return await probe();
    } catch (err) {
      if (Date.now() >= deadline) throw new Error(`non-conformant: ${message}: ${err instanceof Error ? err.message : String(err)}`);
    }
    await Bun.sleep(POLL_MS);
  }
}

/** Polls `probe` for the suite's 5 s; any failure fails at once with `message`. */
export async function consistently(probe: () => Promise<void>, message: string, forMs = ENSURE_MS): Promise<void> {
  const deadline = Date.now() + forMs;
  while (Date.now() < deadline) {
    try {
      await probe();
    } catch (err) {
      throw new Error(`non-conformant: ${message}: ${err instanceof Error ? err.message : String(err)}`);
    }
    await Bun.sleep(POLL_MS);
  }
}

/** The two clusters with mc running on both; one per test file. */
export interface Suite {
  clients: ClusterClients[];
  backend: Backend;
  /** Each importer: the cluster it writes in (`local`) and the one whose exports it reads (`cluster`). */
  importers: Array<{ local: string; cluster: string; importer: McsImporter }>;
  /** The controllers, in the order of `importers`. */
  controllers: MirrorController[];
  /** Each cluster's Links (the process's LinkDirectory, as `mc serve` has), in the order of `clients`. */
  links: LinkDirectory[];
  stop(): Promise<void>;
}

async function createOrReplace(client: KubeClient, obj: KubeObject, res: ResourceType = resources.customResourceDefinition): Promise<void> {
  try {
    await client.create(res, obj);
  } catch (err) {
    if (!(err as { code?: number }).code || (err as { code?: number }).code !== 409) throw err;
  }
}

/** Waits until a CRD's kinds are served (a real API server takes a moment after the create). */
async function served(client: KubeClient, res: typeof mcsResources.serviceImport | typeof mcsResources.serviceExport): Promise<void> {
  await eventually(async () => void (await client.list(res, { limit: 1 })), `${res.plural} served on ${client.cluster}`, 60_000);
}

export async function startSuite(): Promise<Suite> {
  const backend = await startBackend();
  const clusters = [backend.east, backend.west];
  const clients = await Promise.all(
    clusters.map(async (c) => ({
      name: c.name,
      client: await connectKubeconfigText(await Bun.file(c.kubeconfigPath).text(), `kubeconfig ${c.name}`, {
        name: c.name,
        timeoutMs: 10_000,
      }),
    })),
  );
  for (const { client } of clients) {
    for (const crd of [renderLinkCrd("mc/test"), ...renderMcsCrds("mc/test")]) await createOrReplace(client, crd as unknown as KubeObject);
    try {
      await client.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: DEFAULT_NAMESPACE } });
    } catch {
      // already there
    }
  }
  for (const { client } of clients) {
    await served(client, mcsResources.serviceExport);
    await served(client, mcsResources.serviceImport);
  }
  const controllers: MirrorController[] = [];
  const links = clients.map(({ client }) => new LinkDirectory({ client, namespace: DEFAULT_NAMESPACE }).start());
  for (const [i, self] of clients.entries()) {
    const other = clients[1 - i]!;
    const gateway = clusters[1 - i]!.gateway.address;
    // The Link to the other cluster (selecting no Linkerd-labelled Service: only its ServiceExports are imported).
    const obj = linkObject({
      cluster: other.name,
      gatewayAddress: gateway,
      probe: null,
      selector: { matchLabels: { "mcs-conformance/none": "true" } },
    });
    await createOrReplace(self.client, obj, {
      apiVersion: "multicluster.linkerd.io/v1alpha3",
      kind: "Link",
      plural: "links",
      namespaced: true,
    });
    controllers.push(
      new MirrorController({
        link: parseLink(obj),
        namespace: DEFAULT_NAMESPACE,
        local: self.client,
        remote: other.client,
        log: quiet,
        links: links[i],
      }),
    );
    // The local mirror, named in the ClusterSet: this cluster's own exports are imported here too.
    const local = localMirrorLink({ federatedServiceSelector: [], excludedLabels: [], excludedAnnotations: [] }, DEFAULT_NAMESPACE);
    controllers.push(
      new MirrorController({
        link: local,
        namespace: DEFAULT_NAMESPACE,
        local: self.client,
        remote: self.client,
        log: quiet,
        localClusterName: self.name,
        links: links[i],
      }),
    );
  }
  await Promise.all(links.map((l) => l.synced));
  for (const c of controllers) c.start();
  await Promise.all(controllers.map((c) => c.mcs?.ready));
  for (const c of controllers) expect(c.mcs?.state).toEqual({ on: true });
  const importers = controllers.map((c, i) => ({
    local: clients[Math.floor(i / 2)]!.name,
    cluster: i % 2 === 0 ? clients[1 - Math.floor(i / 2)]!.name : clients[Math.floor(i / 2)]!.name,
    importer: c.mcs!,
  }));
  return {
    clients,
    backend,
    importers,
    controllers,
    links,
    async stop() {
      await Promise.all(controllers.map((c) => c.stop()));
      await Promise.all(links.map((l) => l.stop()));
      await backend.stop();
    },
  };
}

/** The suite's testDriver: a fresh namespace in every cluster, the hello Service in clients[0], exported unless a two-cluster test exports it. */
export class TestDriver {
  namespace = "";
  helloService = newHelloService();
  helloServiceExport = newHelloServiceExport();
  autoExportService = true;

  constructor(readonly suite: Suite) {}

  get clients(): ClusterClients[] {
    return this.suite.clients;
  }

  /** BeforeEach: fresh objects (a test changes them before `setUp`). */
  reset(): void {
    this.namespace = `mcs-conformance-${Math.floor(Math.random() * 2 ** 32)}`;
    this.helloService = newHelloService();
    this.helloServiceExport = newHelloServiceExport();
    this.autoExportService = true;
  }

  /** JustBeforeEach: the namespace everywhere, the Service in clients[0], its export. */
  async setUp(): Promise<void> {
    for (const { client } of this.clients)
      await client.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: this.namespace } });
    await this.deployHelloService(this.clients[0]!, this.helloService);
    if (this.autoExportService) await this.createServiceExport(this.clients[0]!, this.helloServiceExport);
  }

  /** AfterEach: the namespace deleted everywhere. */
  async tearDown(): Promise<void> {
    for (const { client } of this.clients) {
      try {
        await client.delete(resources.namespace, undefined, this.namespace);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }

  async createServiceExport(c: ClusterClients, exp: ServiceExportObject & KubeObject): Promise<void> {
    await c.client.create(mcsResources.serviceExport, { ...exp, metadata: { ...exp.metadata, namespace: this.namespace } });
  }

  async deleteServiceExport(c: ClusterClients): Promise<void> {
    await c.client.delete(mcsResources.serviceExport, this.namespace, helloServiceName);
  }

  async deployHelloService(c: ClusterClients, service: HelloService): Promise<void> {
    await c.client.create(resources.deployment, { ...newHelloDeployment(), metadata: { name: "hello", namespace: this.namespace } });
    await c.client.create(resources.service, {
      ...service,
      metadata: { ...service.metadata, namespace: this.namespace },
    } as unknown as KubeObject);
  }

  async getServiceImport(c: ClusterClients, name: string): Promise<ServiceImportObject | undefined> {
    try {
      return await c.client.get<ServiceImportObject>(mcsResources.serviceImport, this.namespace, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** awaitServiceImport: until it exists and `verify` passes. */
  async awaitServiceImport(c: ClusterClients, name: string, verify?: (si: ServiceImportObject) => void): Promise<ServiceImportObject> {
    return eventually(async () => {
      const si = await this.getServiceImport(c, name);
      if (!si) throw new Error(`ServiceImport was not found on cluster "${c.name}"`);
      verify?.(si);
      return si;
    }, `ServiceImport ${this.namespace}/${name} on cluster "${c.name}"`);
  }

  async awaitNoServiceImport(c: ClusterClients, name: string, message: string): Promise<void> {
    await eventually(async () => {
      if (await this.getServiceImport(c, name)) throw new Error("still exists");
    }, message);
  }

  async ensureServiceImport(c: ClusterClients, name: string, message: string): Promise<void> {
    await consistently(async () => {
      if (!(await this.getServiceImport(c, name))) throw new Error("not found");
    }, message);
  }

  async ensureNoServiceImport(c: ClusterClients, name: string, message: string): Promise<void> {
    await consistently(async () => {
      if (await this.getServiceImport(c, name)) throw new Error("exists");
    }, message);
  }

  async awaitServiceExportCondition(c: ClusterClients, type: string, status: Condition["status"]): Promise<void> {
    await eventually(async () => {
      const se = await c.client.get<ServiceExportObject>(mcsResources.serviceExport, this.namespace, helloServiceName);
      const cond = se.status?.conditions?.find((x) => x.type === type);
      if (cond?.status !== status) throw new Error(`${type} is ${cond ? `${cond.status} (${cond.reason}: ${cond.message})` : "not set"}`);
    }, `The ${type} condition was not set to ${status} on cluster "${c.name}"`);
  }
}

/** The suite's twoClusterTestDriver: the hello Service also in clients[1], exported there after clients[0]'s import exists and its export is older. */
export class TwoClusterTestDriver extends TestDriver {
  helloService2 = newHelloService();
  helloServiceExport2 = newHelloServiceExport();

  override reset(): void {
    super.reset();
    this.helloService2 = newHelloService();
    this.helloServiceExport2 = newHelloServiceExport();
    this.autoExportService = false;
  }

  override async setUp(): Promise<void> {
    await super.setUp();
    await this.createServiceExport(this.clients[0]!, this.helloServiceExport);
    // The first export's import exists before the second cluster exports (conflicts go to the first observed).
    await this.awaitServiceImport(this.clients[0]!, helloServiceName);
    // The suite sleeps 1.1 s so the first export is older (creation timestamps have seconds
    // granularity): here, until the clock is past the second after the first export's creation.
    const first = await this.clients[0]!.client.get<ServiceExportObject>(mcsResources.serviceExport, this.namespace, helloServiceName);
    const olderBy = Date.parse(first.metadata.creationTimestamp ?? "") + 1100 - Date.now();
    if (olderBy > 0) await Bun.sleep(olderBy);
    await this.deployHelloService(this.clients[1]!, this.helloService2);
    await this.createServiceExport(this.clients[1]!, this.helloServiceExport2);
  }
}

/** Whether `actual` has every key/value of `expected`. */
export function hasKeyValues(actual: Record<string, string> | undefined, expected: Record<string, string> | undefined): void {
  for (const [k, v] of Object.entries(expected ?? {})) expect(actual?.[k]).toBe(v);
}

export function notHasKeyValues(actual: Record<string, string> | undefined, expected: Record<string, string> | undefined): void {
  for (const [k, v] of Object.entries(expected ?? {})) expect(actual?.[k]).not.toBe(v);
}
