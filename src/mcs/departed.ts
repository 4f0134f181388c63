// The process's sweep of a cluster whose last Link was seen deleted (`mc serve`, any mode): its MCS EndpointSlices deleted, and an import
// no cluster's slice holds any more deleted with its derived Service — also when no importer is left in the process to do it. An import
// other clusters hold is merged again by their importers (the slice's deletion queues it there).
import { formatError } from "../errors.ts";
import { createWriter, isConflict, isNotFound, KubeError, resources, type KubeClient, type KubeObject } from "../kube/index.ts";
import type { Logger } from "../log.ts";
import { LABEL_MANAGED_BY, LABEL_SERVICE_NAME, LABEL_SOURCE_CLUSTER, MANAGED_BY_MC, mcsResources } from "./api.ts";
import { derivedServiceName, LABEL_MC_IMPORT } from "./desired.ts";
import type { DepartedLinks } from "./importer.ts";

/** Sweeps each cluster whose Link is seen deleted; returns the unsubscribe. */
export function sweepDepartedClusters(o: { client: KubeClient; links: DepartedLinks; log: Logger }): () => void {
  return o.links.onChange((cluster) => {
    if (!o.links.isGone(cluster)) return;
    sweepCluster(o.client, cluster, () => o.links.isGone(cluster), o.log).catch((err) =>
      o.log.warn(`MCS imports of ${cluster}, whose Link was deleted: ${formatError(err)} (mc check names what is left)`),
    );
  });
}

/** `cluster`'s slices and the imports only it held; stops if the cluster is linked again meanwhile. */
async function sweepCluster(client: KubeClient, cluster: string, stillGone: () => boolean, log: Logger): Promise<void> {
  const writer = createWriter(client, { log });
  const mc = `${LABEL_MANAGED_BY}=${MANAGED_BY_MC}`;
  const slices = await listOrNone(client, `${mc},${LABEL_SERVICE_NAME},${LABEL_SOURCE_CLUSTER}=${cluster}`);
  const imports = new Map<string, { namespace: string; name: string }>();
  for (const s of slices) {
    if (!stillGone()) return;
    const { namespace = "", name = "" } = s.metadata;
    await ignoreConflict(writer.delete(resources.endpointSlice, namespace, name, { preconditions: { uid: s.metadata.uid } }));
    const imp = s.metadata.labels?.[LABEL_SERVICE_NAME] ?? "";
    imports.set(`${namespace}/${imp}`, { namespace, name: imp });
  }
  if (slices.length) log.info(`cluster ${cluster} left with its Link: ${slices.length} MCS EndpointSlice(s) deleted`);
  for (const { namespace, name } of imports.values()) {
    const left = (
      await client.list<KubeObject>(resources.endpointSlice, { namespace, labelSelector: `${mc},${LABEL_SERVICE_NAME}=${name}` })
    ).items;
    if (left.length > 0) continue; // the other clusters' importers merge it again
    let imp: KubeObject;
    try {
      imp = await client.get<KubeObject>(mcsResources.serviceImport, namespace, name);
    } catch (err) {
      if (isNotFound(err)) continue;
      throw err;
    }
    if (!imp.metadata.labels?.[LABEL_MC_IMPORT]) continue; // not mc's import
    await ignoreConflict(writer.delete(mcsResources.serviceImport, namespace, name, { preconditions: { uid: imp.metadata.uid } }));
    const derived = await client.get<KubeObject>(resources.service, namespace, derivedServiceName(name)).catch(() => undefined);
    if (derived?.metadata.labels?.[LABEL_SERVICE_NAME] === name)
      await ignoreConflict(
        writer.delete(resources.service, namespace, derivedServiceName(name), { preconditions: { uid: derived.metadata.uid } }),
      );
  }
}

async function listOrNone(client: KubeClient, labelSelector: string): Promise<KubeObject[]> {
  try {
    return (await client.list<KubeObject>(resources.endpointSlice, { labelSelector })).items;
  } catch (err) {
    if (err instanceof KubeError && (err.code === 403 || err.code === 404)) return [];
    throw err;
  }
}

/** A delete whose precondition failed: the object was written again since (kept). */
async function ignoreConflict(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (!isConflict(err)) throw err;
  }
}
