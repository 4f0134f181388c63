// What the checks share while they run: the source cluster's client, the clock, how to reach a
// Link's target, and what earlier checks found (the valid Links, the targets that answered).
import { connectFromSecret, isNotFound, type KubeClient, type KubeObject } from "../kube/index.ts";
import { linkResource, parseLink, type Link } from "../model/link.ts";

export interface CheckContext {
  /** The source cluster (where the Links are). */
  local: KubeClient;
  /** Linkerd's namespace on the source (its linkerd-config holds the local trust anchors). */
  linkerdNamespace: string;
  now: () => number;
  /** A client for a Link's target, from its credentials Secret. */
  connectRemote: (link: Link) => Promise<KubeClient>;
  /** Set by "Link resources are valid": every Link that parsed, sorted by namespace and name. */
  links: Link[];
  /** Set by "remote cluster access credentials are valid": targets that answered, by cluster name. */
  remotes: Map<string, KubeClient>;
}

export interface ContextOptions {
  local: KubeClient;
  linkerdNamespace: string;
  /** Per-request timeout for target clusters (the source client carries its own). */
  timeoutMs?: number;
  now?: () => number;
  connectRemote?: (link: Link) => Promise<KubeClient>;
}

export function createCheckContext(o: ContextOptions): CheckContext {
  return {
    local: o.local,
    linkerdNamespace: o.linkerdNamespace,
    now: o.now ?? Date.now,
    connectRemote:
      o.connectRemote ??
      ((link) =>
        connectFromSecret(o.local, link.namespace, link.clusterCredentialsSecret, {
          name: link.targetClusterName,
          timeoutMs: o.timeoutMs,
        })),
    links: [],
    remotes: new Map(),
  };
}

/** A GET that answers undefined for 404 (absence is a finding, not an error). */
export async function getOrUndefined<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** The Links found earlier, read again (their status moves while `--wait` retries); a Link deleted meanwhile is dropped. */
export async function rereadLinks(ctx: CheckContext): Promise<Link[]> {
  const fresh = await Promise.all(
    ctx.links.map(async (link) => {
      const obj = await getOrUndefined(ctx.local.get<KubeObject>(linkResource, link.namespace, link.name));
      if (!obj) return undefined;
      try {
        return parseLink(obj);
      } catch {
        return link;
      }
    }),
  );
  return fresh.filter((l): l is Link => l !== undefined);
}
