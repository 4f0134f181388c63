// `mc unlink`: find, in the source cluster, every object `mc link` (and its controller) made for one link, and every mirror of that
// cluster, so `kubectl delete -f -` removes exactly those (docs/linkerd-compatibility.md#unlink), under its target's name or any earlier
// one (the Link's uid is on every mirror its controller made).
import { UserError } from "../errors.ts";
import { isNotFound, KubeError, resources, type KubeClient, type KubeObject } from "../kube/index.ts";
import { membersOf } from "../model/federated.ts";
import * as L from "../model/labels.ts";
import { federatedMember, federatedTarget, installControllerName } from "../model/names.ts";
import { LABEL_MANAGED_BY, LABEL_SERVICE_NAME, LABEL_SOURCE_CLUSTER, MANAGED_BY_MC, mcsResources } from "../mcs/api.ts";
import { derivedServiceName, LABEL_MC_IMPORT } from "../mcs/desired.ts";
import { linkResource } from "../model/link.ts";
import { describeRef, linkObjects, refKey, refOf, resourceOf, type LinkObject, type ObjectRef } from "./owned.ts";

// What to look for comes from the link renderer (owned.ts); each candidate is read and kept only if it
// is there and carries the labels (or type) mc gave it, so another link's objects and same-named
// foreign ones stay. Mirrors of both kinds (gateway and remote discovery) carry the cluster's label;
// federated Services whose only member is this cluster are deleted too, while those with other members
// keep theirs — `kubectl delete` cannot remove one member, so the other members' controllers drop it
// once the Link is gone (`membersLeft` says which).

export interface UnlinkOptions {
  clusterName: string;
  /** Namespace of the Link, its Secret and its controller. */
  namespace: string;
  /** Linkerd's namespace, where the Secret copy for the destination controller lives. */
  linkerdNamespace: string;
  /** Only the controller (Deployment, RBAC, ServiceAccount, probe Service): keep Link, Secrets, Lease and mirrors. */
  onlyController: boolean;
}

export interface UnlinkPlan {
  /** In deletion order: the controller first, then the Link (which stops any controller), then the rest. */
  objects: ObjectRef[];
  /** Same-named objects that are not ours (labels or type differ), left alone; one line each. */
  leftAlone: string[];
  /** Federated Services (and MCS imports) this cluster is one member of among others: kept, one line each. */
  membersLeft: string[];
  /** The controller the install renders for this link (`mc install --controllers`): never ours to delete; one line. */
  installed: string[];
}

/** Deletion order: stop the controller, delete the Link, then what they used; Endpoints before their Service. */
const ORDER = [
  "Deployment",
  "PodDisruptionBudget",
  "Link",
  "ServiceImport",
  "Endpoints",
  "EndpointSlice",
  "Service",
  "Lease",
  "ClusterRoleBinding",
  "RoleBinding",
  "ClusterRole",
  "Role",
  "ServiceAccount",
  "Secret",
];

