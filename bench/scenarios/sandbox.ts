// The sandbox alone: what one request costs as the store grows.
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import type { KubeObject } from "../../src/sandbox/types.ts";
import { numbers, say, size, type Scenario } from "../lib/scenario.ts";
import { measured, median, ms, ratio } from "../lib/stats.ts";

// Per size, a fresh sandbox is seeded through its API (Services and their Endpoints, half each, in 100
// namespaces; the EndpointSlice mirroring controller adds a slice per Endpoints) and then asked over
// HTTP for lists (all, one namespace, one label value, half the objects by label), one write seen by
// watches in every namespace, and a SelfSubjectAccessReview among size/20 RBAC bindings. The target:
// seeding costs as much per object at the largest size as at the smallest (CPU time, after a warm-up
// run; ratio ≤ 1.3).

const NAMESPACES = 100;
const RUNS = 5;

interface SizeFigures {
  objects: number;
  seedCpuUsPerObject: number;
  seedWallUsPerObject: number;
  listAllMs: number;
  listNamespaceMs: number;
  listOneLabelMs: number;
  listHalfByLabelMs: number;
  fanoutMs: number;
  accessReviewMs: number;
}

function seed(sb: Sandbox, objects: number): void {
  const t = (kind: string) => sb.api.registry.findKind("v1", kind)!;
  const [namespaces, services, endpoints] = [t("Namespace"), t("Service"), t("Endpoints")];
  for (let n = 0; n < NAMESPACES; n++)
    if (!sb.store.has(namespaces, undefined, `ns-${n}`))
      sb.api.create(namespaces, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: `ns-${n}` } }, {});
  const write = { fieldManager: "bench" };
  for (let i = 0; i < objects / 2; i++) {
    const namespace = `ns-${i % NAMESPACES}`;
    const name = `svc-${i}`;
    const labels = { app: name, "mirror.linkerd.io/exported": i % 2 === 0 ? "true" : "false" };
    sb.api.create(
      services,
      namespace,
      { apiVersion: "v1", kind: "Service", metadata: { name, namespace, labels }, spec: { ports: [{ name: "http", port: 80 }] } },
      write,
    );
    sb.api.create(
      endpoints,
      namespace,
      {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: { name, namespace, labels },
        subsets: [{ addresses: [{ ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` }], ports: [{ name: "http", port: 80 }] }],
      },
      write,
    );
  }
}

/** `count` ClusterRoleBindings for other users, and one for the reviewing account. */
function seedRbac(sb: Sandbox, count: number): void {
  const t = (kind: string) => sb.api.registry.findKind("rbac.authorization.k8s.io/v1", kind)!;
  const roleRef = { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "reader" };
  sb.api.create(
    t("ClusterRole"),
    undefined,
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "reader" },
      rules: [{ apiGroups: [""], resources: ["services"], verbs: ["list"] }],
    },
    {},
  );
  for (let i = 0; i < count; i++) {
    const subjects = [
      { kind: "User", name: `user-${i}` },
      { kind: "ServiceAccount", name: `sa-${i}`, namespace: `ns-${i % NAMESPACES}` },
    ];
    sb.api.create(
      t("ClusterRoleBinding"),
      undefined,
      { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", metadata: { name: `b-${i}` }, roleRef, subjects },
      {},
    );
  }
  const subjects = [{ kind: "ServiceAccount", name: "bench", namespace: "ns-0" }];
  sb.api.create(
    t("ClusterRoleBinding"),
    undefined,
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", metadata: { name: "zz-bench" }, roleRef, subjects },
    {},
  );
}

async function timeGet(sb: Sandbox, path: string): Promise<number> {
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const { wallMs } = await measured(async () => {
      const res = await fetch(`${sb.url}${path}`);
      if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
      await res.arrayBuffer();
    });
    times.push(wallMs);
  }
  return median(times);
}

/** A watch on services in each namespace; the time from one write in ns-1 until its watch saw it. */
async function fanout(sb: Sandbox): Promise<number> {
  const services = sb.api.registry.findKind("v1", "Service")!;
  const aborts: AbortController[] = [];
  let seen: () => void = () => {};
  for (let n = 0; n < NAMESPACES; n++) {
    const ac = new AbortController();
    aborts.push(ac);
    const res = await fetch(`${sb.url}/api/v1/namespaces/ns-${n}/services?watch=true&resourceVersion=${sb.store.resourceVersion}`, {
      signal: ac.signal,
    });
    const reader = res.body!.getReader();
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          if (decoder.decode(value).includes('"MODIFIED"')) seen();
        }
      } catch {
        // aborted
      }
    })();
  }
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const done = new Promise<void>((resolve) => (seen = resolve));
    const { wallMs } = await measured(async () => {
      const current = sb.api.get(services, "ns-1", "svc-1");
      sb.api.update(
        services,
        "ns-1",
        "svc-1",
        { ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, run: String(r) } } },
        { fieldManager: "bench" },
      );
      await done;
    });
    times.push(wallMs);
  }
  for (const a of aborts) a.abort();
  return median(times);
}

function accessReview(sb: Sandbox): number {
  const review = sb.api.registry.findKind("authorization.k8s.io/v1", "SelfSubjectAccessReview")!;
  const user = {
    name: "system:serviceaccount:ns-0:bench",
    groups: ["system:serviceaccounts", "system:serviceaccounts:ns-0", "system:authenticated"],
  };
  const body = (): KubeObject => ({
    apiVersion: "authorization.k8s.io/v1",
    kind: "SelfSubjectAccessReview",
    metadata: {},
    spec: { resourceAttributes: { verb: "list", resource: "services" } },
  });
  const times: number[] = [];
  for (let r = 0; r < 50; r++) {
    const t = performance.now();
    const out = sb.api.create(review, undefined, body(), { user });
    times.push(performance.now() - t);
    if (!(out.object.status as { allowed?: boolean }).allowed) throw new Error("the review should be allowed by zz-bench");
  }
  return median(times);
}

async function measure(objects: number): Promise<SizeFigures> {
  const sb = await startSandbox({ name: "bench", historyLimit: 10_000 });
  try {
    Bun.gc(true);
    const seeded = await measured(() => seed(sb, objects));
    seedRbac(sb, Math.round(objects / 20));
    const f: SizeFigures = {
      objects,
      seedCpuUsPerObject: (seeded.cpuMs / objects) * 1000,
      seedWallUsPerObject: (seeded.wallMs / objects) * 1000,
      listAllMs: await timeGet(sb, "/api/v1/services"),
      listNamespaceMs: await timeGet(sb, "/api/v1/namespaces/ns-7/services"),
      listOneLabelMs: await timeGet(sb, "/api/v1/services?labelSelector=app%3Dsvc-7"),
      listHalfByLabelMs: await timeGet(sb, "/api/v1/services?labelSelector=mirror.linkerd.io%2Fexported%3Dtrue"),
      fanoutMs: await fanout(sb),
      accessReviewMs: accessReview(sb),
    };
    say(
      `${size(objects)}: seed ${f.seedCpuUsPerObject.toFixed(0)} µs CPU/object, list all ${ms(f.listAllMs)}, one label ${ms(f.listOneLabelMs)}`,
    );
    return f;
  } finally {
    await sb.stop();
  }
}

export const sandbox: Scenario = {
  name: "sandbox",
  title: "Sandbox: per-request cost as the store grows",
  flags: { sizes: { default: "4000,40000", description: "objects stored (Services + Endpoints, half each), smallest first" } },
  async run(flags) {
    const sizes = numbers("sizes", flags.sizes!).sort((a, b) => a - b);
    say("warm-up (2k objects, not counted)");
    const warm = await startSandbox({ name: "warm-up" });
    seed(warm, 2000);
    await warm.stop();
    const results: SizeFigures[] = [];
    for (const n of sizes) results.push(await measure(n));
    const first = results[0]!;
    const last = results[results.length - 1]!;
    const growth = last.seedCpuUsPerObject / first.seedCpuUsPerObject;
    const us = (x: number) => `${x.toFixed(0)} µs`;
    return {
      tables: [
        {
          headers: [
            "objects",
            "seed CPU / object",
            "seed wall / object",
            "list all",
            "list 1 namespace",
            "list 1 label value",
            "list half by label",
            "1 write → its watch (100 watches)",
            "access review",
          ],
          rows: results.map((r) => [
            size(r.objects),
            us(r.seedCpuUsPerObject),
            us(r.seedWallUsPerObject),
            ms(r.listAllMs),
            ms(r.listNamespaceMs),
            ms(r.listOneLabelMs),
            ms(r.listHalfByLabelMs),
            ms(r.fanoutMs),
            ms(r.accessReviewMs),
          ]),
        },
      ],
      targets: [
        {
          name: `seed cost per object, ${size(last.objects)} / ${size(first.objects)}`,
          want: "≤ 1.3",
          got: ratio(growth),
          met: growth <= 1.3,
        },
        {
          name: `list of 1 label value, ${size(last.objects)} / ${size(first.objects)}`,
          want: "flat",
          got: ratio(last.listOneLabelMs / first.listOneLabelMs),
        },
      ],
      figures: { sizes: results, seedGrowth: growth },
      notes: ["Lists are over HTTP (JSON); seeding and the review are in-process API calls. Medians of 5 (reviews: 50)."],
    };
  },
};
