// The sandbox's built-in controllers cost per write what the write touches, not what the store holds: a Deployment with its Pods, a
// selector Service's Endpoints and slices, a Pod readiness flip, timed with an empty store and with `objects` unrelated Services (+
// Endpoints, slices) and Pods in other namespaces. Prints medians and the ratio. `bun bench/sandbox-controllers.ts [objects]`
import { startSandbox, type Sandbox } from "../src/sandbox/index.ts";
import type { KubeObject } from "../src/sandbox/types.ts";

const objects = Number(process.argv[2] ?? 20_000);
const runs = 15;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const write = { fieldManager: "bench" };

async function measure(seed: number): Promise<Record<string, number>> {
  const sb: Sandbox = await startSandbox({ name: "bench", historyLimit: 1000 });
  const type = (group: string, plural: string) => sb.api.registry.find(group, "v1", plural)!;
  const ns = (name: string) =>
    sb.api.create(type("", "namespaces"), undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name } }, write);
  for (let n = 0; n < 20; n++) ns(`filler-${n}`);
  const template = (app: string) => ({
    metadata: { labels: { app } },
    spec: { containers: [{ name: "c", image: "i", ports: [{ name: "http", containerPort: 8080 }] }] },
  });
  for (let i = 0; i < seed; i++) {
    const namespace = `filler-${i % 20}`;
    const labels = { app: `app-${i}` };
    // Half selector-less with hand-written Endpoints (slices mirrored), half with a selector.
    const spec =
      i % 2 ? { ports: [{ name: "http", port: 80 }] } : { selector: labels, ports: [{ name: "http", port: 80, targetPort: "http" }] };
    sb.api.create(
      type("", "services"),
      namespace,
      { apiVersion: "v1", kind: "Service", metadata: { name: `svc-${i}`, namespace, labels }, spec },
      write,
    );
    if (i % 2)
      sb.api.create(
        type("", "endpoints"),
        namespace,
        {
          apiVersion: "v1",
          kind: "Endpoints",
          metadata: { name: `svc-${i}`, namespace },
          subsets: [{ addresses: [{ ip: "10.1.0.1" }], ports: [{ name: "http", port: 8080 }] }],
        },
        write,
      );
    else if (i % 20 === 0)
      sb.api.create(
        type("", "pods"),
        namespace,
        { apiVersion: "v1", kind: "Pod", metadata: { name: `pod-${i}`, namespace, labels }, spec: template("x").spec },
        write,
      );
  }
  ns("bench");
  const t: Record<string, number[]> = { deployment: [], service: [], readiness: [], deleteDeployment: [] };
  const time = (k: string, fn: () => void) => {
    const start = performance.now();
    fn();
    t[k]!.push(performance.now() - start);
  };
  for (let r = 0; r < runs; r++) {
    const app = `web-${r}`;
    time("deployment", () =>
      sb.api.create(
        type("apps", "deployments"),
        "bench",
        {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: app, namespace: "bench" },
          spec: { replicas: 3, selector: { matchLabels: { app } }, template: template(app) },
        },
        write,
      ),
    );
    time("service", () =>
      sb.api.create(
        type("", "services"),
        "bench",
        {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: app, namespace: "bench" },
          spec: { selector: { app }, ports: [{ name: "http", port: 80, targetPort: "http" }] },
        },
        write,
      ),
    );
    const pod = sb.store.list(type("", "pods"), { namespace: "bench" }).find((p) => p.metadata.labels?.app === app) as KubeObject;
    time("readiness", () => sb.api.kubelet.setPodReady("bench", pod.metadata.name!, false));
    time("deleteDeployment", () => sb.api.delete(type("apps", "deployments"), "bench", app));
  }
  await sb.stop();
  return Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]));
}

await measure(0); // warm-up: the first run pays for compilation
const empty = await measure(0);
const full = await measure(objects);
console.log(
  `sandbox controllers: medians of ${runs} runs, empty store vs ${objects} unrelated Services (half with a selector) + their Endpoints/slices + ${objects / 20} Pods elsewhere`,
);
for (const k of Object.keys(empty)) {
  console.log(
    `  ${k.padEnd(18)} ${empty[k]!.toFixed(2).padStart(7)} ms   ${full[k]!.toFixed(2).padStart(7)} ms   ratio ${(full[k]! / empty[k]!).toFixed(2)}`,
  );
}
