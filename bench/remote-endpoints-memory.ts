// What a target's unexported Services cost the controller (the goal: at most 1 KB each). The controller watches every Endpoints object of
// the target, unfiltered, since Endpoints need not carry their Service's labels; it keeps each only as far as a mirror decision reads it
// (src/mirror/sources/remote-endpoints.ts).
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, Informer, resources, type KubeObject } from "../src/kube/index.ts";
import { renderLinkCrd } from "../src/manifests/crd.ts";
import { createMetrics } from "../src/metrics.ts";
import { MirrorController } from "../src/mirror/controller.ts";
import { EXPORTED } from "../src/model/labels.ts";
import { linkResource, parseLink } from "../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../src/model/names.ts";
import { startSandbox } from "../src/sandbox/index.ts";

// East (the target, seeded with N unexported Services and their Endpoints — three pods and two ports
// each, as kube's endpoints controller writes them — plus a few exported ones) and west run in a child
// process, so this process's heap holds only the controller. Prints the heap growth per unexported
// Service once synced, the same for an informer keeping whole Endpoints (Linkerd's way), and how many
// reconciles N/10 updates of unexported Endpoints cause (none should). With --slices the controller
// reads EndpointSlices (east's mirroring controller makes one per Endpoints object) instead.
//   bun bench/remote-endpoints-memory.ts [unexported=10000] [exported=50] [--slices]

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const NAMESPACES = 10;

// ---- child: the two clusters -----------------------------------------------------------------
if (process.argv[2] === "--clusters") {
  const [dir, unexported, exported] = [process.argv[3]!, Number(process.argv[4]), Number(process.argv[5])];
  const east = await startSandbox({ name: "east", kubeconfigPath: join(dir, "east"), historyLimit: unexported + 1000 });
  const west = await startSandbox({ name: "west", kubeconfigPath: join(dir, "west") });
  const write = { fieldManager: "bench" };
  const type = (sb: typeof east, plural: string) => sb.api.registry.find("", "v1", plural)!;
  for (const sb of [east, west]) {
    for (const name of [...Array.from({ length: NAMESPACES }, (_, n) => `ns-${n}`), ...(sb === west ? [DEFAULT_NAMESPACE] : [])]) {
      sb.api.create(type(sb, "namespaces"), undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name } }, write);
    }
  }
  west.api.create(
    west.api.registry.find("apiextensions.k8s.io", "v1", "customresourcedefinitions")!,
    undefined,
    renderLinkCrd("bench") as never,
    write,
  );
  for (let i = 0; i < unexported + exported; i++) {
    const namespace = `ns-${i % NAMESPACES}`;
    const name = `svc-${i}`;
    const labels: Record<string, string> = { app: name, "app.kubernetes.io/part-of": "bench", ...(i < exported && { [EXPORTED]: "true" }) };
    const ports = [
      { name: "http", port: 8080, protocol: "TCP" },
      { name: "admin", port: 9990, protocol: "TCP" },
    ];
    const address = (p: number) => ({
      ip: `10.${(i >> 8) & 255}.${i & 255}.${p}`,
      nodeName: `node-${p}`,
      targetRef: { kind: "Pod", namespace, name: `${name}-7d9c6b5f4-${p}xkzq`, uid: crypto.randomUUID() },
    });
    east.api.create(
      type(east, "services"),
      namespace,
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name, namespace, labels },
        spec: { ports: ports.map((p) => ({ ...p, port: p.port })) },
      },
      write,
    );
    east.api.create(
      type(east, "endpoints"),
      namespace,
      {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: { name, namespace, labels, annotations: { "endpoints.kubernetes.io/last-change-trigger-time": "2026-12-03T00:00:00Z" } },
        subsets: [{ addresses: [1, 2, 3].map(address), ports }],
      },
      write,
    );
  }
  // Touch every tenth unexported Endpoints object on request (a line on stdin).
  console.log("ready");
  for await (const _ of console) {
    for (let i = exported; i < unexported + exported; i += 10) {
      const ep = east.store.get(type(east, "endpoints"), `ns-${i % NAMESPACES}`, `svc-${i}`)!;
      (ep.subsets as Array<{ addresses: Array<{ ip: string }> }>)[0]!.addresses[0]!.ip = `10.200.${(i >> 8) & 255}.${i & 255}`;
      east.api.update(type(east, "endpoints"), ep.metadata.namespace, ep.metadata.name!, ep, write);
    }
    console.log(`touched ${east.store.resourceVersion}`);
  }
  process.exit(0);
}

