// The Multi-Cluster Services checks: every ServiceImport mc keeps has an EndpointSlice from a cluster that exports it (an import without
// slices routes nowhere) and none from a cluster without a Link, and no ServiceExport of this cluster is invalid or in conflict. A cluster
// that does not serve the MCS API passes both.
import { KubeError, resources, type KubeClient, type KubeObject } from "../../kube/index.ts";
import {
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  LABEL_SOURCE_CLUSTER,
  MANAGED_BY_MC,
  mcsResources,
  type ServiceExportObject,
} from "../../mcs/api.ts";
import { LABEL_MC_IMPORT } from "../../mcs/desired.ts";
import type { CheckContext } from "../context.ts";
import { listFew } from "../mirrors.ts";
import type { Check } from "../types.ts";

/** The list, or undefined when the cluster does not serve the kind (or may not be asked). */
async function listOrAbsent<T>(
  client: KubeClient,
  res: Parameters<KubeClient["list"]>[0],
  labelSelector?: string,
): Promise<T[] | undefined> {
  try {
    return (await client.list<T>(res, { labelSelector })).items;
  } catch (err) {
    if (err instanceof KubeError && (err.code === 404 || err.code === 403)) return undefined;
    throw err;
  }
}

const key = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;

export const mcsImports: Check<CheckContext> = {
  id: "mcs-imports",
  title: "all MCS service imports have endpoint slices",
  hint: "mc-multicluster-mcs-imports",
  severity: "warning",
  retry: true,
  async run(ctx) {
    const imports = await listOrAbsent<KubeObject>(ctx.local, mcsResources.serviceImport, LABEL_MC_IMPORT);
    if (!imports) return { ok: true, message: "the Multi-Cluster Services API is not served here" };
    const slices =
      (await listOrAbsent<KubeObject>(ctx.local, resources.endpointSlice, `${LABEL_MANAGED_BY}=${MANAGED_BY_MC},${LABEL_SERVICE_NAME}`)) ??
      [];
    const held = new Set(slices.map((s) => `${s.metadata.namespace}/${s.metadata.labels?.[LABEL_SERVICE_NAME]}`));
    const empty = imports
      .filter((i) => !held.has(key(i)))
      .map(key)
      .sort();
    if (empty.length)
      return {
        ok: false,
        message: `${empty.length} of ${imports.length} ServiceImports ${empty.length === 1 ? "has" : "have"} no EndpointSlice: ${listFew(empty)}`,
      };
    // A slice from a cluster with no Link (deleted while no controller saw it) routes to a gateway nobody probes.
    // This cluster's own slices (the local mirror's) have no Link: one whose import is exported here is taken as its.
    const linked = new Set(ctx.links.map((l) => l.targetClusterName));
    const exported = new Set((await listOrAbsent<KubeObject>(ctx.local, mcsResources.serviceExport))?.map(key) ?? []);
    const stale = new Map<string, string[]>();
    for (const s of slices) {
      const c = s.metadata.labels?.[LABEL_SOURCE_CLUSTER];
      const imp = `${s.metadata.namespace}/${s.metadata.labels?.[LABEL_SERVICE_NAME]}`;
      if (!c || linked.has(c) || exported.has(imp)) continue;
      stale.set(c, [...(stale.get(c) ?? []), imp]);
    }
    if (stale.size) {
      const details = [...stale.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([c, imps]) => `cluster "${c}" has no Link: ${listFew(imps.sort())}`);
      return { ok: false, message: "ServiceImports with EndpointSlices from clusters without a Link:", details };
    }
    const clusters = new Set(slices.map((s) => s.metadata.labels?.[LABEL_SOURCE_CLUSTER]).filter((c): c is string => !!c));
    return {
      ok: true,
      message: `${imports.length} ServiceImport${imports.length === 1 ? "" : "s"} from ${clusters.size} cluster${clusters.size === 1 ? "" : "s"} checked`,
    };
  },
};

export const mcsExports: Check<CheckContext> = {
  id: "mcs-exports",
  title: "all MCS service exports are valid and without conflict",
  hint: "mc-multicluster-mcs-exports",
  severity: "warning",
  retry: true,
  async run(ctx) {
    const exports = await listOrAbsent<ServiceExportObject & KubeObject>(ctx.local, mcsResources.serviceExport);
    if (!exports) return { ok: true, message: "the Multi-Cluster Services API is not served here" };
    const details: string[] = [];
    for (const e of [...exports].sort((a, b) => key(a).localeCompare(key(b)))) {
      const cond = (type: string) => e.status?.conditions?.find((c) => c.type === type);
      const valid = cond("Valid");
      const conflict = cond("Conflict");
      if (valid?.status === "False") details.push(`${key(e)}: not valid (${valid.reason}): ${valid.message}`);
      if (conflict?.status === "True") details.push(`${key(e)}: in conflict (${conflict.reason}): ${conflict.message}`);
    }
    if (details.length) return { ok: false, message: "ServiceExports with problems:", details };
    return { ok: true, message: `${exports.length} ServiceExport${exports.length === 1 ? "" : "s"} checked` };
  },
};
