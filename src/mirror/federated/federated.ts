// Federated services: `<svc>-federated` in the source unions the Service `svc` of every cluster whose Link selects it.
import { MC_LOCAL_DISCOVERY, MC_REMOTE_DISCOVERY, MIRRORED_SERVICE } from "../../model/labels.ts";
import { memberCluster, membersOf, type Members } from "../../model/federated.ts";
import { isSelectedBy, type Link } from "../../model/link.ts";
import { federatedMember, federatedName, federatedTarget } from "../../model/names.ts";
import { isFederatedService, isHeadless } from "../../model/service.ts";
import { serviceKey, type ServiceKey } from "../sources/keys.ts";
import { copiedAnnotations, copiedLabels, ownLabels } from "../reconcile/metadata.ts";
import { serviceChanges, updatedService, type MirrorOp } from "../reconcile/plan.ts";
import { mirrorPorts } from "../reconcile/ports.ts";
import type { Meta, MirrorProblem, ServiceObject } from "../types.ts";

// Federated services (docs/linkerd-compatibility.md#federated): `<svc>-federated` in the source unions the
// Service `svc` of every cluster whose Link selects it with `federatedServiceSelector` — each
// remote member listed as `<svc>@<cluster>` in the annotation `multicluster.linkerd.io/remote-discovery`,
// the local cluster's own `svc` (the local mirror, whose Link has no target cluster) in
// `multicluster.linkerd.io/local-discovery`. No Endpoints: Linkerd's destination unions the members.
//
// Several controllers (one per Link, and the local mirror) write the same Service, so each plans
// only its own membership against what the Service holds now and writes conditionally (the
// caller re-reads and re-plans on a conflict): joining appends, leaving removes, the last one out
// deletes it. Labels, annotations and ports come from the member whose Link is oldest (the local
// member counts as oldest; ties by cluster name); every other member leaves them as they are.
// Members whose Link was seen deleted are dropped by whoever writes next. Pure.

/** What a controller knows of the namespace's Links (src/mirror/federated/link-directory.ts). */
export interface KnownLinks {
  /** The creationTimestamp of the Link of `cluster`; undefined when none is known. */
  createdAt(cluster: string): string | undefined;
  /** Whether the Link of `cluster` was seen deleted, and none exists now. */
  isGone(cluster: string): boolean;
}

/** Knows only `link` itself: nothing is ever dropped, and this Link is the only one with an age. */
export function onlyLink(link: Link): KnownLinks {
  return { createdAt: (c) => (c === link.targetClusterName ? link.creationTimestamp : undefined), isGone: () => false };
}

const HEADLESS_MEMBER_MESSAGE = "Headless service cannot join federated service";

/** The key of a local Service named `<svc>-federated`: the target Service `svc` it federates. */
export function federatedKeyOf(meta: Meta): ServiceKey | undefined {
  const target = federatedTarget(meta.name ?? "");
  return target === undefined ? undefined : serviceKey(meta.namespace ?? "", target);
}

export interface FederatedInput {
  /** The local mirror's Link has targetClusterName "" (its member is the local-discovery one). */
  link: Link;
  key: { namespace: string; name: string };
  /** The Service `key` in the member cluster (undefined: gone, or not selected). */
  target: ServiceObject | undefined;
  /** What holds `<svc>-federated` in the source now. */
  current: ServiceObject | undefined;
  namespaceExists: boolean;
  enableNamespaceCreation: boolean;
  links: KnownLinks;
}

export interface FederatedPlan {
  name: string;
  ops: MirrorOp[];
  /** This cluster is a member once `ops` are done. */
  member: boolean;
  problem: MirrorProblem | null;
  /** The members once `ops` are done: `svc@c`…, then `local:svc`. */
  members: string[];
}