// ---- parent: the controller ------------------------------------------------------------------
const slices = process.argv.includes("--slices");
const [unexportedArg, exportedArg] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const unexported = Number(unexportedArg ?? 10_000);
const exported = Number(exportedArg ?? 50);
const dir = await mkdtemp(join(tmpdir(), "mc-bench-memory-"));
const child = Bun.spawn(["bun", import.meta.path, "--clusters", dir, String(unexported), String(exported)], {
  stdin: "pipe",
  stdout: "pipe",
  stderr: "inherit",
});
const lines = (async function* () {
  let buf = "";
  for await (const chunk of child.stdout) {
    buf += new TextDecoder().decode(chunk);
    for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
      yield buf.slice(0, i);
      buf = buf.slice(i + 1);
    }
  }
})();
const nextLine = async () => (await lines.next()).value as string;
if ((await nextLine()) !== "ready") throw new Error("the clusters did not start");

const heap = () => {
  Bun.gc(true);
  return process.memoryUsage().heapUsed;
};
const [east, west] = await Promise.all([
  connect({ kubeconfig: join(dir, "east"), name: "east" }),
  connect({ kubeconfig: join(dir, "west"), name: "west" }),
]);
const linkObj = await west.create(linkResource, {
  apiVersion: "multicluster.linkerd.io/v1alpha3",
  kind: "Link",
  metadata: { name: "east", namespace: DEFAULT_NAMESPACE },
  spec: {
    targetClusterName: "east",
    targetClusterDomain: "cluster.local",
    targetClusterLinkerdNamespace: "linkerd",
    clusterCredentialsSecret: "cluster-credentials-east",
    gatewayAddress: "192.0.2.1",
    gatewayPort: "4143",
    gatewayIdentity: "gw",
    selector: { matchLabels: { [EXPORTED]: "true" } },
  },
});

// Whole Endpoints objects, as an unfiltered informer without a transform keeps them (Linkerd).
const before0 = heap();
const whole = new Informer<KubeObject>({ client: east, resource: slices ? resources.endpointSlice : resources.endpoints, log: quiet });
whole.start();
await whole.synced;
const wholeBytes = heap() - before0;
await whole.stop();

const metrics = createMetrics();
const reconciles = async () => (await metrics.reconcileDuration.get()).values.find((v) => v.metricName?.endsWith("_count"))?.value ?? 0;
const before = heap();
const ctl = new MirrorController({
  link: parseLink(linkObj),
  namespace: DEFAULT_NAMESPACE,
  local: west,
  remote: east,
  log: quiet,
  metrics,
  resolver: async (h) => [h],
  settings: { enableEndpointSlices: slices },
});
ctl.start();
await ctl.synced;
await ctl.drain();
const controllerBytes = heap() - before;
const seen = (ctl.informers.remoteEndpoints ?? ctl.informers.remoteEndpointSlices)!;
const cachedEndpoints = seen.cache.size;

const reconciledBefore = await reconciles();
child.stdin.write("touch\n");
child.stdin.flush();
const touchedAt = (await nextLine()).split(" ")[1]!;
while (Number(seen.resourceVersion) < Number(touchedAt)) await Bun.sleep(20);
await ctl.drain();
const reconciledAfter = await reconciles();
await ctl.stop();
child.kill();

const kb = (n: number) => (n / 1024).toFixed(2);
const what = slices ? "EndpointSlices" : "Endpoints";
console.log(
  `remote ${what} memory: ${unexported} unexported + ${exported} exported Services in east (3 pods, 2 ports each); ${cachedEndpoints} ${what} cached`,
);
console.log(
  `  controller, synced (all its caches), per unexported Service: ${kb(controllerBytes / unexported)} KB   (limit 1 KB; total ${(controllerBytes / 1048576).toFixed(1)} MB)`,
);
console.log(
  `  whole ${what} (unfiltered informer, no transform), per object: ${kb(wholeBytes / (unexported + exported))} KB   ratio ${(wholeBytes / Math.max(1, controllerBytes)).toFixed(1)}x`,
);
console.log(`  reconciles caused by ${Math.ceil(unexported / 10)} updates of unexported ${what}: ${reconciledAfter - reconciledBefore}`);
process.exit(0);
