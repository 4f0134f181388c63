// What the fault suite holds the controller to, written from the spec rather than from mc's code.
import type { Sandbox } from "../../src/sandbox/index.ts";
import type { KubeObject } from "../../src/sandbox/types.ts";
import type { StoreEvent } from "../../src/sandbox/storage/watch-hub.ts";

// What the fault suite holds the controller to, written from the spec rather than from mc's code:
// for every Service the target exports (label mirror.linkerd.io/exported=true), a mirror
// `<name>-<cluster>` in the same namespace with the same ports (name, protocol, port,
// targetPort) and labels (the target's, less mirror.linkerd.io/*, plus mc's ownership labels:
// mirrored-service, cluster-name and, when the Link has a uid, link-uid), and mirror Endpoints that point at the gateway when the target has ready endpoints —
// nothing missing, nothing extra; and in the source, no Service or Endpoints written that lacks
// mc's ownership label.

export const EXPORTED = "mirror.linkerd.io/exported";
export const MIRRORED = "mirror.linkerd.io/mirrored-service";
export const CLUSTER = "mirror.linkerd.io/cluster-name";
export const LINK_UID = "mirror.linkerd.io/link-uid";

interface Port {
  name?: string;
  protocol?: string;
  port: number;
  targetPort?: number | string;
}
type Svc = KubeObject & { spec?: { ports?: Port[] } };
type Eps = KubeObject & { subsets?: { addresses?: { ip: string }[]; notReadyAddresses?: { ip: string }[]; ports?: Port[] }[] };

const SERVICES = { group: "", plural: "services" };
const ENDPOINTS = { group: "", plural: "endpoints" };

export interface Diff {
  missing: string[];
  extra: string[];
  /** `ns/name: what is wrong`. */
  wrong: string[];
}

export const isClean = (d: Diff) => d.missing.length === 0 && d.extra.length === 0 && d.wrong.length === 0;
export const describeDiff = (d: Diff) =>
  `${d.missing.length} missing, ${d.extra.length} extra, ${d.wrong.length} wrong${[...d.missing.map((m) => ` missing ${m}`), ...d.extra.map((e) => ` extra ${e}`), ...d.wrong].slice(0, 8).join(";")}`;

const portsText = (ports: Port[] | undefined) =>
  (ports ?? []).map((p) => `${p.name ?? ""}/${p.protocol ?? "TCP"}/${p.port}/${p.targetPort ?? ""}`).join(",");
const sortedJson = (o: Record<string, string>) => JSON.stringify(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));

export function expectedLabels(remote: Record<string, string> | undefined, cluster: string, linkUid?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(remote ?? {})) if (!k.startsWith("mirror.linkerd.io")) out[k] = v;
  return { ...out, [MIRRORED]: "true", [CLUSTER]: cluster, ...(linkUid && { [LINK_UID]: linkUid }) };
}

/**
 * The differences between what the source holds for `cluster` and what it should. `foreign`
 * names (ns/name) are Services on a mirror's name that mc does not own: not expected, not extra.
 */
export function diffMirrors(
  target: Sandbox,
  source: Sandbox,
  o: { cluster: string; linkUid?: string; gatewayIp: string; gatewayPort: number; alive: boolean; foreign: Set<string> },
): Diff {
  const diff: Diff = { missing: [], extra: [], wrong: [] };
  const expected = new Map<string, Svc>();
  for (const svc of target.store.scan(SERVICES) as Svc[]) {
    if (svc.metadata.labels?.[EXPORTED] !== "true" || (svc.spec?.ports ?? []).length === 0) continue;
    const key = `${svc.metadata.namespace}/${svc.metadata.name}-${o.cluster}`;
    if (!o.foreign.has(key)) expected.set(key, svc);
  }
  const actual = new Map<string, Svc>();
  for (const m of source.store.scan(SERVICES, {
    labels: [
      { key: MIRRORED, op: "=", value: "true" },
      { key: CLUSTER, op: "=", value: o.cluster },
    ],
  }) as Svc[]) {
    actual.set(`${m.metadata.namespace}/${m.metadata.name}`, m);
  }
  for (const [key, remote] of expected) {
    const mirror = actual.get(key);
    if (!mirror) {
      diff.missing.push(key);
      continue;
    }
    if (portsText(mirror.spec?.ports) !== portsText(remote.spec?.ports))
      diff.wrong.push(`${key}: ports ${portsText(mirror.spec?.ports)}, want ${portsText(remote.spec?.ports)}`);
    const want = expectedLabels(remote.metadata.labels, o.cluster, o.linkUid);
    if (sortedJson(mirror.metadata.labels ?? {}) !== sortedJson(want))
      diff.wrong.push(`${key}: labels ${sortedJson(mirror.metadata.labels ?? {})}, want ${sortedJson(want)}`);
    const [ns, name] = key.split("/") as [string, string];
    const eps = source.store.get(ENDPOINTS, ns, name) as Eps | undefined;
    const remoteEps = target.store.get(ENDPOINTS, remote.metadata.namespace, remote.metadata.name!) as Eps | undefined;
    const remoteReady = (remoteEps?.subsets ?? []).some((s) => (s.addresses?.length ?? 0) > 0);
    diff.wrong.push(...endpointsProblems(key, eps, remoteReady ? (remote.spec?.ports ?? []) : undefined, o));
  }
  for (const key of actual.keys()) if (!expected.has(key)) diff.extra.push(key);
  return diff;
}

/** What is wrong with a mirror's Endpoints: `wantPorts` undefined means the target has no ready endpoint (no subsets). */
function endpointsProblems(
  key: string,
  eps: Eps | undefined,
  wantPorts: Port[] | undefined,
  o: { gatewayIp: string; gatewayPort: number; alive: boolean },
): string[] {
  if (!eps) return [`${key}: no Endpoints`];
  const subsets = eps.subsets ?? [];
  if (wantPorts === undefined) return subsets.length === 0 ? [] : [`${key}: Endpoints have subsets but the target has no ready endpoint`];
  const s = subsets[0];
  const ready = (o.alive ? s?.addresses : s?.notReadyAddresses)?.map((a) => a.ip).join(",");
  if (subsets.length !== 1 || ready !== o.gatewayIp)
    return [`${key}: Endpoints ${JSON.stringify(subsets)}, want the gateway ${o.gatewayIp} ${o.alive ? "ready" : "not ready"}`];
  const want = wantPorts.map((p) => `${p.name ?? ""}/${p.protocol ?? "TCP"}/${o.gatewayPort}`).join(",");
  const have = (s!.ports ?? []).map((p) => `${p.name ?? ""}/${p.protocol ?? "TCP"}/${p.port}`).join(",");
  return have === want ? [] : [`${key}: Endpoints ports ${have}, want ${want}`];
}

/**
 * Watches a source sandbox's commits: every Service or Endpoints written there must carry the
 * ownership label of one of the cluster names (a Link's target, and the names it had) (before and after a change); anything else is a violation.
 */
export function ownershipMonitor(source: Sandbox, clusters: ReadonlySet<string>): { violations: string[]; stop(): void } {
  const violations: string[] = [];
  const owned = (o: KubeObject | undefined) => o === undefined || clusters.has(o.metadata.labels?.[CLUSTER] ?? "");
  const off = source.store.onCommit((e: StoreEvent) => {
    if (e.key !== "/services" && e.key !== "/endpoints") return;
    if (!owned(e.object) || !owned(e.previous))
      violations.push(`${e.type} ${e.key.slice(1)} ${e.object.metadata.namespace}/${e.object.metadata.name}`);
  });
  return { violations, stop: off };
}
