// `mc demo`: the whole product on two in-memory clusters, in a few seconds. east is the target (gateway, exported services), west the
// source (Link, controller, mirrors). Each step is what a user would run — `mc install`, `mc link`, `mc serve`, `mc gateways` — done
// in-process, and each check waits on the clusters' watch events.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { defaultLinkOptions } from "../cli/link-flags.ts";
import { gatewaysOutput } from "../gateways/read.ts";
import { connect, resources, waitForObject, type KubeClient, type KubeObject } from "../kube/index.ts";
import { buildInstall, defaultInstallOptions } from "../linker/install.ts";
import { buildLinkBundle } from "../linker/link.ts";
import type { Manifest } from "../manifests/meta.ts";
import { serve, type Serving } from "../serve/serve.ts";
import * as L from "../model/labels.ts";
import { linkResource } from "../model/link.ts";
import { LABEL_SERVICE_NAME, mcsResources, type ServiceImportObject } from "../mcs/api.ts";
import * as N from "../model/names.ts";
import { proberFactory } from "../prober/index.ts";
import { applyObjects } from "./apply.ts";
import { startSandbox, type Sandbox } from "../sandbox/index.ts";
import { fakeLinkerd } from "./fake-linkerd.ts";
import { startDemoGateway, type DemoGateway } from "./gateway.ts";

export interface Demo {
  east: Sandbox;
  west: Sandbox;
  dir: string;
  gateway: DemoGateway;
  serving: Serving;
  stop(): Promise<void>;
}

const NS = N.DEFAULT_NAMESPACE;
const WAIT_MS = 15_000;

type Endpoints = KubeObject & {
  subsets?: { addresses?: { ip: string }[]; notReadyAddresses?: { ip: string }[]; ports?: { port: number }[] }[];
};
const readyCount = (ep: Endpoints | undefined) => (ep?.subsets ?? []).reduce((n, s) => n + (s.addresses?.length ?? 0), 0);
const notReadyCount = (ep: Endpoints | undefined) => (ep?.subsets ?? []).reduce((n, s) => n + (s.notReadyAddresses?.length ?? 0), 0);

