// The resource types the sandbox serves: the built-in ones mc and kubectl use, plus every
// version of every CustomResourceDefinition created at run time.
import type { JSONSchemaProps, KubeObject, PrinterColumn, ResourceType } from "./types.ts";

const CRUD = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

function builtin(
  group: string,
  version: string,
  kind: string,
  plural: string,
  namespaced: boolean,
  extra: { shortNames?: string[]; categories?: string[]; status?: boolean; verbs?: string[] } = {},
): ResourceType {
  return {
    group,
    version,
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    namespaced,
    shortNames: extra.shortNames,
    categories: extra.categories,
    verbs: extra.verbs ?? CRUD,
    subresources: { status: extra.status ?? false },
  };
}

export const BUILTIN_TYPES: readonly ResourceType[] = [
  builtin("", "v1", "Namespace", "namespaces", false, {
    shortNames: ["ns"],
    status: true,
    verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
  }),
  builtin("", "v1", "Service", "services", true, { shortNames: ["svc"], categories: ["all"], status: true }),
  builtin("", "v1", "Endpoints", "endpoints", true, { shortNames: ["ep"] }),
  builtin("", "v1", "Pod", "pods", true, { shortNames: ["po"], categories: ["all"], status: true }),
  builtin("", "v1", "Secret", "secrets", true),
  builtin("", "v1", "ConfigMap", "configmaps", true, { shortNames: ["cm"] }),
  builtin("", "v1", "ServiceAccount", "serviceaccounts", true, { shortNames: ["sa"] }),
  builtin("", "v1", "Event", "events", true, { shortNames: ["ev"] }),
  builtin("apps", "v1", "Deployment", "deployments", true, { shortNames: ["deploy"], categories: ["all"], status: true }),
  builtin("apps", "v1", "ReplicaSet", "replicasets", true, { shortNames: ["rs"], categories: ["all"], status: true }),
  builtin("rbac.authorization.k8s.io", "v1", "Role", "roles", true),
  builtin("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", true),
  builtin("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", false),
  builtin("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", false),
  builtin("coordination.k8s.io", "v1", "Lease", "leases", true),
  builtin("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", true),
  builtin("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", true, { shortNames: ["pdb"], status: true }),
  builtin("authorization.k8s.io", "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", false, { verbs: ["create"] }),
  builtin("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", false, {
    shortNames: ["crd", "crds"],
    status: true,
  }),
];

interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: { status?: object };
  additionalPrinterColumns?: PrinterColumn[];
}

interface CrdSpec {
  group: string;
  scope: "Namespaced" | "Cluster";
  names: { kind: string; listKind?: string; plural: string; singular?: string; shortNames?: string[]; categories?: string[] };
  versions: CrdVersion[];
}

/** The served types a CustomResourceDefinition defines, one per served version. */
function typesOfCrd(crd: KubeObject): ResourceType[] {
  const spec = crd.spec as CrdSpec;
  return spec.versions
    .filter((v) => v.served !== false)
    .map((v) => ({
      group: spec.group,
      version: v.name,
      kind: spec.names.kind,
      listKind: spec.names.listKind ?? `${spec.names.kind}List`,
      plural: spec.names.plural,
      singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
      namespaced: spec.scope !== "Cluster",
      shortNames: spec.names.shortNames,
      categories: spec.names.categories,
      verbs: CRUD,
      subresources: { status: v.subresources?.status !== undefined },
      crd: {
        name: crd.metadata.name ?? "",
        schema: v.schema?.openAPIV3Schema,
        printerColumns: v.additionalPrinterColumns ?? [],
        storage: v.storage === true,
      },
    }));
}

/** Every type the server answers for, by group/version and by plural. */
export class Registry {
  private byGv = new Map<string, Map<string, ResourceType>>();
  private crdTypes = new Map<string, ResourceType[]>();

  constructor() {
    for (const t of BUILTIN_TYPES) this.add(t);
  }

  private add(t: ResourceType): void {
    const gv = t.group === "" ? t.version : `${t.group}/${t.version}`;
    let types = this.byGv.get(gv);
    if (!types) this.byGv.set(gv, (types = new Map()));
    types.set(t.plural, t);
  }

  /** Replaces whatever a CRD of that name served before (created, updated or deleted). */
  setCrd(name: string, crd: KubeObject | undefined): void {
    for (const t of this.crdTypes.get(name) ?? []) {
      const gv = `${t.group}/${t.version}`;
      this.byGv.get(gv)?.delete(t.plural);
      if (this.byGv.get(gv)?.size === 0) this.byGv.delete(gv);
    }
    this.crdTypes.delete(name);
    if (!crd) return;
    const types = typesOfCrd(crd);
    this.crdTypes.set(name, types);
    for (const t of types) this.add(t);
  }

  find(group: string, version: string, plural: string): ResourceType | undefined {
    return this.byGv.get(group === "" ? version : `${group}/${version}`)?.get(plural);
  }

  /** The type for an object's apiVersion and kind (for validation of applied objects). */
  findKind(apiVersion: string, kind: string): ResourceType | undefined {
    for (const t of this.byGv.get(apiVersion)?.values() ?? []) if (t.kind === kind) return t;
    return undefined;
  }

  groupVersions(): string[] {
    return [...this.byGv.keys()];
  }

  typesIn(groupVersion: string): ResourceType[] {
    return [...(this.byGv.get(groupVersion)?.values() ?? [])];
  }

  all(): ResourceType[] {
    return [...this.byGv.values()].flatMap((m) => [...m.values()]);
  }

  /** Groups with their versions, the storage (or first built-in) version preferred. */
  groups(): { name: string; versions: string[]; preferred: string }[] {
    const groups = new Map<string, { versions: string[]; preferred?: string }>();
    for (const [gv, types] of this.byGv) {
      if (!gv.includes("/")) continue;
      const [group, version] = gv.split("/") as [string, string];
      let g = groups.get(group);
      if (!g) groups.set(group, (g = { versions: [] }));
      g.versions.push(version);
      for (const t of types.values()) if (t.crd?.storage) g.preferred = version;
    }
    return [...groups].map(([name, g]) => {
      const versions = g.versions.sort(compareVersions);
      return { name, versions, preferred: g.preferred ?? versions[0]! };
    });
  }
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first. */
function compareVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [0, 0, 0];
    const stage = m[2] === undefined ? 3 : m[2] === "beta" ? 2 : 1;
    return [stage, Number(m[1]), Number(m[3] ?? 0)];
  };
  const [sa, ma, na] = rank(a);
  const [sb, mb, nb] = rank(b);
  return sb - sa || mb - ma || nb - na || a.localeCompare(b);
}
