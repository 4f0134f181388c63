// The liveness-only path of a gateway flip: a key whose mirror nothing but the gateway's liveness changed since its last full reconcile
// gets only its mirror Endpoints rewritten (ready ↔ not ready), from what that reconcile wanted; anything else takes the full reconcile.
import type { Execute } from "./execute.ts";
import { isOwnedMirror } from "./metadata.ts";
import { planEndpointsUpdate, type MirrorOp } from "./plan.ts";
import type { Eps } from "./read.ts";
import type { LocalView } from "./view.ts";
import type { ServiceKey } from "../sources/keys.ts";
import type { EndpointSubset, EndpointsObject } from "../types.ts";

// A full reconcile's desired mirror depends on the liveness only through the gateway subsets of its
// Endpoints (the mirror's, and each endpoint mirror's): so while nothing else has changed, moving those
// subsets' addresses between ready and not ready gives what a full reconcile would want. "Nothing
// else changed" is kept per key (CleanKeys): any queueing of the key that is not a liveness flip —
// an event on either cluster, a resync, a missed event, a retry — ends it until the key's next full
// reconcile, and a full reconcile that was touched while it ran records nothing. The path gives up
// (the key takes its full reconcile) when the gateway's addresses changed or an Endpoints it would
// rewrite is not in the view. EndpointSlice mirrors always take the full reconcile.

/** What a full reconcile left: the mirror Endpoints it wanted, and the liveness and gateway addresses they were made for. */
export interface GatewayEndpoints {
  alive: boolean;
  addresses: readonly string[];
  /** Ours, written by that reconcile (or already right); none for a mirror without Endpoints (remote discovery, a conflict). */
  endpoints: readonly EndpointsObject[];
}

/** Keys whose mirror is still what their last full reconcile made, with what it made. */
export class CleanKeys {
  private readonly made = new Map<ServiceKey, GatewayEndpoints>();
  /** Touched since their last full reconcile began. */
  private readonly touched = new Set<ServiceKey>();
  private seq = 0;
  /** The `seq` of the last touchAll. */
  private allTouched = 0;

  /** The key was queued for something other than liveness: its next reconcile is a full one. */
  touch(key: ServiceKey): void {
    this.touched.add(key);
    this.made.delete(key);
  }

  /** Every key was (a resync). */
  touchAll(): void {
    this.allTouched = ++this.seq;
    this.made.clear();
  }

  /** A full reconcile of `key` begins; its ticket goes to `end`. */
  begin(key: ServiceKey): number {
    this.touched.delete(key);
    this.made.delete(key);
    return ++this.seq;
  }

  /** A full reconcile ended well: what it made is kept, unless the key was touched while it ran (it is queued again then). */
  end(key: ServiceKey, ticket: number, made: GatewayEndpoints | null): void {
    if (made && !this.touched.has(key) && this.allTouched < ticket) this.made.set(key, made);
  }

  /** What `key`'s last full reconcile made, when nothing but the liveness may have changed since. */
  get(key: ServiceKey): GatewayEndpoints | undefined {
    return this.made.get(key);
  }

  /** After the liveness-only path: what it made replaces what it started from, unless the key was touched meanwhile. */
  flipped(key: ServiceKey, from: GatewayEndpoints, to: GatewayEndpoints): void {
    if (this.made.get(key) === from) this.made.set(key, to);
  }

  /** The liveness-only path failed: the key's next reconcile is a full one. */
  forget(key: ServiceKey): void {
    this.made.delete(key);
  }
}

/** `ep` with every subset's addresses ready (alive) or not ready: what gatewaySubsets gives for that liveness. */
function withLiveness(ep: EndpointsObject, alive: boolean): EndpointsObject {
  const subsets = (ep.subsets ?? []).map((s): EndpointSubset => {
    const { addresses, notReadyAddresses, ...rest } = s;
    const all = [...(addresses ?? []), ...(notReadyAddresses ?? [])];
    return all.length > 0 ? { [alive ? "addresses" : "notReadyAddresses"]: all, ...rest } : rest;
  });
  return { ...ep, subsets };
}

export interface LivenessDeps {
  endpoints: LocalView<Eps>;
  execute: Execute;
  cluster: string;
}

/**
 * The liveness-only path for one key: its Endpoints as `made` wanted them, for `alive`, written where
 * the mirror differs (all at once). Resolves with what it made and how many writes, or undefined when
 * the path does not apply and the key needs its full reconcile.
 */
export async function rewriteLiveness(
  d: LivenessDeps,
  made: GatewayEndpoints,
  now: { alive: boolean; addresses: readonly string[] },
): Promise<{ made: GatewayEndpoints; writes: number } | undefined> {
  if (!sameStrings(made.addresses, now.addresses)) return undefined;
  if (made.alive === now.alive) return { made, writes: 0 };
  const endpoints = made.endpoints.map((ep) => withLiveness(ep, now.alive));
  const ops: MirrorOp[] = [];
  for (const want of endpoints) {
    const actual = d.endpoints.get(want.metadata.namespace, want.metadata.name ?? "");
    if (!actual || !isOwnedMirror(actual.metadata, d.cluster)) return undefined;
    const op = planEndpointsUpdate(want, actual);
    if (op) ops.push(ops.length > 0 ? { ...op, concurrent: true } : op);
  }
  const done = ops.length > 0 ? await d.execute(ops) : [];
  return { made: { alive: now.alive, addresses: made.addresses, endpoints }, writes: done.length };
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
