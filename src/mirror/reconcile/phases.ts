// The plan step of reconcile as ordered phases.
import type { DesiredMirror } from "./desired.ts";
import type { OpResult } from "./execute.ts";
import { headlessEndpoints, type HeadlessDesired } from "./headless.ts";
import { isOwnedMirror } from "./metadata.ts";
import { mirrorConflict, planEndpointMirrors, planMirror, type MirrorOp } from "./plan.ts";
import { desiredSlices, planSlices } from "./slices.ts";
import type { Eps, MirrorSliceObject, RenamedMirror, Snapshot, Svc } from "./read.ts";
import type { OwnedKind } from "./kinds.ts";
import { MIRROR_NAME_ANNOTATION } from "../../model/mirror-names.ts";
import type { EndpointsObject, Meta, MirrorProblem, ServiceObject } from "../types.ts";

// Each phase plans its writes from the snapshot, what should exist, and what the phases before it
// wrote (the server's answers): the namespace, then a headless mirror's endpoint mirrors, then the
// mirror itself — whose Endpoints, for a headless mirror, list the endpoint mirrors' cluster IPs taken
// from those writes (a new endpoint mirror's IP is known only once it exists), never from a re-read.
// With `--mirror-endpoint-slices` (the snapshot has slices) those Endpoints become EndpointSlices: the
// slices phase writes them, and only then are Endpoints left from before deleted, so a mirror is never
// without endpoints while it changes form. Pure; reconcile runs PHASES in order, each one's writes
// done before the next plans.

/** What every phase plans from: the read, what should exist, the target cluster. */
export interface PhaseInput {
  snapshot: Snapshot;
  desired: DesiredMirror;
  cluster: string;
}

/** One step of the plan; a new kind of output (reconcile/kinds.ts) is a new phase, planned from its desired function's result. */
export interface Phase {
  name: string;
  /** This phase's writes, given what the phases before it wrote. */
  plan(input: PhaseInput, written: readonly OpResult[]): MirrorOp[];
}

/** In order. Endpoint mirrors go before the mirror: the headless Endpoints need their cluster IPs, and an unexport (or a foreign name holder) removes them before the headless mirror itself. */
export const PHASES: readonly Phase[] = [
  {
    name: "namespace",
    plan: ({ desired }) => (desired.createNamespace ? [{ verb: "create", kind: "Namespace", object: desired.createNamespace }] : []),
  },
  {
    name: "endpoint mirrors",
    plan: ({ snapshot, desired, cluster }) =>
      planEndpointMirrors(snapshot.foreign ? [] : (desired.headless?.endpointMirrors ?? []), snapshot.endpointMirrors, cluster, {
        endpointSlices: !!snapshot.slices,
      }),
  },
  {
    name: "mirror",
    // A name held by another target's mirror is that one's: nothing is planned for it here.
    plan: ({ snapshot, desired, cluster }, written) =>
      snapshot.holder
        ? []
        : planMirror({ service: desired.service, endpoints: mirrorEndpoints(desired, snapshot, written) }, snapshot.mirror, cluster, {
            endpointSlices: !!snapshot.slices,
          }).ops,
  },
  { name: "endpoint slices", plan: (input, written) => planMirrorSlices(input, written) },
  { name: "retired endpoints", plan: (input, written) => retiredEndpoints(input, written) },
  // After the mirror under its name exists: our mirrors of this target under names it no longer has.
  // A new name refused (held, or no Service name) keeps the old mirror serving, untouched, until it is fixed.
  { name: "old names", plan: ({ snapshot }) => (snapshot.foreign || snapshot.nameProblem ? [] : snapshot.renamed.flatMap(renamedOps)) },
];

