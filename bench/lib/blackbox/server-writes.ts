// The writes a real kube-apiserver executed, by resource, from its /metrics (apiserver_request_total, mutating verbs): read before and
// after a timed window, they show what else the server did in it (kube-controller-manager's EndpointSlices, Leases, Events).

export type WriteCounts = Record<string, number>;

const MUTATING = /verb="(POST|PUT|PATCH|APPLY|DELETE|DELETECOLLECTION)"/;

/** West's mutating requests so far, by resource (a subresource as `resource/subresource`), read with kubectl from `kubeconfig`. */
export async function serverWrites(kubeconfig: string): Promise<WriteCounts> {
  const proc = Bun.spawn(["kubectl", "--kubeconfig", kubeconfig, "get", "--raw", "/metrics"], { stdout: "pipe", stderr: "pipe" });
  const [text, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`kubectl get --raw /metrics: exit ${code}: ${err.trim().split("\n").at(-1)}`);
  const counts: WriteCounts = {};
  for (const line of text.split("\n")) {
    if (!line.startsWith("apiserver_request_total{") || !MUTATING.test(line)) continue;
    const resource = /resource="([^"]*)"/.exec(line)?.[1] ?? "?";
    const sub = /subresource="([^"]*)"/.exec(line)?.[1] ?? "";
    const key = sub ? `${resource}/${sub}` : resource;
    counts[key] = (counts[key] ?? 0) + Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return counts;
}

/** What was written between two readings, resources with none left out. */
export function writesBetween(before: WriteCounts, after: WriteCounts): WriteCounts {
  const out: WriteCounts = {};
  for (const [k, v] of Object.entries(after)) {
    const d = v - (before[k] ?? 0);
    if (d > 0) out[k] = d;
  }
  return out;
}

export const totalWrites = (w: WriteCounts): number => Object.values(w).reduce((a, b) => a + b, 0);
