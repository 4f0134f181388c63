// Continuous churn on a target, as its users make it: exported Services added and deleted, their ports and labels changed, unexported and
// exported again — one change every few milliseconds, drawn from a seeded PRNG so a run can be repeated (MC_FAULT_SEED). Written in-process
// (the users are not the component under test, so the API faults do not hit them).
import { applyObjects } from "../../src/demo/apply.ts";
import type { Sandbox } from "../../src/sandbox/index.ts";
import { EXPORTED } from "./expected.ts";

export const NAMESPACES = ["default", "shop", "apps"];

type Rand = () => number;

const pick = <T>(r: Rand, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;

function ports(r: Rand): { name: string; port: number }[] {
  const n = 1 + Math.floor(r() * 3);
  const names = ["http", "grpc", "admin", "metrics"];
  return names.slice(0, n).map((name, i) => ({ name, port: 1000 + Math.floor(r() * 8000) + i }));
}

type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  [k: string]: unknown;
};

export function serviceObjects(r: Rand, namespace: string, name: string, labels: Record<string, string>): Manifest[] {
  const p = ports(r);
  return [
    { apiVersion: "v1", kind: "Service", metadata: { name, namespace, labels }, spec: { ports: p } },
    {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name, namespace, labels },
      subsets: [
        {
          addresses: [{ ip: `10.1.${Math.floor(r() * 250)}.${1 + Math.floor(r() * 250)}` }],
          ports: p.map((x) => ({ name: x.name, port: x.port + 1 })),
        },
      ],
    },
  ];
}

/** `count` exported Services spread over the namespaces, named svc-0000…; returns their keys. */
export function seedServices(sb: Sandbox, r: Rand, count: number): void {
  for (let i = 0; i < count; i++) {
    const ns = NAMESPACES[i % NAMESPACES.length]!;
    applyObjects(
      sb,
      serviceObjects(r, ns, `svc-${String(i).padStart(4, "0")}`, { [EXPORTED]: "true", tier: pick(r, ["web", "db", "cache"]) }),
    );
  }
}

export interface Churn {
  start(): void;
  /** Stops making changes (each is written at once, so none is left half done). */
  stop(): void;
  /** Makes `n` changes at once. */
  burst(n: number): void;
  /** Changes made so far. */
  readonly changes: number;
}

/** Churn on the sandbox `target()` returns (it may be restarted between changes). */
export function churn(target: () => Sandbox, r: Rand, o: { everyMs: number }): Churn {
  let timer: ReturnType<typeof setInterval> | undefined;
  let made = 0;
  let next = 0;
  const services = { group: "", plural: "services" };
  const step = () => {
    const sb = target();
    const all = sb.store.scan(services).filter((s) => s.metadata.name!.startsWith("svc-"));
    const victim = all.length > 0 ? pick(r, all) : undefined;
    const type = sb.api.registry.find("", "v1", "services")!;
    const eps = sb.api.registry.find("", "v1", "endpoints")!;
    const op = r();
    if (op < 0.25 || !victim) {
      applyObjects(sb, serviceObjects(r, pick(r, NAMESPACES), `svc-new-${next++}`, { [EXPORTED]: "true", tier: pick(r, ["web", "db"]) }));
    } else if (op < 0.4) {
      const { namespace, name } = victim.metadata;
      sb.api.delete(type, namespace, name!);
      if (sb.store.get(eps, namespace, name!)) sb.api.delete(eps, namespace, name!);
    } else if (op < 0.6) {
      const svc = structuredClone(victim);
      (svc.spec as { ports: unknown }).ports = ports(r);
      sb.api.update(type, svc.metadata.namespace, svc.metadata.name!, svc, { fieldManager: "churn" });
    } else if (op < 0.8) {
      const svc = structuredClone(victim);
      svc.metadata.labels = { ...svc.metadata.labels, gen: String(made) };
      sb.api.update(type, svc.metadata.namespace, svc.metadata.name!, svc, { fieldManager: "churn" });
    } else {
      // Unexport an exported one, or export an unexported one again.
      const svc = structuredClone(victim);
      const exported = svc.metadata.labels?.[EXPORTED] === "true";
      const { [EXPORTED]: _drop, ...rest } = svc.metadata.labels ?? {};
      svc.metadata.labels = exported ? rest : { ...rest, [EXPORTED]: "true" };
      sb.api.update(type, svc.metadata.namespace, svc.metadata.name!, svc, { fieldManager: "churn" });
    }
    made++;
  };
  return {
    start() {
      timer ??= setInterval(step, o.everyMs);
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
    burst(n) {
      for (let i = 0; i < n; i++) step();
    },
    get changes() {
      return made;
    },
  };
}
