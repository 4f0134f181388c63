// Sandbox throughput: seeding, listing and watch fan-out at the sizes the controller
// benchmarks use. Prints medians of several runs. `bun bench/sandbox.ts [objects] [watchers]`
import { startSandbox } from "../src/sandbox/index.ts";
import type { KubeObject } from "../src/sandbox/types.ts";

const objects = Number(process.argv[2] ?? 20_000);
const watchers = Number(process.argv[3] ?? 100);
const runs = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const time = async (fn: () => unknown | Promise<unknown>) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};

const sb = await startSandbox({ name: "bench", historyLimit: objects + 1000 });
const services = sb.api.registry.find("", "v1", "services")!;
const namespaces = sb.api.registry.find("", "v1", "namespaces")!;
for (let n = 0; n < 100; n++) sb.api.create(namespaces, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: `ns-${n}` } }, {});
const svc = (i: number): KubeObject => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: `svc-${i}`, namespace: `ns-${i % 100}`, labels: { "mirror.linkerd.io/exported": i % 2 ? "true" : "false" } },
  spec: { ports: [{ name: "http", port: 80 }] },
});

const seedMs = await time(() => {
  for (let i = 0; i < objects; i++) sb.api.create(services, `ns-${i % 100}`, svc(i), { fieldManager: "bench" });
});

const get = (path: string) => fetch(`${sb.url}${path}`).then((r) => r.arrayBuffer());
const listAll: number[] = [];
const listNs: number[] = [];
const listSel: number[] = [];
for (let r = 0; r < runs; r++) {
  listAll.push(await time(() => get("/api/v1/services")));
  listNs.push(await time(() => get("/api/v1/namespaces/ns-7/services")));
  listSel.push(await time(() => get("/api/v1/services?labelSelector=mirror.linkerd.io%2Fexported%3Dtrue")));
}

// Watch fan-out: N open watches on services; time from one write until every watcher saw it.
const controllers: AbortController[] = [];
const readers: Promise<void>[] = [];
let pending = 0;
let resolveAll: () => void = () => {};
for (let w = 0; w < watchers; w++) {
  const ac = new AbortController();
  controllers.push(ac);
  const res = await fetch(`${sb.url}/api/v1/namespaces/ns-1/services?watch=true&resourceVersion=${sb.store.resourceVersion}`, { signal: ac.signal });
  const reader = res.body!.getReader();
  readers.push(
    (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          if (new TextDecoder().decode(value).includes('"MODIFIED"') && --pending === 0) resolveAll();
        }
      } catch {
        // aborted
      }
    })(),
  );
}
const fanout: number[] = [];
for (let r = 0; r < runs; r++) {
  const done = new Promise<void>((resolve) => (resolveAll = resolve));
  pending = watchers;
  fanout.push(
    await time(async () => {
      const current = sb.api.get(services, "ns-1", "svc-1");
      sb.api.update(services, "ns-1", "svc-1", { ...current, metadata: { ...current.metadata, labels: { run: String(r) } } }, { fieldManager: "bench" });
      await done;
    }),
  );
}
for (const c of controllers) c.abort();
await Promise.allSettled(readers);
await sb.stop();

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
console.log(`sandbox benchmark: ${objects} services in 100 namespaces, ${watchers} watchers, median of ${runs}`);
console.log(`  seed via api.create:        ${fmt(seedMs)} total, ${((seedMs / objects) * 1000).toFixed(1)} µs/object`);
console.log(`  GET list all (HTTP):        ${fmt(median(listAll))}`);
console.log(`  GET list one namespace:     ${fmt(median(listNs))}  (${(median(listAll) / median(listNs)).toFixed(0)}x faster than all)`);
console.log(`  GET list label-selected:    ${fmt(median(listSel))}`);
console.log(`  one write seen by ${watchers} watches: ${fmt(median(fanout))}`);
