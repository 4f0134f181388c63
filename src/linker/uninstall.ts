// `mc uninstall`: refuse while any Link exists; otherwise find every object labelled
// `linkerd.io/extension=multicluster`, of every kind mc's renderers make (owned.ts), namespaced
// objects first, cluster-scoped after, the Link CRD last (docs/linkerd-compatibility.md#unlink).
import { UserError } from "../errors.ts";
import { isNotFound, type KubeClient, type KubeObject } from "../kube/index.ts";
import { EXTENSION, EXTENSION_NAME } from "../model/labels.ts";
import { linkResource } from "../model/link.ts";
import { refOf, renderedKinds, resourceOf, type ObjectRef } from "./owned.ts";

export async function planUninstall(client: KubeClient): Promise<ObjectRef[]> {
  const links = await listOrEmpty(client, linkResource);
  if (links.length > 0) {
    const names = links
      .map((l) => `${(l.spec as { targetClusterName?: string } | undefined)?.targetClusterName || l.metadata.name}`)
      .sort();
    throw new UserError(
      `Links still exist on ${client.cluster}; unlink these clusters first: ${names.join(", ")} (mc unlink --cluster-name <name> | kubectl delete -f -)`,
    );
  }
  const lists = await Promise.all(
    renderedKinds().map(async (kind) => {
      const items = await listOrEmpty(client, resourceOf(kind), `${EXTENSION}=${EXTENSION_NAME}`);
      return items.map((obj) => ({ ref: refOf({ ...obj, apiVersion: kind.apiVersion, kind: kind.kind }), namespaced: kind.namespaced }));
    }),
  );
  const found = lists.flat();
  if (found.length === 0)
    throw new UserError(`no resources labelled ${EXTENSION}=${EXTENSION_NAME} found to uninstall on ${client.cluster}`);
  const rank = (x: { ref: ObjectRef; namespaced: boolean }) => (x.namespaced ? 0 : x.ref.kind === "CustomResourceDefinition" ? 2 : 1);
  return found
    .sort(
      (a, b) =>
        rank(a) - rank(b) ||
        a.ref.kind.localeCompare(b.ref.kind) ||
        (a.ref.namespace ?? "").localeCompare(b.ref.namespace ?? "") ||
        a.ref.name.localeCompare(b.ref.name),
    )
    .map((x) => x.ref);
}

/** A list; a kind the cluster does not serve (its CRD is absent) has nothing to delete. */
async function listOrEmpty(client: KubeClient, res: Parameters<KubeClient["list"]>[0], labelSelector?: string): Promise<KubeObject[]> {
  try {
    return (await client.list<KubeObject>(res, { labelSelector })).items;
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}
