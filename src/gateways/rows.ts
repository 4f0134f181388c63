// What `mc gateways` shows for each probed Link: its status.gateway as the controller wrote it,
// judged fresh or stale (src/model/staleness.ts) against the reader's clock, and the number of mirrored services. Pure.
import type { Link } from "../model/link.ts";
import { isStale } from "../model/staleness.ts";

export interface GatewayRow {
  clusterName: string;
  /** The last reported liveness; false when the Link never reported. */
  alive: boolean;
  /** No fresh report: the controller stopped, is not running, or has not probed yet. */
  stale: boolean;
  numberOfServices: number;
  /** As written in status.gateway (`12ms`); null when absent. */
  latency: { p50: string | null; p95: string | null; p99: string | null };
  lastProbeTime: string | null;
  /** Set when the Link does not parse (ALIVE `invalid`): what is wrong with it, naming the field. */
  problem?: string;
}

/** A Link that does not parse, by the cluster it names (or its own name). */
export interface InvalidLink {
  clusterName: string;
  problem: string;
}

function gatewayRow(link: Link, numberOfServices: number, now: number): GatewayRow {
  const status = link.status.gateway;
  const periodMs = link.probe?.periodMs ?? 0;
  return {
    clusterName: link.targetClusterName,
    alive: status?.alive === true,
    stale: isStale(status, periodMs, now),
    numberOfServices,
    latency: { p50: status?.latency?.p50 ?? null, p95: status?.latency?.p95 ?? null, p99: status?.latency?.p99 ?? null },
    lastProbeTime: status?.lastProbeTime ?? null,
  };
}

/**
 * One row per Link that probes a gateway (a gateway-less Link has no gateway to show, as
 * Linkerd skips clusters whose gateway_enabled is not 1), and one per Link that does not parse
 * (nothing is mirrored for it), sorted by cluster name.
 */
export function gatewayRows(
  links: readonly Link[],
  serviceCounts: ReadonlyMap<string, number>,
  now: number,
  invalid: readonly InvalidLink[] = [],
): GatewayRow[] {
  const invalidRow = (l: InvalidLink): GatewayRow => ({
    clusterName: l.clusterName,
    alive: false,
    stale: false,
    numberOfServices: serviceCounts.get(l.clusterName) ?? 0,
    latency: { p50: null, p95: null, p99: null },
    lastProbeTime: null,
    problem: l.problem,
  });
  return [
    ...links
      .filter((l) => l.probe !== null)
      .map((l) => ({ key: `${l.targetClusterName}\u0000${l.name}`, row: gatewayRow(l, serviceCounts.get(l.targetClusterName) ?? 0, now) })),
    ...invalid.map((l) => ({ key: `${l.clusterName}\u0000`, row: invalidRow(l) })),
  ]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((x) => x.row);
}
