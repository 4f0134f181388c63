// The limit a controller is measured against: a plain client (mc's kube layer, the transport the
// controller writes through, and nothing else: no informers, queue or reconcile) sending a list
// of writes to a sandbox with `c` requests in flight, at the best `c` it finds.
import { resources, type KubeClient } from "../../src/kube/index.ts";
import { say } from "./scenario.ts";

/** Runs `write(i)` for i in [0, count) with `concurrency` in flight; resolves with the wall ms. */
export async function writeAll(count: number, concurrency: number, write: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const t = performance.now();
  const worker = async () => {
    while (next < count) await write(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return performance.now() - t;
}

export const CONCURRENCIES = [1, 4, 16, 64];

/**
 * The concurrency that writes fastest: each candidate writes `sample` items (from `from` on) and
 * the one with the shortest time wins. Returns it and the next unused index.
 */
export async function bestConcurrency(
  sample: number,
  from: number,
  write: (i: number) => Promise<unknown>,
  candidates = CONCURRENCIES,
): Promise<{ concurrency: number; next: number; perSecond: Record<number, number> }> {
  const perSecond: Record<number, number> = {};
  let next = from;
  for (const c of candidates) {
    const start = next;
    const ms = await writeAll(sample, c, (i) => write(start + i));
    next += sample;
    perSecond[c] = (sample / ms) * 1000;
  }
  const concurrency = Number(Object.entries(perSecond).sort(([, a], [, b]) => b - a)[0]![0]);
  say(
    `plain client: ${Object.entries(perSecond)
      .map(([c, r]) => `${c} in flight ${r.toFixed(0)}/s`)
      .join(", ")} → ${concurrency}`,
  );
  return { concurrency, next, perSecond };
}

/** Creates `obj` (a Service or Endpoints) through `client`. */
export function createThrough(client: KubeClient, obj: { kind: string; metadata: { namespace: string } }): Promise<unknown> {
  return client.create(obj.kind === "Service" ? resources.service : resources.endpoints, obj as never, { fieldManager: "mc-bench-limit" });
}