/** A mirror under an old name goes with its endpoint mirrors, Endpoints and slices: each endpoint mirror's first, Endpoints and slices before their Service. */
function renamedOps(r: RenamedMirror): MirrorOp[] {
  const del = (kind: OwnedKind, o: { metadata: Meta } | undefined): MirrorOp[] =>
    o
      ? [
          {
            verb: "delete",
            kind,
            namespace: o.metadata.namespace ?? "",
            name: o.metadata.name ?? "",
            ...(o.metadata.uid && { uid: o.metadata.uid }),
          },
        ]
      : [];
  const one = (m: { service: Svc; endpoints?: Eps; slices: readonly MirrorSliceObject[] }) => [
    ...del("Endpoints", m.endpoints),
    ...m.slices.flatMap((x) => del("EndpointSlice", x)),
    ...del("Service", m.service),
  ];
  return [...r.endpointMirrors.flatMap(one), ...one(r)];
}

/** With slices: the mirror's and each endpoint mirror's slices, from the Endpoints they would have had (none for a Service going away). */
function planMirrorSlices({ snapshot, desired }: PhaseInput, written: readonly OpResult[]): MirrorOp[] {
  if (!snapshot.slices) return [];
  const want = new Map<string, ReturnType<typeof desiredSlices>>();
  if (!snapshot.foreign) {
    for (const m of desired.headless?.endpointMirrors ?? []) want.set(m.service.metadata.name ?? "", desiredSlices(m.endpoints));
    const ep = desired.service ? mirrorEndpoints(desired, snapshot, written) : null;
    if (ep) want.set(desired.mirrorName, desiredSlices(ep));
  }
  const names = new Set([...snapshot.slices.keys(), ...want.keys()]);
  return [...names].sort().flatMap((n) => planSlices(want.get(n) ?? [], snapshot.slices?.get(n) ?? []));
}

/** With slices: our Endpoints of the mirror and its endpoint mirrors, once their slices are written (those not deleted already). */
function retiredEndpoints({ snapshot, cluster }: PhaseInput, written: readonly OpResult[]): MirrorOp[] {
  if (!snapshot.slices) return [];
  const gone = new Set(written.flatMap((r) => (r.op.verb === "delete" && r.op.kind === "Endpoints" ? [r.op.name] : [])));
  const all = [snapshot.mirror.endpoints, ...snapshot.endpointMirrors.endpoints.values()];
  return all.flatMap((ep): MirrorOp[] => {
    const m = ep?.metadata;
    if (!m || gone.has(m.name ?? "") || !isOwnedMirror(m, cluster)) return [];
    return [{ verb: "delete", kind: "Endpoints", namespace: m.namespace ?? "", name: m.name ?? "", ...(m.uid && { uid: m.uid }) }];
  });
}

/** A foreign Service (or another target's mirror) holds the mirror's name: nothing is planned for it, and this is the problem to report. */
export function conflictOf({ snapshot, desired, cluster }: PhaseInput): MirrorProblem | null {
  const held = snapshot.mirror.service;
  if (!desired.service || !held || !snapshot.holder) return mirrorConflict(desired.service, held, cluster);
  const ref = { namespace: held.metadata.namespace ?? "", name: held.metadata.name ?? "" };
  return {
    reason: "Error",
    message: `Service ${ref.namespace}/${ref.name} is the mirror of ${snapshot.holder} from ${cluster}; left alone (name one of them with the annotation ${MIRROR_NAME_ANNOTATION})`,
    localRef: ref,
  };
}

function mirrorEndpoints(desired: DesiredMirror, snapshot: Snapshot, written: readonly OpResult[]): EndpointsObject | null {
  if (!desired.headless) return desired.endpoints;
  return headlessEndpoints(desired.headless, endpointMirrorIPs(desired.headless, snapshot.endpointMirrors.services, written));
}

/** Each endpoint mirror's cluster IP by pod hostname: from what this reconcile wrote, else as read. */
function endpointMirrorIPs(h: HeadlessDesired, read: readonly ServiceObject[], written: readonly OpResult[]): Map<string, string> {
  const byName = new Map<string, ServiceObject>();
  for (const s of read) byName.set(s.metadata.name ?? "", s);
  for (const r of written) if (r.object && r.op.kind === "Service") byName.set(r.object.metadata.name ?? "", r.object as ServiceObject);
  const ips = new Map<string, string>();
  for (const m of h.endpointMirrors) {
    const ip = byName.get(m.service.metadata.name ?? "")?.spec?.clusterIP;
    if (ip) ips.set(m.hostname, ip);
  }
  return ips;
}
