// The RBAC objects a decision reads, indexed so that authorizing a request costs the requesting user's bindings, not the number of objects
// stored: every RoleBinding and ClusterRoleBinding is filed under each of its subjects (a User or a service account by user name, a Group
// by group name), kept current from the store's commits; roles are read by name from the store.
import type { Store } from "../storage/store.ts";
import { storageKey } from "../storage/keys.ts";
import type { StoreEvent } from "../storage/watch-hub.ts";
import type { KubeObject } from "../types.ts";
import { SA_PREFIX, type PolicySource, type UserInfo } from "./rbac.ts";

const GROUP = "rbac.authorization.k8s.io";
const ROLES = { group: GROUP, plural: "roles" };
const CLUSTER_ROLES = { group: GROUP, plural: "clusterroles" };
const ROLE_BINDINGS = storageKey({ group: GROUP, plural: "rolebindings" });
const CLUSTER_ROLE_BINDINGS = storageKey({ group: GROUP, plural: "clusterrolebindings" });

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

/** The index keys a binding's subjects file it under (a subject kube would never match files nothing). */
function subjectKeys(binding: KubeObject, bindingNamespace: string): string[] {
  const keys = new Set<string>();
  for (const s of (binding.subjects as Subject[] | null | undefined) ?? []) {
    if (!s?.name) continue;
    if (s.kind === "User") keys.add(`u:${s.name}`);
    else if (s.kind === "Group") keys.add(`g:${s.name}`);
    else if (s.kind === "ServiceAccount") {
      const ns = s.namespace || bindingNamespace;
      if (ns) keys.add(`u:${SA_PREFIX}${ns}:${s.name}`);
    }
  }
  return [...keys];
}

const userKeys = (user: UserInfo) => [`u:${user.name}`, ...user.groups.map((g) => `g:${g}`)];
const byName = (a: KubeObject, b: KubeObject) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0);

/** One kind of binding, filed by scope (a RoleBinding's namespace, "" cluster-wide) and subject key → binding id → binding. */
class SubjectIndex {
  private readonly bySubject = new Map<string, Map<string, KubeObject>>();
  /** binding id → the keys it is filed under (to unfile it). */
  private readonly filed = new Map<string, string[]>();

  put(id: string, binding: KubeObject, bindingNamespace: string, scope: string): void {
    this.remove(id);
    const keys = subjectKeys(binding, bindingNamespace).map((k) => `${scope}\0${k}`);
    for (const k of keys) {
      let m = this.bySubject.get(k);
      if (!m) this.bySubject.set(k, (m = new Map()));
      m.set(id, binding);
    }
    this.filed.set(id, keys);
  }

  remove(id: string): void {
    for (const k of this.filed.get(id) ?? []) {
      const m = this.bySubject.get(k);
      m?.delete(id);
      if (m?.size === 0) this.bySubject.delete(k);
    }
    this.filed.delete(id);
  }

  /** The bindings of a scope filed under any of the user's keys, once each, sorted by name. */
  candidates(user: UserInfo, scope: string): KubeObject[] {
    const found = new Map<string, KubeObject>();
    for (const k of userKeys(user)) for (const [id, b] of this.bySubject.get(`${scope}\0${k}`) ?? []) found.set(id, b);
    return [...found.values()].sort(byName);
  }
}

/** A PolicySource over a store, kept current by its commits. `close()` stops following it. */
export class RbacIndex implements PolicySource {
  private readonly cluster = new SubjectIndex();
  private readonly namespaced = new SubjectIndex();
  private readonly unsubscribe: () => void;

  constructor(private readonly store: Store) {
    for (const b of store.scan({ group: GROUP, plural: "clusterrolebindings" })) this.cluster.put(b.metadata.name!, b, "", "");
    for (const b of store.scan({ group: GROUP, plural: "rolebindings" }))
      this.namespaced.put(`${b.metadata.namespace}/${b.metadata.name}`, b, b.metadata.namespace ?? "", b.metadata.namespace ?? "");
    this.unsubscribe = store.onCommit((e) => this.follow(e));
  }

  private follow(e: StoreEvent): void {
    const index = e.key === CLUSTER_ROLE_BINDINGS ? this.cluster : e.key === ROLE_BINDINGS ? this.namespaced : undefined;
    if (!index) return;
    const ns = e.object.metadata.namespace ?? "";
    const id = index === this.cluster ? e.object.metadata.name! : `${ns}/${e.object.metadata.name}`;
    if (e.type === "DELETED") index.remove(id);
    else index.put(id, e.object, ns, ns);
  }

  clusterRoleBindings(user: UserInfo): KubeObject[] {
    return this.cluster.candidates(user, "");
  }

  roleBindings(user: UserInfo, namespace: string): KubeObject[] {
    return this.namespaced.candidates(user, namespace);
  }

  role(namespace: string, name: string): KubeObject | undefined {
    return this.store.get(ROLES, namespace, name);
  }

  clusterRole(name: string): KubeObject | undefined {
    return this.store.get(CLUSTER_ROLES, undefined, name);
  }

  close(): void {
    this.unsubscribe();
  }
}
