// Whether a controller's Link still stands, asked of the server: the Link of that name with the uid the controller serves. Asked
// only before a mirror someone else deleted is made again (reconcile/execute.ts, D181).
import { getIfExists, type KubeClient } from "../kube/index.ts";
import type { Logger } from "../log.ts";
import { linkResource, type Link } from "../model/link.ts";

/**
 * The question, for one controller: false when the Link is gone or was made again (another uid), and from then on without asking
 * (a uid never comes back); an error reading it says nothing, so true (the write goes ahead).
 */
export function linkStands(local: KubeClient, link: Pick<Link, "name" | "namespace" | "uid">, log: Logger): () => Promise<boolean> {
  let gone = false;
  return async () => {
    if (gone) return false;
    try {
      const now = await getIfExists(local, linkResource, link.namespace, link.name);
      gone = now === undefined || (link.uid !== undefined && now.metadata.uid !== link.uid);
      if (gone) log.info(`Link ${link.namespace}/${link.name} is gone: mirrors deleted since are not made again`);
      return !gone;
    } catch (err) {
      log.debug(`could not read Link ${link.namespace}/${link.name} (${err instanceof Error ? err.message : String(err)}): mirroring on`);
      return true;
    }
  };
}