/** Runs every step, printing what happened to `say`; leaves everything running for the caller. */
export async function runDemo(say: (line: string) => void): Promise<Demo> {
  const started = performance.now();
  const dir = await mkdtemp(join(tmpdir(), "mc-demo-"));
  const eastPath = join(dir, "east.kubeconfig");
  const westPath = join(dir, "west.kubeconfig");
  // east is TLS: the service-account token `mc link` hands to west authenticates only over TLS.
  const east = await startSandbox({ name: "east", tls: true, kubeconfigPath: eastPath });
  const west = await startSandbox({ name: "west", kubeconfigPath: westPath });
  fakeLinkerd(east);
  fakeLinkerd(west);
  say(`1. Two clusters are up, each with a stand-in Linkerd control plane:`);
  say(`     east (target) ${east.url}   west (source) ${west.url}`);

  const install = (kubeconfig: string) => buildInstall(defaultInstallOptions(pkg.version, kubeconfig));
  const installed = await install(eastPath);
  applyObjects(east, installed, "mc-demo");
  applyObjects(west, await install(westPath), "mc-demo");
  say(`2. mc install | kubectl apply, on both: ${summary(installed)}`);

  // A Deployment and a Service selecting its Pods: east's endpoints controller makes the Endpoints.
  const app = (name: string, labels: Record<string, string>): Manifest[] => [
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name, namespace: "default", labels: { app: name } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name, image: "nginx", ports: [{ name: "http", containerPort: 8080 }] }] },
        },
      },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, namespace: "default", labels },
      spec: { selector: { app: name }, ports: [{ name: "http", port: 80, targetPort: "http" }] },
    },
  ];
  applyObjects(east, [...app("web", { app: "web", [L.EXPORTED]: "true" }), ...app("db", { app: "db" })], "mc-demo");
  const eastClient = await connect({ kubeconfig: eastPath });
  const webEndpoints = await eastClient.get<Endpoints>(resources.endpoints, "default", "web");
  say(`3. east runs default/web (exported: ${L.EXPORTED}=true) and default/db (not exported), 2 pods each`);
  say(
    `     east's endpoints controller lists web's pods: ${(webEndpoints?.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => `${a.ip}:${s.ports?.[0]?.port}`)).join(", ")}`,
  );

  const gateway = await startDemoGateway();
  const bundle = await buildLinkBundle(defaultLinkOptions("east", eastPath));
  // The gateway's address (the sandbox load balancer's 192.0.2.1) is data only, never contacted:
  // mc serve probes the demo gateway on loopback instead (--probe-address), fast so failures show in seconds.
  for (const obj of bundle) {
    if (obj.kind !== "Link") continue;
    const spec = obj.spec as { probeSpec: Record<string, string> };
    spec.probeSpec = { ...spec.probeSpec, period: "1s", failureThreshold: "2", timeout: "500ms" };
  }
  applyObjects(west, bundle, "mc-demo");
  say(`4. mc link --cluster-name east | kubectl apply (west): ${summary(bundle)}`);
  say(`     (mc serve probes the demo gateway on 127.0.0.1:${gateway.port} every 1s: --probe-address)`);

  const westClient = await connect({ kubeconfig: westPath });
  const serving = await serve({
    local: westClient,
    namespace: NS,
    linkName: "east",
    adminAddr: "127.0.0.1:0",
    identity: "mc-demo",
    settings: { probeAddress: { "": `127.0.0.1:${gateway.port}` } },
    controller: { proberFactory: proberFactory({ statusIntervalMs: 1000 }) },
  });
  const stop = async () => {
    await serving.stop();
    await gateway.stop();
    await Promise.all([east.stop(), west.stop()]);
  };
  try {
    say(`5. mc serve east is running (admin ${serving.admin.url}); it watches east and writes to west`);
    const mirror = await waitForObject<KubeObject & { spec?: { clusterIP?: string } }>(
      westClient,
      resources.service,
      "default",
      N.mirrorName("web", "east"),
      (o) => !!o,
      {
        what: "the mirror default/web-east",
        timeoutMs: WAIT_MS,
      },
    );
    const ep = await waitForObject<Endpoints>(westClient, resources.endpoints, "default", "web-east", (o) => readyCount(o) > 0, {
      what: "ready endpoints of web-east",
      timeoutMs: WAIT_MS,
    });
    const addr = ep?.subsets?.[0];
    say(
      `   ✓ west has default/web-east (ClusterIP ${mirror?.spec?.clusterIP}) → ${addr?.addresses?.[0]?.ip}:${addr?.ports?.[0]?.port} (east's gateway), ready`,
    );
    const db = await westClient.list(resources.service, { namespace: "default", fieldSelector: "metadata.name=db-east" });
    say(`   ✓ default/db is not exported, so west has no db-east (${db.items.length} found)`);

    await waitForGateway(westClient, (alive) => alive === true);
    say(`6. mc gateways (west):`);
    for (const line of (await gatewaysOutput({ client: westClient, namespace: NS, output: "table" })).trimEnd().split("\n"))
      say(`     ${line}`);

    await gateway.stop();
    say(`7. east's gateway stops answering its probe...`);
    await waitForObject<Endpoints>(
      westClient,
      resources.endpoints,
      "default",
      "web-east",
      (o) => notReadyCount(o) > 0 && readyCount(o) === 0,
      {
        what: "web-east endpoints to become not ready",
        timeoutMs: WAIT_MS,
      },
    );
    await waitForGateway(westClient, (alive) => alive === false);
    say(`   ✓ after 2 failed probes west's web-east endpoints are not ready, and mc gateways says ALIVE False`);

    await gateway.start();
    await waitForObject<Endpoints>(westClient, resources.endpoints, "default", "web-east", (o) => readyCount(o) > 0, {
      what: "web-east endpoints to be ready again",
      timeoutMs: WAIT_MS,
    });
    await waitForGateway(westClient, (alive) => alive === true);
    say(`8. the gateway is back: web-east is ready again and mc gateways says ALIVE True`);

    const pods = (await eastClient.list(resources.pod, { namespace: "default", labelSelector: "app=web" })).items;
    for (const pod of pods) east.api.kubelet.setPodReady("default", pod.metadata.name!, false);
    await waitForObject<Endpoints>(westClient, resources.endpoints, "default", "web-east", (o) => !!o && (o.subsets ?? []).length === 0, {
      what: "web-east to have no endpoints",
      timeoutMs: WAIT_MS,
    });
    say(`9. east's web pods fail their readiness probes: web-east has no endpoints, so calls fail fast`);
    for (const pod of pods) east.api.kubelet.setPodReady("default", pod.metadata.name!, true);
    await waitForObject<Endpoints>(westClient, resources.endpoints, "default", "web-east", (o) => readyCount(o) > 0, {
      what: "web-east endpoints to be back",
      timeoutMs: WAIT_MS,
    });
    say(`   ...and once one is ready again, web-east points at the gateway again`);

    await eastClient.patch(resources.service, "default", "web", { metadata: { labels: { [L.EXPORTED]: null } } });
    await waitForObject(westClient, resources.service, "default", "web-east", (o) => o === undefined, {
      what: "web-east to be removed",
      timeoutMs: WAIT_MS,
    });
    say(`10. east stops exporting web: west's web-east is gone`);
    await eastClient.patch(resources.service, "default", "web", { metadata: { labels: { [L.EXPORTED]: "true" } } });
    await waitForObject(westClient, resources.service, "default", "web-east", (o) => !!o, {
      what: "web-east to come back",
      timeoutMs: WAIT_MS,
    });
    say(`   ...and exporting it again brings it back`);

    await eastClient.create(mcsResources.serviceExport, {
      apiVersion: mcsResources.serviceExport.apiVersion,
      kind: "ServiceExport",
      metadata: { name: "web", namespace: "default" },
    });
    say(`11. east also exports web the Multi-Cluster Services way: a ServiceExport default/web`);
    const imp = await waitForObject<ServiceImportObject & KubeObject>(
      westClient,
      mcsResources.serviceImport,
      "default",
      "web",
      (o) => (o?.spec.ips ?? []).length > 0 && (o?.status?.clusters ?? []).length > 0,
      {
        what: "the ServiceImport default/web",
        timeoutMs: WAIT_MS,
      },
    );
    const slices = (
      await westClient.list<KubeObject & { endpoints?: Array<{ addresses: string[] }>; ports?: Array<{ port: number }> }>(
        resources.endpointSlice,
        { namespace: "default", labelSelector: `${LABEL_SERVICE_NAME}=web` },
      )
    ).items;
    const at = slices.flatMap((x) => (x.endpoints ?? []).map((e) => `${e.addresses[0]}:${x.ports?.[0]?.port}`));
    say(
      `   ✓ west has ServiceImport default/web (same name, ${imp?.spec.type} ${imp?.spec.ips?.join(",")}, from ${imp?.status?.clusters?.map((c) => c.cluster).join(", ")}), its EndpointSlice at ${at.join(", ")} (east's gateway)`,
    );
    say(`Done in ${((performance.now() - started) / 1000).toFixed(1)}s.`);
  } catch (err) {
    await stop();
    throw err;
  }
  return { east, west, dir, gateway, serving, stop };
}

function summary(objects: readonly Manifest[]): string {
  const kinds = new Map<string, number>();
  for (const o of objects) kinds.set(o.kind, (kinds.get(o.kind) ?? 0) + 1);
  return `${objects.length} objects (${[...kinds].map(([k, n]) => (n > 1 ? `${n} ${k}` : k)).join(", ")})`;
}

async function waitForGateway(west: KubeClient, pred: (alive: boolean | undefined) => boolean): Promise<void> {
  await waitForObject<KubeObject & { status?: { gateway?: { alive?: boolean } } }>(
    west,
    linkResource,
    NS,
    "east",
    (o) => pred(o?.status?.gateway?.alive),
    {
      what: "the Link's gateway status",
      timeoutMs: WAIT_MS,
    },
  );
}
