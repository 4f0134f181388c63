// reconcile(key) for one target Service: read the target from the remote caches and the mirror
// from the local view, compute what should exist (desiredMirror), plan the difference (plan),
// write it, and record the outcome. Level-triggered: it does not care which event woke it, so
// creation, update, unexport, deletion, orphan GC and repair are all the same code path.
import type { KubeObject, ReadonlyCache } from "../kube/index.ts";
import { CLUSTER_NAME, HEADLESS_MIRROR_SVC_NAME } from "../model/labels.ts";
import type { Link } from "../model/link.ts";
import { mirrorName } from "../model/names.ts";
import type { Logger } from "../log.ts";
import { desiredGatewayMirror, desiredMirror } from "./desired.ts";
import type { RecordEvent } from "./events.ts";
import type { Execute, OpResult } from "./execute.ts";
import { headlessEndpoints } from "./headless.ts";
import { remoteNameOf } from "./keys.ts";
import { isOwnedMirror } from "./metadata.ts";
import type { Outcome, Outcomes } from "./outcomes.ts";
import { isHeadless, planEndpointMirrors, planGatewayMirror, planMirror, type MirrorOp } from "./plan.ts";
import type { EndpointsObject, MirrorProblem, ResolvedGateway, ServiceObject } from "./types.ts";
import type { LocalView } from "./view.ts";

export type Svc = ServiceObject & KubeObject;
export type Eps = EndpointsObject & KubeObject;

export interface ReconcileContext {
  link: Link;
  cluster: string;
  /** The Link's namespace (the gateway mirror lives there). */
  namespace: string;
  probeService: string;
  enableHeadless: boolean;
  enableNamespaceCreation: boolean;
  /** null when the Link exports nothing (no selector, or no gateway). */
  remoteServices: ReadonlyCache<Svc> | null;
  remoteEndpoints: ReadonlyCache<Eps> | null;
  services: LocalView<Svc>;
  endpoints: LocalView<Eps>;
  namespaces: ReadonlyCache<KubeObject>;
  gateway(): ResolvedGateway | null;
  alive(): boolean;
  execute: Execute;
  outcomes: Outcomes;
  /** Events on target Services (target cluster) and on local Services. */
  remoteEvent: RecordEvent;
  localEvent: RecordEvent;
  /** Told when the failure list changed (the Link status needs a write). */
  failuresChanged(): void;
  log: Logger;
}

export async function reconcileService(ctx: ReconcileContext, namespace: string, name: string): Promise<void> {
  const c = ctx.cluster;
  const remote = { service: ctx.remoteServices?.get(namespace, name), endpoints: ctx.remoteEndpoints?.get(namespace, name) };
  const mirror = mirrorName(name, c);
  const actual = { service: ctx.services.get(namespace, mirror), endpoints: ctx.endpoints.get(namespace, mirror) };
  const owned = actual.service && isOwnedMirror(actual.service.metadata, c) ? actual.service : undefined;
  const foreign = actual.service !== undefined && owned === undefined;
  const desired = desiredMirror(
    ctx.link,
    remote,
    ctx.gateway(),
    ctx.alive(),
    {
      enableHeadless: ctx.enableHeadless,
      enableNamespaceCreation: ctx.enableNamespaceCreation,
      namespaceExists: ctx.namespaces.get(undefined, namespace) !== undefined,
      ...(owned && { currentMirror: isHeadless(owned) ? "headless" : "clusterIP" }),
    },
    { namespace, name },
  );

  const done: OpResult[] = [];
  if (desired.createNamespace) done.push(...(await ctx.execute([{ verb: "create", kind: "Namespace", object: desired.createNamespace }])));

  // Endpoint mirrors first: the headless mirror's Endpoints need their cluster IPs (and an
  // unexport removes them before the headless mirror itself).
  const epMirrors = ctx.services.indexed(endpointMirrorIndex(namespace, mirror));
  const epMirrorEndpoints = new Map(epMirrors.map((s) => [s.metadata.name ?? "", ctx.endpoints.get(namespace, s.metadata.name ?? "")] as const).filter((e): e is [string, Eps] => !!e[1]));
  const wanted = foreign ? [] : (desired.headless?.endpointMirrors ?? []);
  done.push(...(await ctx.execute(planEndpointMirrors(wanted, { services: epMirrors, endpoints: epMirrorEndpoints }, c))));

  let endpoints = desired.endpoints;
  if (desired.headless) {
    const ips = new Map<string, string>();
    for (const s of ctx.services.indexed(endpointMirrorIndex(namespace, mirror))) {
      const hostname = remoteNameOf(s.metadata.name ?? "", c);
      if (hostname && s.spec?.clusterIP) ips.set(hostname, s.spec.clusterIP);
    }
    endpoints = headlessEndpoints(desired.headless, ips);
  }
  const plan = planMirror({ service: desired.service, endpoints }, actual, c);
  done.push(...(await ctx.execute(plan.ops)));

  const problem: MirrorProblem | null = desired.problem ?? plan.conflict;
  const outcome: Outcome = problem
    ? { state: "problem", problem }
    : desired.service
      ? { state: "mirrored" }
      : remote.service
        ? waitingOrAbsent(ctx, remote.service)
        : { state: "absent" };
  logOps(ctx, namespace, name, mirror, done, !!desired.headless);
  const t = ctx.outcomes.record(`${namespace}/${name}`, outcome);
  if (t.failuresChanged) ctx.failuresChanged();
  if (t.newProblem) {
    ctx.log.warn(`not mirroring ${namespace}/${name}: ${t.newProblem.message}`);
    if (desired.remoteEvent && remote.service) await ctx.remoteEvent(remote.service, "Normal", desired.remoteEvent.reason, desired.remoteEvent.message);
    if (plan.conflict && actual.service) {
      await ctx.localEvent(actual.service, "Warning", "ServiceMirroringSkipped", `Skipped mirroring ${namespace}/${name} from ${c}: this Service is not a mirror of ${c}`);
    }
  }
}

