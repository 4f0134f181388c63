// The requests a real kube-apiserver executed, by resource, from its /metrics (apiserver_request_total): read before and after a timed
// window, the writes show what else the server did in it (kube-controller-manager's EndpointSlices, Leases, Events), the reads what it
// served (lists, gets, watches ended).

/** Requests by key. */
export type Counts = Record<string, number>;

/** Mutating requests by resource (`resource/subresource`); every other request by verb and resource (`LIST services`). */
export interface ServerRequests {
  writes: Counts;
  reads: Counts;
}

const MUTATING = new Set(["POST", "PUT", "PATCH", "APPLY", "DELETE", "DELETECOLLECTION"]);

/** West's requests so far, read with kubectl from `kubeconfig`. */
export async function serverRequests(kubeconfig: string): Promise<ServerRequests> {
  const proc = Bun.spawn(["kubectl", "--kubeconfig", kubeconfig, "get", "--raw", "/metrics"], { stdout: "pipe", stderr: "pipe" });
  const [text, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`kubectl get --raw /metrics: exit ${code}: ${err.trim().split("\n").at(-1)}`);
  const out: ServerRequests = { writes: {}, reads: {} };
  for (const line of text.split("\n")) {
    if (!line.startsWith("apiserver_request_total{")) continue;
    const verb = /verb="([^"]*)"/.exec(line)?.[1] ?? "?";
    const resource = /resource="([^"]*)"/.exec(line)?.[1] || "(none)";
    const sub = /subresource="([^"]*)"/.exec(line)?.[1] ?? "";
    const name = sub ? `${resource}/${sub}` : resource;
    const [counts, key] = MUTATING.has(verb) ? [out.writes, name] : [out.reads, `${verb} ${name}`];
    counts[key] = (counts[key] ?? 0) + Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return out;
}

/** West's mutating requests so far, by resource. */
export const serverWrites = async (kubeconfig: string): Promise<Counts> => (await serverRequests(kubeconfig)).writes;

/** What was counted between two readings, keys with none left out. */
function countsBetween(before: Counts, after: Counts): Counts {
  const out: Counts = {};
  for (const [k, v] of Object.entries(after)) {
    const d = v - (before[k] ?? 0);
    if (d > 0) out[k] = d;
  }
  return out;
}

export const requestsBetween = (before: ServerRequests, after: ServerRequests): ServerRequests => ({
  writes: countsBetween(before.writes, after.writes),
  reads: countsBetween(before.reads, after.reads),
});

export const total = (counts: Counts): number => Object.values(counts).reduce((a, b) => a + b, 0);
