// The names shell completion offers from outside mc, as kubectl's completion does: the contexts of the kubeconfig, and the Links of a
// namespace on the cluster. A TAB must not hang nor print: every failure (no kubeconfig, a cluster down, a refusal) is no names, and the
// cluster gets `timeoutMs` in all.
import { linkResource } from "../model/link.ts";
import { DEFAULT_NAMESPACE } from "../model/names.ts";
import { setLongTimer } from "../runtime/clock.ts";
import { connect, loadKubeconfig } from "./connect.ts";

export interface NamesScope {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
}

/** The kubeconfig's context names, as kubectl would load it (--kubeconfig, KUBECONFIG, ~/.kube/config). */
export async function contextNames(scope: NamesScope, env: Record<string, string | undefined> = process.env): Promise<string[]> {
  try {
    return loadKubeconfig({ kubeconfig: scope.kubeconfig }, env)?.config.contexts.map((c) => c.name) ?? [];
  } catch {
    return [];
  }
}

/** The Links of the namespace (default linkerd-multicluster); [] after `timeoutMs` or on any failure. */
export async function linkNames(scope: NamesScope, timeoutMs = 1500): Promise<string[]> {
  let cancel = () => {};
  const late = new Promise<string[]>((resolve) => (cancel = setLongTimer(timeoutMs, () => resolve([]))));
  const read = (async () => {
    const client = await connect({ kubeconfig: scope.kubeconfig, context: scope.context, timeoutMs });
    const list = await client.list<{ metadata?: { name?: string } }>(linkResource, { namespace: scope.namespace ?? DEFAULT_NAMESPACE });
    return list.items.map((l) => l.metadata?.name ?? "").filter(Boolean);
  })().catch(() => []);
  try {
    return await Promise.race([read, late]);
  } finally {
    cancel();
  }
}