export async function planUnlink(client: KubeClient, o: UnlinkOptions): Promise<UnlinkPlan> {
  const link = await requireLink(client, o);
  const c = o.clusterName;
  const candidates = linkObjects(o).filter((x) => !o.onlyController || x.part === "controller");
  const found = new Map<string, ObjectRef>();
  const leftAlone: string[] = [];
  const membersLeft: string[] = [];
  const add = (obj: KubeObject, res: { apiVersion: string; kind: string }) => {
    const ref = refOf({ ...obj, apiVersion: res.apiVersion, kind: res.kind });
    found.set(refKey(ref), ref);
  };
  await Promise.all(
    candidates.map(async (cand) => {
      const ref = refOf(cand.manifest);
      const res = resourceOf({ ...ref, namespaced: ref.namespace !== undefined });
      const obj = await getOrUndefined(client.get<KubeObject & { type?: string }>(res, ref.namespace, ref.name));
      if (!obj) return;
      const problem = ownershipProblem(cand, obj, c);
      if (problem) leftAlone.push(`${describeRef(ref)} ${problem}: left alone`);
      else add(obj, res);
    }),
  );
  if (!o.onlyController) {
    const mine = `${L.MIRRORED_SERVICE}=true,${L.CLUSTER_NAME}=${c}`;
    // And whatever this Link's controller made under any other target name (the Link was renamed): its uid is on them.
    const uid = link.metadata.uid;
    const made = uid ? `${L.LINK_UID}=${uid}` : undefined;
    const none = { items: [] as KubeObject[] };
    const [secrets, services, endpoints, madeServices, madeEndpoints] = await Promise.all([
      client.list(resources.secret, { namespace: o.linkerdNamespace, labelSelector: `${L.MC_CLUSTER_NAME}=${c}` }),
      client.list(resources.service, { labelSelector: mine }),
      client.list(resources.endpoints, { labelSelector: mine }),
      made ? client.list(resources.service, { labelSelector: made }) : none,
      made ? client.list(resources.endpoints, { labelSelector: made }) : none,
    ]);
    for (const s of secrets.items) add(s, resources.secret);
    for (const s of [...services.items, ...madeServices.items]) add(s, resources.service);
    for (const e of [...endpoints.items, ...madeEndpoints.items]) add(e, resources.endpoints);
    // A controller run with --mirror-endpoint-slices gave its mirrors (and the gateway mirror) EndpointSlices instead.
    const sliced = `${L.SLICE_MANAGED_BY}=${L.MC_SLICE_MANAGER}`;
    const [slices, madeSlices] = await Promise.all([
      listUnlessDenied(client, `${sliced},${L.CLUSTER_NAME}=${c}`),
      made ? listUnlessDenied(client, `${sliced},${made}`) : [],
    ]);
    for (const s of [...slices, ...madeSlices]) add(s, resources.endpointSlice);
    // The MCS import: this cluster's EndpointSlice in each import; an import only it held goes with its derived Service.
    const mcs = await listUnlessDenied(client, `${LABEL_MANAGED_BY}=${MANAGED_BY_MC},${LABEL_SERVICE_NAME}`);
    for (const slice of mcs.filter((x) => x.metadata.labels?.[LABEL_SOURCE_CLUSTER] === c)) {
      add(slice, resources.endpointSlice);
      const name = slice.metadata.labels?.[LABEL_SERVICE_NAME] ?? "";
      const ns = slice.metadata.namespace ?? "";
      const others = mcs.filter(
        (x) =>
          x.metadata.namespace === ns &&
          x.metadata.labels?.[LABEL_SERVICE_NAME] === name &&
          x.metadata.labels?.[LABEL_SOURCE_CLUSTER] !== c,
      );
      if (others.length > 0) {
        membersLeft.push(`ServiceImport ${ns}/${name} keeps its other exporting clusters; their controllers merge it again without ${c}`);
        continue;
      }
      const imp = await getOrUndefined(client.get<KubeObject>(mcsResources.serviceImport, ns, name));
      if (!imp?.metadata.labels?.[LABEL_MC_IMPORT]) continue; // not mc's import: only the slice was ours
      add(imp, mcsResources.serviceImport);
      const derived = await getOrUndefined(client.get<KubeObject>(resources.service, ns, derivedServiceName(name)));
      if (derived?.metadata.labels?.[LABEL_SERVICE_NAME] === name) add(derived, resources.service);
    }
    const federated = await client.list(resources.service, { labelSelector: `${L.MIRRORED_SERVICE}=true,!${L.CLUSTER_NAME}` });
    for (const svc of federated.items) {
      const verdict = federatedVerdict(svc, c);
      if (verdict === "delete") add(svc, resources.service);
      else if (verdict === "keep")
        membersLeft.push(
          `${svc.metadata.namespace}/${svc.metadata.name} keeps its other members; their controllers drop ${c}'s once the Link is deleted`,
        );
    }
  }
  return {
    objects: sortForDeletion([...found.values()]),
    leftAlone: leftAlone.sort(),
    membersLeft: membersLeft.sort(),
    installed: await installedController(client, o),
  };
}

