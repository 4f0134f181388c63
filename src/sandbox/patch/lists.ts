// How lists (and a few maps) of the built-in kinds merge: the `patchStrategy`/`patchMergeKey` struct tags that strategic merge patch reads,
// and the `listType`/`listMapKey`/`mapType` markers that server-side apply reads. kube-apiserver takes them from the Go types; the sandbox
// has no such schema at run time, so this is a small hand-kept table keyed by kind and JSON path.

import type { Json } from "../types.ts";

// Anything not listed is atomic: a patch or an apply replaces it whole.

/** How one list field merges. */
export interface ListSchema {
  /** Strategic merge patch: "merge" merges by `mergeKey` (lists of maps) or as a set (primitives). */
  strategy: "merge" | "replace";
  mergeKey?: string;
  /** Server-side apply: `map` items are identified by `keys`, `set` items by value. */
  listType: "map" | "set" | "atomic";
  keys?: string[];
  /** Defaults the API server fills in for key fields before identifying an item (protocol: TCP). */
  keyDefaults?: Record<string, Json>;
}

/** Paths are dotted field names; `[]` stands for "any item of the list", e.g. `spec.containers[].ports`. */
export const childPath = (path: string, field: string): string => (path === "" ? field : `${path}.${field}`);
export const itemPath = (path: string): string => `${path}[]`;

const byName = (listType: ListSchema["listType"] = "map"): ListSchema => ({
  strategy: "merge",
  mergeKey: "name",
  listType,
  keys: listType === "map" ? ["name"] : undefined,
});
const keyed = (mergeKey: string, keys: string[] = [mergeKey], keyDefaults?: Record<string, Json>): ListSchema => ({
  strategy: "merge",
  mergeKey,
  listType: "map",
  keys,
  keyDefaults,
});
const primitiveSet: ListSchema = { strategy: "merge", listType: "set" };

/** Lists every object has, custom resources included. */
const metadataLists: Record<string, ListSchema> = {
  "metadata.finalizers": primitiveSet,
  "metadata.ownerReferences": keyed("uid"),
};

function containerLists(container: string): Record<string, ListSchema> {
  return {
    [`${container}.ports`]: keyed("containerPort", ["containerPort", "protocol"], { protocol: "TCP" }),
    [`${container}.env`]: keyed("name"),
    [`${container}.volumeMounts`]: keyed("mountPath"),
    [`${container}.volumeDevices`]: keyed("devicePath"),
  };
}

function podSpecLists(spec: string): Record<string, ListSchema> {
  const lists: Record<string, ListSchema> = {
    [`${spec}.volumes`]: byName(), // patchStrategy "merge,retainKeys"
    [`${spec}.imagePullSecrets`]: byName(),
    [`${spec}.hostAliases`]: keyed("ip"),
    [`${spec}.topologySpreadConstraints`]: keyed("topologyKey", ["topologyKey", "whenUnsatisfiable"]),
    [`${spec}.schedulingGates`]: byName(),
    [`${spec}.resourceClaims`]: byName(),
  };
  for (const field of ["containers", "initContainers", "ephemeralContainers"]) {
    lists[`${spec}.${field}`] = byName();
    Object.assign(lists, containerLists(itemPath(`${spec}.${field}`)));
  }
  return lists;
}

const conditions: Record<string, ListSchema> = { "status.conditions": keyed("type") };

/** Where each kind keeps its pod template's spec. */
const podSpecPaths: Record<string, string> = {
  Pod: "spec",
  PodTemplate: "template.spec",
  Deployment: "spec.template.spec",
  StatefulSet: "spec.template.spec",
  DaemonSet: "spec.template.spec",
  ReplicaSet: "spec.template.spec",
  ReplicationController: "spec.template.spec",
  Job: "spec.template.spec",
  CronJob: "spec.jobTemplate.spec.template.spec",
};

const kindLists: Record<string, Record<string, ListSchema>> = {
  Pod: conditions,
  Node: conditions,
  Namespace: conditions,
  Deployment: conditions,
  StatefulSet: conditions,
  DaemonSet: conditions,
  ReplicaSet: conditions,
  Job: { "status.conditions": { strategy: "merge", mergeKey: "type", listType: "atomic" } },
  Service: {
    "spec.ports": keyed("port", ["port", "protocol"], { protocol: "TCP" }),
    "status.conditions": keyed("type"),
  },
  ServiceAccount: { secrets: byName(), imagePullSecrets: byName("atomic") },
  // Endpoints `subsets` has no strategy: it is replaced whole, like every list not listed here.
};

const builtinTables = new Map<string, Record<string, ListSchema>>();
function builtinTable(kind: string): Record<string, ListSchema> {
  let table = builtinTables.get(kind);
  if (!table) {
    const podSpec = podSpecPaths[kind];
    table = { ...metadataLists, ...(podSpec ? podSpecLists(podSpec) : {}), ...kindLists[kind] };
    builtinTables.set(kind, table);
  }
  return table;
}

/** How the list at `path` of a `kind` object merges; undefined means atomic. */
export function listSchemaAt(kind: string, path: string, builtin: boolean): ListSchema | undefined {
  return builtin ? builtinTable(kind)[path] : metadataLists[path];
}

/** Maps that server-side apply owns as a whole (`+mapType=atomic`, `+structType=atomic`). */
const atomicMaps: Record<string, string[]> = {
  Deployment: ["spec.selector"],
  StatefulSet: ["spec.selector"],
  DaemonSet: ["spec.selector"],
  ReplicaSet: ["spec.selector"],
  Job: ["spec.selector"],
  Service: ["spec.selector"],
};

export function isAtomicMapAt(kind: string, path: string, builtin: boolean): boolean {
  if (!builtin) return false;
  const podSpec = podSpecPaths[kind];
  if (podSpec && path === `${podSpec}.nodeSelector`) return true;
  return atomicMaps[kind]?.includes(path) ?? false;
}
