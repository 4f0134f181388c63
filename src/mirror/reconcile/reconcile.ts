// reconcile(key) for one target Service, in five steps: read the target from the remote caches and the mirror from the local views
// (readSnapshot), compute what should exist (desiredMirror), plan the difference as ordered phases (PHASES), write each phase in turn
// (execute), and record the outcome (outcomeOf: status entry, Events, log lines).
import type { Link } from "../../model/link.ts";
import type { Logger } from "../../log.ts";
import { desiredGatewayMirror, desiredMirror, type DesiredMirror } from "./desired.ts";
import type { GatewayEndpoints } from "./liveness.ts";
import type { RecordEvent } from "../status/events.ts";
import type { Execute, OpResult } from "./execute.ts";
import type { ServiceKey } from "../sources/keys.ts";
import type { MirrorNameClaims } from "../sources/claims.ts";
import type { Outcomes } from "./outcomes.ts";
import { conflictOf, PHASES, type PhaseInput } from "./phases.ts";
import { planGatewayMirror, type MirrorOp } from "./plan.ts";
import { readSnapshot, sliceIndex, type MirrorCaches, type Snapshot } from "./read.ts";
import { desiredSlices, planSlices } from "./slices.ts";
import { CLUSTER_NAME } from "../../model/labels.ts";
import type { MirrorSettings } from "../../model/mirror-settings.ts";
import type { EndpointsObject, ResolvedGateway } from "../types.ts";

// Level-triggered: it does not care which event woke it, so creation, update, unexport, deletion,
// orphan GC and repair are all the same code path.

/** What the controller knows of its Link right now: the Link, its flags, its gateway and liveness. */
interface LinkView {
  link: Link;
  /** The Link's namespace (the gateway mirror lives there). */
  namespace: string;
  /** The resolved probe Service (its setting, or `probe-gateway-<cluster>`). */
  probeService: string;
  settings: MirrorSettings;
  /** null: the Link has no gateway. */
  gateway(): ResolvedGateway | null;
  alive(): boolean;
}

/** Where writes go: mirror objects (through the local view), and Events on either cluster. */
interface MirrorWriter {
  execute: Execute;
  /** Events on target Services (target cluster) and on local Services. */
  remoteEvent: RecordEvent;
  localEvent: RecordEvent;
}

export interface ReconcileDeps {
  link: LinkView;
  caches: MirrorCaches;
  writer: MirrorWriter;
  /** The record step's memory (gauges, Link status failures). */
  outcomes: Outcomes;
  /** Which key wants which mirror name (so an event on a foreign holder requeues it); recorded here. */
  claims?: MirrorNameClaims;
  /**
   * Without `--mirror-endpoint-slices`: called when an existing mirror gets its Endpoints again —
   * the setting was just turned off, so mc's slices from before may be left (slices-sweep.ts).
   */
  endpointsRecreated?: () => void;
  log: Logger;
}

/** What one reconcile did: its writes, and (liveness.ts) the mirror Endpoints it made through the gateway; null: EndpointSlices. */
export interface ServiceReconciled {
  writes: number;
  made: GatewayEndpoints | null;
}