/** mc's EndpointSlices with these labels; none when they cannot be listed (a cluster or a user without them). */
async function listUnlessDenied(client: KubeClient, labelSelector: string): Promise<KubeObject[]> {
  try {
    return (await client.list<KubeObject>(resources.endpointSlice, { labelSelector })).items;
  } catch (err) {
    if (err instanceof KubeError && (err.code === 403 || err.code === 404)) return [];
    throw err;
  }
}

/** A line about the controller the install renders for this link, if there is one: unlink leaves it to the install. */
async function installedController(client: KubeClient, o: UnlinkOptions): Promise<string[]> {
  const c = o.clusterName;
  const dep = await getOrUndefined(client.get<KubeObject>(resources.deployment, o.namespace, installControllerName(c)));
  if (dep?.metadata.labels?.[L.COMPONENT] !== L.COMPONENT_CONTROLLER) return [];
  const then = o.onlyController
    ? "it serves the Link once mc link's controller is deleted"
    : `it waits for a Link ${c} again; drop ${c} from mc install --controllers to remove it`;
  return [`Deployment ${o.namespace}/${installControllerName(c)} is the install's (mc install --controllers), left alone: ${then}`];
}

/** A federated Service in which `cluster` is the only member is deleted; one it shares is kept; others are not ours to touch. Pure. */
export function federatedVerdict(svc: KubeObject, cluster: string): "delete" | "keep" | "none" {
  const target = federatedTarget(svc.metadata.name ?? "");
  if (target === undefined) return "none";
  const members = membersOf(svc.metadata);
  if (!members.remote.includes(federatedMember(target, cluster))) return "none";
  return members.remote.length === 1 && !members.local ? "delete" : "keep";
}

/** Why an object with a rendered name is not ours; "" when it is. */
function ownershipProblem(cand: LinkObject, obj: KubeObject & { type?: string }, cluster: string): string {
  const m = cand.manifest;
  if (m.kind === "Secret" && !m.metadata.labels) {
    return obj.type === L.REMOTE_KUBECONFIG_SECRET_TYPE ? "" : `has type "${obj.type ?? ""}", not ${L.REMOTE_KUBECONFIG_SECRET_TYPE}`;
  }
  if (m.kind === "Link") return "";
  // The controller labels the probe Service's Endpoints with the cluster name only.
  const want = m.kind === "Endpoints" ? { [L.CLUSTER_NAME]: cluster } : (m.metadata.labels ?? {});
  const have = obj.metadata.labels ?? {};
  const wrong = Object.entries(want).find(([k, v]) => have[k] !== v);
  return wrong ? `is not labelled ${wrong[0]}=${wrong[1]}` : "";
}

/** The Link must exist (it is returned); if not, say which ones do. */
async function requireLink(client: KubeClient, o: UnlinkOptions): Promise<KubeObject> {
  try {
    return await client.get<KubeObject>(linkResource, o.namespace, o.clusterName);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  let names: string[] = [];
  try {
    names = (await client.list<KubeObject>(linkResource)).items.map((l) => `${l.metadata.namespace}/${l.metadata.name}`).sort();
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  const exist = names.length ? `Links on ${client.cluster}: ${names.join(", ")}` : `there are no Links on ${client.cluster}`;
  throw new UserError(`--cluster-name: no Link ${o.namespace}/${o.clusterName}; ${exist} (pass one of their names, or --namespace)`);
}

export function sortForDeletion(refs: ObjectRef[]): ObjectRef[] {
  const rank = (r: ObjectRef) => {
    const i = ORDER.indexOf(r.kind);
    return i < 0 ? ORDER.length : i;
  };
  return refs.sort((a, b) => rank(a) - rank(b) || (a.namespace ?? "").localeCompare(b.namespace ?? "") || a.name.localeCompare(b.name));
}

async function getOrUndefined<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Stub manifests (apiVersion, kind, name, namespace) for `kubectl delete -f -`. */
export function toStubs(
  refs: readonly ObjectRef[],
): { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }[] {
  return refs.map((r) => ({
    apiVersion: r.apiVersion,
    kind: r.kind,
    metadata: { name: r.name, ...(r.namespace !== undefined && { namespace: r.namespace }) },
  }));
}