/** This controller's membership in `<svc>-federated`, planned against what the Service holds now. */
export function planFederated(i: FederatedInput): FederatedPlan {
  const { link, key, target, current } = i;
  const cluster = link.targetClusterName;
  const local = cluster === "";
  const name = federatedName(key.name);
  const out = (ops: MirrorOp[], member: boolean, problem: MirrorProblem | null, m: Members): FederatedPlan => ({
    name,
    ops,
    member,
    problem,
    members: [...m.remote, ...(m.local ? [`local:${m.local}`] : [])],
  });

  let eligible = target !== undefined && isSelectedBy(link.federatedServiceSelector, target.metadata.labels);
  let problem: MirrorProblem | null = null;
  if (eligible && isHeadless(target)) {
    eligible = false;
    problem = { reason: "InvalidService", message: HEADLESS_MEMBER_MESSAGE };
  }
  const createNamespace = eligible && !i.namespaceExists && i.enableNamespaceCreation;
  if (eligible && !i.namespaceExists && !i.enableNamespaceCreation) {
    eligible = false;
    problem = { reason: "MissingNamespace", message: `namespace ${key.namespace} does not exist in the source cluster` };
  }
  if (current && !isFederatedService(current)) {
    const ref = { namespace: key.namespace, name };
    const message = `Service ${key.namespace}/${name} exists and is not a federated Service; left alone`;
    return out([], false, eligible ? { reason: "Error", message, localRef: ref } : problem, { remote: [] });
  }

  const self = federatedMember(key.name, cluster);
  const before = membersOf(current?.metadata);
  const remote = before.remote.filter((m) => {
    const c = memberCluster(m);
    return local || c !== cluster ? !i.links.isGone(c) : eligible;
  });
  if (!local && eligible && !remote.includes(self)) remote.push(self);
  const localMember = local ? (eligible ? key.name : undefined) : before.local;
  const after: Members = { remote, ...(localMember && { local: localMember }) };

  if (!current) {
    if (!eligible) return out([], false, problem, after);
    const ns: MirrorOp[] = createNamespace
      ? [
          {
            verb: "create",
            kind: "Namespace",
            object: {
              apiVersion: "v1",
              kind: "Namespace",
              metadata: { name: key.namespace, labels: local ? { [MIRRORED_SERVICE]: "true" } : ownLabels(cluster) },
            },
          },
        ]
      : [];
    return out([...ns, { verb: "create", kind: "Service", object: fromTarget(i, name, after) }], true, null, after);
  }
  if (after.remote.length === 0 && !after.local) {
    const m = current.metadata;
    return out(
      [
        {
          verb: "delete",
          kind: "Service",
          namespace: key.namespace,
          name,
          ...(m.uid && { uid: m.uid }),
          ...(m.resourceVersion && { resourceVersion: m.resourceVersion }),
        },
      ],
      false,
      problem,
      after,
    );
  }
  const desired = eligible && isOldest(i, after) ? fromTarget(i, name, after) : withMembers(current, after);
  const changed = serviceChanges(desired, current);
  const ops: MirrorOp[] =
    changed.length > 0 ? [{ verb: "update", kind: "Service", object: updatedService(current, desired), changed }] : [];
  return out(ops, eligible, problem, after);
}

/** Whether this controller's member is the one whose Link is oldest (the local member always is). */
function isOldest(i: FederatedInput, m: Members): boolean {
  const cluster = i.link.targetClusterName;
  if (cluster === "") return true;
  if (m.local) return false;
  const age = (c: string) => Date.parse((c === cluster ? i.link.creationTimestamp : i.links.createdAt(c)) ?? "");
  const mine = age(cluster);
  if (!Number.isFinite(mine)) return false;
  return m.remote.every((member) => {
    const c = memberCluster(member);
    const theirs = age(c);
    // A member whose Link is not known does not count: it cannot be asked for its metadata.
    return c === cluster || !Number.isFinite(theirs) || mine < theirs || (mine === theirs && cluster < c);
  });
}

/** The federated Service as this member's target describes it. */
function fromTarget(i: FederatedInput, name: string, m: Members): ServiceObject {
  const t = i.target!;
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name,
      namespace: i.key.namespace,
      labels: { ...copiedLabels(t.metadata.labels, i.link.excludedLabels), [MIRRORED_SERVICE]: "true" },
      annotations: discovery(copiedAnnotations(t.metadata.annotations, i.link.excludedAnnotations), m),
    },
    spec: { ports: mirrorPorts(t.spec?.ports) },
  };
}

/** The Service as it is, with the members changed. */
function withMembers(current: ServiceObject, m: Members): ServiceObject {
  return { ...current, metadata: { ...current.metadata, annotations: discovery({ ...current.metadata.annotations }, m) } };
}

function discovery(annotations: Record<string, string>, m: Members): Record<string, string> {
  delete annotations[MC_REMOTE_DISCOVERY];
  delete annotations[MC_LOCAL_DISCOVERY];
  if (m.remote.length > 0) annotations[MC_REMOTE_DISCOVERY] = m.remote.join(",");
  if (m.local) annotations[MC_LOCAL_DISCOVERY] = m.local;
  return annotations;
}