/** The index key of a headless mirror's endpoint mirrors: `ns/<headless mirror name>`. */
export function endpointMirrorIndex(namespace: string, headlessMirror: string): string {
  return `${namespace}/${headlessMirror}`;
}

/** Index function for local Services: endpoint mirrors of `cluster` by their headless mirror. */
export function byHeadlessMirror(cluster: string): (svc: Svc) => string | undefined {
  return (svc) => {
    const labels = svc.metadata.labels;
    const owner = labels?.[CLUSTER_NAME] === cluster ? labels[HEADLESS_MIRROR_SVC_NAME] : undefined;
    return owner ? endpointMirrorIndex(svc.metadata.namespace ?? "", owner) : undefined;
  };
}

/** An exported target with no mirror and no problem: a headless one waiting for endpoints, or a Link with no gateway. */
function waitingOrAbsent(ctx: ReconcileContext, svc: Svc): Outcome {
  return ctx.gateway() && svc.spec?.clusterIP === "None" ? { state: "waiting" } : { state: "absent" };
}

export async function reconcileGatewayMirror(ctx: ReconcileContext): Promise<void> {
  const desired = desiredGatewayMirror(ctx.link, ctx.gateway(), ctx.probeService, ctx.namespace);
  const actual = ctx.endpoints.get(ctx.namespace, ctx.probeService);
  const ops = planGatewayMirror(desired, actual, ctx.cluster);
  await ctx.execute(ops);
  for (const op of ops) {
    const where = `Endpoints ${ctx.namespace}/${ctx.probeService}`;
    if (op.verb === "delete") ctx.log.info(`deleted gateway mirror ${where}`);
    else ctx.log.info(`gateway mirror ${where} ${op.verb === "create" ? "points" : "now points"} at ${addressesOf(desired)}`);
  }
}

function addressesOf(ep: EndpointsObject | null): string {
  const ips = (ep?.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
  return ips.length > 0 ? ips.join(", ") : "no addresses";
}

/** One line per transition of the mirror Service; Endpoints-only changes at debug. */
function logOps(ctx: ReconcileContext, namespace: string, name: string, mirror: string, done: readonly OpResult[], headless: boolean): void {
  const main = done.filter((r) => r.op.kind === "Service" && nameOf(r.op) === mirror).map((r) => r.op);
  const created = main.some((op) => op.verb === "create");
  const deleted = main.some((op) => op.verb === "delete");
  const updated = main.find((op): op is Extract<MirrorOp, { verb: "update" }> => op.verb === "update");
  const epMirrors = done.filter((r) => r.op.kind === "Service" && nameOf(r.op) !== mirror).length;
  const extra = epMirrors > 0 ? ` (${epMirrors} endpoint mirror change${epMirrors === 1 ? "" : "s"})` : "";
  if (created && deleted) ctx.log.info(`re-created mirror ${namespace}/${mirror} as ${headless ? "headless" : "ClusterIP"}${extra}`);
  else if (created) ctx.log.info(`mirrored ${namespace}/${name} as ${namespace}/${mirror}${headless ? " (headless)" : ""}${extra}`);
  else if (deleted) ctx.log.info(`deleted mirror ${namespace}/${mirror}: ${namespace}/${name} is no longer exported by ${ctx.cluster}${extra}`);
  else if (updated) ctx.log.info(`updated mirror ${namespace}/${mirror}: ${updated.changed.join(", ")}${extra}`);
  else if (done.length > 0) ctx.log.debug(`updated endpoints of ${namespace}/${mirror}${extra}`);
}

function nameOf(op: MirrorOp): string {
  return op.verb === "delete" ? op.name : (op.object.metadata.name ?? "");
}