/** Reconciles one target Service. */
export async function reconcileService(d: ReconcileDeps, key: ServiceKey): Promise<ServiceReconciled> {
  const { link, settings } = d.link;
  const cluster = link.targetClusterName;
  const snapshot = readSnapshot(d.caches, cluster, key, settings.mirrorNameTemplate, settings.namespaceMap);
  if (snapshot.remote.service) d.claims?.claim(key, snapshot.localNamespace, snapshot.mirrorName);
  else d.claims?.release(key);
  const gateway = d.link.gateway();
  const alive = d.link.alive();
  const desired = desiredMirror({
    link,
    key: { namespace: snapshot.namespace, name: snapshot.name },
    localNamespace: snapshot.localNamespace,
    mirrorName: snapshot.mirrorName,
    ...(snapshot.nameProblem && { nameProblem: snapshot.nameProblem }),
    mirrorNameTemplate: settings.mirrorNameTemplate,
    remote: snapshot.remote,
    gateway,
    alive,
    enableHeadlessServices: settings.enableHeadlessServices,
    enableNamespaceCreation: settings.enableNamespaceCreation,
    namespaceExists: snapshot.namespaceExists,
    namespaceSelected: snapshot.namespaceSelected,
    ...(snapshot.currentMirror && { currentMirror: snapshot.currentMirror }),
  });
  const plan: PhaseInput = { snapshot, desired, cluster };
  const done = await runPhases(plan, d.writer.execute);
  if (
    !snapshot.slices &&
    snapshot.mirror.service &&
    !snapshot.foreign &&
    done.some((r) => r.op.verb === "create" && r.op.kind === "Endpoints")
  )
    d.endpointsRecreated?.();
  const verdict = d.outcomes.settle({ snapshot, desired, conflict: conflictOf(plan), done });
  for (const line of verdict.logs) d.log[line.level](line.message);
  for (const e of verdict.events)
    await (e.cluster === "remote" ? d.writer.remoteEvent : d.writer.localEvent)(e.on, e.type, e.reason, e.message);
  return { writes: done.length, made: madeEndpoints(snapshot, desired, gateway, alive) };
}

/** The Endpoints a reconcile that ended well made through the gateway (none where a foreign Service holds the name); null with slices. */
function madeEndpoints(
  snapshot: Snapshot,
  desired: DesiredMirror,
  gateway: ResolvedGateway | null,
  alive: boolean,
): GatewayEndpoints | null {
  if (snapshot.slices) return null;
  const endpoints = snapshot.foreign
    ? []
    : [
        ...(desired.headless ? [] : desired.endpoints ? [desired.endpoints] : []),
        ...(desired.headless?.endpointMirrors ?? []).map((m) => m.endpoints),
      ];
  return { alive, addresses: gateway?.addresses ?? [], endpoints: endpoints.filter((ep) => (ep.subsets ?? []).length > 0) };
}

/** Runs the phases in order, each planned from the writes of the ones before it. */
async function runPhases(input: PhaseInput, execute: Execute): Promise<OpResult[]> {
  const done: OpResult[] = [];
  for (const phase of PHASES) {
    const ops = phase.plan(input, done);
    if (ops.length > 0) done.push(...(await execute(ops)));
  }
  return done;
}

export async function reconcileGatewayMirror(d: ReconcileDeps): Promise<void> {
  const { link, namespace, probeService } = d.link;
  const desired = desiredGatewayMirror(link, d.link.gateway(), probeService, namespace);
  const current = d.caches.endpoints.get(namespace, probeService);
  const slices = d.caches.slices;
  const ops = slices
    ? [
        ...planSlices(desired ? desiredSlices(desired) : [], slices.indexed(sliceIndex(namespace, probeService))),
        ...retiredGatewayEndpoints(current, link.targetClusterName),
      ]
    : planGatewayMirror(desired, current, link.targetClusterName);
  await d.writer.execute(ops);
  const form = slices ? "EndpointSlices" : "Endpoints";
  const where = `${form} ${namespace}/${probeService}`;
  if (ops.length === 0) return;
  if (!desired) d.log.info(`deleted gateway mirror ${where}`);
  else if (ops.some((op) => op.verb !== "delete" && op.kind !== "Endpoints"))
    d.log.info(`gateway mirror ${where} ${ops.some((op) => op.verb === "create") ? "points" : "now points"} at ${addressesOf(desired)}`);
}

/** With slices, the gateway mirror's Endpoints from before (ours: our cluster's label) go once its slices are written. */
function retiredGatewayEndpoints(current: EndpointsObject | undefined, cluster: string): MirrorOp[] {
  const m = current?.metadata;
  if (!m || m.labels?.[CLUSTER_NAME] !== cluster) return [];
  return [{ verb: "delete", kind: "Endpoints", namespace: m.namespace ?? "", name: m.name ?? "", ...(m.uid && { uid: m.uid }) }];
}

function addressesOf(ep: EndpointsObject | null): string {
  const ips = (ep?.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
  return ips.length > 0 ? ips.join(", ") : "no addresses";
}
