// A steppable MirrorController on the kit's pair (test/helpers/clusters.ts): tests change a
// cluster, wait until the controller's cache has seen that change (an event, never a sleep),
// drain the queue, then assert; and readers of what the sandboxes hold.
import type { Informer, KubeObject } from "../../src/kube/index.ts";
import type { Logger } from "../../src/log.ts";
import { MirrorController, type MirrorControllerOptions } from "../../src/mirror/controller.ts";
import { createMetrics } from "../../src/metrics.ts";
import { LinkSupervisor, type ConnectRemote, type SupervisorState } from "../../src/serve/supervisor.ts";
import type { EndpointsObject } from "../../src/mirror/types.ts";
import { linkResource, parseLink, type Link } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import type { Sandbox } from "../../src/sandbox/index.ts";
import type { Pair } from "../helpers/clusters.ts";
import { within } from "../kube/helpers.ts";
import { fakeResolver, linkObject, type LinkFixture } from "./fixtures.ts";

export const quiet: Logger = { error() {}, warn() {}, info() {}, debug() {} };

/** A manual (steppable) controller for `link`, not started; stopped with the pair. */
export function manualController(pair: Pair, link: Link, opts: Partial<MirrorControllerOptions> = {}): MirrorController {
  const ctl = new MirrorController({
    link,
    namespace: link.namespace,
    local: pair.westClient,
    remote: pair.eastClient,
    manual: true,
    resolver: fakeResolver({}),
    log: quiet,
    queueBackoff: { initialMs: 5, maxMs: 40 },
    informerBackoff: { initialMs: 20, maxMs: 200 },
    ...opts,
  });
  pair.controllers.push(ctl);
  return ctl;
}

/** Creates the Link in west and starts a manual (steppable) controller for it; resolves once synced and drained. */
export async function startController(
  pair: Pair,
  fixture: LinkFixture = {},
  opts: Partial<MirrorControllerOptions> = {},
  beforeStart?: (ctl: MirrorController) => void,
): Promise<MirrorController> {
  const ctl = manualController(pair, parseLink(await pair.westClient.create(linkResource, linkObject(fixture))), opts);
  beforeStart?.(ctl);
  ctl.start();
  await within(ctl.synced, "the controller to sync");
  await ctl.drain();
  return ctl;
}

/** Total successful writes a sandbox has served. */
export function writes(sb: Sandbox): number {
  const w = sb.store.writes;
  return w.create + w.update + w.patch + w.delete;
}

/** Whether resourceVersion `have` is `want` or later (numerically; equal when either is not a number). */
function atLeast(have: string | undefined, want: string | undefined): boolean {
  if (have === want) return true;
  if (!have || !want || !/^\d+$/.test(have) || !/^\d+$/.test(want)) return false;
  return BigInt(have) >= BigInt(want);
}

/**
 * Resolves once the informer's cache holds `obj` at its resourceVersion or a later one (or, for `gone`, no
 * longer holds it). Since the controller subscribed first, its key is queued by then.
 */
export function cached<T extends KubeObject>(informer: Informer<T> | undefined, obj: KubeObject, gone = false): Promise<void> {
  if (!informer) throw new Error("no such informer");
  const { namespace, name = "" } = obj.metadata;
  // This version or a later one: the controller may write the object again (a status) before the caller looks, and a cache
  // that moved past the version asked for has seen it (resourceVersions here are etcd's and the sandbox's counters).
  const done = () => {
    const have = informer.cache.get(namespace, name);
    return gone ? have === undefined : have !== undefined && atLeast(have.metadata.resourceVersion, obj.metadata.resourceVersion);
  };
  if (done()) return Promise.resolve();
  return within(
    new Promise<void>((resolve) => {
      const off = informer.on(() => {
        if (done()) {
          off();
          resolve();
        }
      });
    }),
    `${gone ? "deletion of" : ""} ${obj.kind ?? "object"} ${namespace}/${name} in the cache`,
  );
}

/** Reads an object from a sandbox's store (no HTTP, no write counted). */
export function read(
  sb: Sandbox,
  plural: "services" | "endpoints" | "events" | "namespaces",
  namespace: string | undefined,
  name: string,
): KubeObject | undefined {
  return sb.store.get({ group: "", plural }, namespace, name) as KubeObject | undefined;
}

export function readEndpoints(sb: Sandbox, namespace: string, name: string): EndpointsObject | undefined {
  return read(sb, "endpoints", namespace, name) as EndpointsObject | undefined;
}

export function list(sb: Sandbox, plural: "services" | "endpoints" | "events", namespace?: string): KubeObject[] {
  return sb.store.list({ group: "", plural }, namespace === undefined ? {} : { namespace }) as KubeObject[];
}

export function readLink(sb: Sandbox, name = "east"): KubeObject | undefined {
  return sb.store.get({ group: "multicluster.linkerd.io", plural: "links" }, DEFAULT_NAMESPACE, name) as KubeObject | undefined;
}

/** Resolves once the supervisor reaches `state` (at once if it is there already). */
export function untilStatus(s: LinkSupervisor, state: SupervisorState): Promise<void> {
  if (s.status === state) return Promise.resolve();
  return within(
    new Promise<void>((resolve) => {
      const off = s.onStatus((now) => {
        if (now !== state) return;
        off();
        resolve();
      });
    }),
    `the supervisor to be ${state}`,
  );
}

/** A supervisor of the Link `east` in west (not started), with short backoffs and quiet logs. */
export function linkSupervisor(pair: Pair, o: { connect?: ConnectRemote } = {}): LinkSupervisor {
  return new LinkSupervisor({
    local: pair.westClient,
    namespace: DEFAULT_NAMESPACE,
    linkName: "east",
    metrics: createMetrics(),
    log: quiet,
    ...(o.connect && { connect: o.connect }),
    controller: {
      resolver: fakeResolver({}),
      log: quiet,
      informerBackoff: { initialMs: 20, maxMs: 100 },
      queueBackoff: { initialMs: 5, maxMs: 40 },
    },
  });
}

/** Resolves with the next controller the supervisor starts, once it has synced and drained. */
export function nextController(s: LinkSupervisor): Promise<MirrorController> {
  return within(
    new Promise<MirrorController>((resolve) => {
      const off = s.onController((c) => {
        if (!c) return;
        off();
        void c.synced.then(() => c.drain()).then(() => resolve(c));
      });
    }),
    "a controller to start and sync",
  );
}
