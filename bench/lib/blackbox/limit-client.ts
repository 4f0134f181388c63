// The limit, as its own process: a plain client (mc's kube layer and nothing else: no informer, queue or reconcile) writing a list of
// objects to west with `c` requests in flight, at the best `c` of a search on a sample. `bun bench/lib/blackbox/limit-client.ts JOB.json`;
// prints one JSON line (LimitResult) on stdout.
import { connect, resources, type KubeClient, type KubeObject } from "../../../src/kube/index.ts";
import { sampleAll, since, type ProcSample } from "../proc.ts";
import { profileWindow } from "./pprof.ts";
import { requestsBetween, serverRequests, type ServerRequests } from "./server-writes.ts";

// Modes: `create` writes the objects (the mirrors a sync wrote, under new names); `toggle` creates the
// Endpoints first (untimed), then moves every one's addresses between ready and not ready once (what a
// gateway flip writes). The API servers' CPU over the timed run is read from /proc by pid, as this
// process's own is.

export interface LimitJob {
  kubeconfig: string;
  mode: "create" | "toggle";
  objectsFile: string;
  /** Objects written per candidate concurrency in the search. */
  sample: number;
  candidates: number[];
  /** Processes whose CPU is read over the timed run (the API servers). */
  pids: Record<string, number>;
  /** Read the server's requests by resource from its /metrics around the timed run (a real kube-apiserver). */
  serverRequests?: boolean;
  /** West's CPU profiles over the timed run (pprof.ts), files named `label-…`. */
  pprof?: { dir: string; label: string; controllerManager?: string };
}

export interface LimitResult {
  concurrency: number;
  /** Objects per second of each candidate in the search. */
  search: Record<number, number>;
  count: number;
  ms: number;
  /** Over the timed run: this process ("limit") and every pid of the job. */
  procs: Record<string, ProcSample>;
  /** What west's API server executed during the timed run, by resource (with `serverRequests`). */
  serverRequests?: ServerRequests;
}

type Obj = KubeObject & { subsets?: Array<{ addresses?: unknown[]; notReadyAddresses?: unknown[]; ports?: unknown[] }> };

async function writeAll(count: number, concurrency: number, write: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await write(next++);
    }),
  );
  return performance.now() - t;
}

const renamed = (o: Obj, prefix: string): Obj => ({ ...o, metadata: { ...o.metadata, name: `${prefix}${o.metadata.name}` } });
/** The kinds of mirror object the limit writes (and the bench copies from mc's mirrors), by kind. */
export const MIRROR_RESOURCES = {
  Service: resources.service,
  Endpoints: resources.endpoints,
  EndpointSlice: resources.endpointSlice,
} as const;
const create = (client: KubeClient, o: Obj) =>
  client.create(MIRROR_RESOURCES[o.kind as keyof typeof MIRROR_RESOURCES], o, { fieldManager: "mc-bench-limit" });
const flipped = (e: Obj): Obj => ({
  ...e,
  subsets: (e.subsets ?? []).map((s) => ({
    ports: s.ports,
    ...(s.addresses ? { notReadyAddresses: s.addresses } : { addresses: s.notReadyAddresses }),
  })),
});

async function main(job: LimitJob): Promise<LimitResult> {
  const objects = (await Bun.file(job.objectsFile).json()) as Obj[];
  const client = await connect({ kubeconfig: job.kubeconfig, name: "west" });
  let write: (i: number, pass: string) => Promise<unknown>;
  if (job.mode === "create") {
    // A sample larger than the list goes round it again under another name (`s4-1-…`).
    write = (i, pass) => {
      const lap = Math.floor(i / objects.length);
      return create(client, renamed(objects[i % objects.length]!, lap > 0 ? `${pass}${lap}-` : pass));
    };
  } else {
    // The Services first, then their Endpoints (under `raw-` names, beside the mirrors), untimed; only the Endpoints move.
    const services = objects.filter((o) => o.kind === "Service").map((o) => renamed(o, "raw-"));
    const endpoints = objects.filter((o) => o.kind !== "Service").map((o) => renamed(o, "raw-"));
    await writeAll(services.length, 16, (i) => create(client, services[i]!));
    const current: Obj[] = [];
    await writeAll(endpoints.length, 16, async (i) => (current[i] = (await create(client, endpoints[i]!)) as Obj));
    // One object's updates one after the other (each carries the resourceVersion the last returned).
    const last: Array<Promise<unknown>> = [];
    write = (i) => {
      const k = i % current.length;
      const next = (last[k] ?? Promise.resolve()).then(async () => {
        current[k] = await client.update(resources.endpoints, flipped(current[k]!));
      });
      last[k] = next;
      return next;
    };
  }
  // Toggling, no more in flight than there are objects (an object's updates wait for each other).
  const count = job.mode === "toggle" ? objects.filter((o) => o.kind !== "Service").length : objects.length;
  const inFlight = (c: number) => (job.mode === "toggle" ? Math.min(c, count) : c);
  const search: Record<number, number> = {};
  let offset = 0;
  for (const c of job.candidates) {
    const from = offset;
    search[c] = (job.sample / (await writeAll(job.sample, inFlight(c), (i) => write(from + i, `s${c}-`)))) * 1000;
    offset += job.sample;
  }
  const concurrency = Number(Object.entries(search).sort(([, a], [, b]) => b - a)[0]![0]);
  // The timed run starts where the search left off (toggle: every object moves once more).
  const pids = { limit: process.pid, ...job.pids };
  Bun.gc(true);
  const requestsBefore = job.serverRequests ? await serverRequests(job.kubeconfig) : undefined;
  const profiles = job.pprof && profileWindow({ kubeconfig: job.kubeconfig, ...job.pprof });
  const before = sampleAll(pids);
  const ms = await writeAll(count, inFlight(concurrency), (i) => write(job.mode === "create" ? i : offset + i, "l-"));
  const procs = since(before, pids);
  await profiles?.stop();
  const requests = requestsBefore && requestsBetween(requestsBefore, await serverRequests(job.kubeconfig));
  return { concurrency, search, count, ms, procs, ...(requests && { serverRequests: requests }) };
}

if (import.meta.main) {
  const job = (await Bun.file(process.argv[2]!).json()) as LimitJob;
  const result = await main(job);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}
