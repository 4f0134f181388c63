// `mc gateways` reads only the source cluster's API (a laptop with its kubeconfig is enough: no port-forward, no Prometheus): the Links
// with their status.gateway, and the mirror Services and the MCS imports (mc's EndpointSlice of each cluster) that count as paired
// services. With `waitMs`, it reads again until every probed Link has a fresh status.
import { UserError } from "../errors.ts";
import { isNotFound, resources, type KubeClient, type KubeObject } from "../kube/index.ts";
import { sleep, systemClock, type Clock } from "../runtime/index.ts";
import { logger, type Logger } from "../log.ts";
import { formatDuration } from "../model/duration.ts";
import { CLUSTER_NAME, HEADLESS_MIRROR_SVC_NAME, MIRRORED_GATEWAY, MIRRORED_SERVICE } from "../model/labels.ts";
import { LinkError, linkResource, parseLink, type Link } from "../model/link.ts";
import { LABEL_MANAGED_BY, LABEL_SERVICE_NAME, LABEL_SOURCE_CLUSTER, MANAGED_BY_MC } from "../mcs/api.ts";
import { renderGateways, type GatewayOutput } from "./render.ts";
import { gatewayRows, type GatewayRow, type InvalidLink } from "./rows.ts";

// Every "nothing to show" case is one line saying the fix.

export interface GatewaysQuery {
  /** The extension namespace, where the Links live. */
  namespace: string;
  /** Only this target cluster's Link. */
  clusterName?: string;
}

export interface GatewaysSnapshot {
  links: Link[];
  /** Links that do not parse: shown as ALIVE `invalid` (the controller mirrors nothing for them). */
  invalid: InvalidLink[];
  /** Mirror Services by cluster name (the gateway mirror and headless endpoint mirrors excluded). */
  serviceCounts: Map<string, number>;
}

const LINK_FIX = "link a target with `mc --context <target> link --cluster-name <name> | kubectl apply -f -`";

export async function readGatewaysSnapshot(
  client: KubeClient,
  q: GatewaysQuery,
  log: Logger = logger("gateways"),
): Promise<GatewaysSnapshot> {
  const read = await listLinks(client, q.namespace, log);
  const all = read.links;
  const mine = (cluster: string) => q.clusterName === undefined || cluster === q.clusterName;
  const links = all.filter((l) => mine(l.targetClusterName));
  const invalid = read.invalid.filter((l) => mine(l.clusterName));
  if (links.length === 0 && invalid.length === 0) {
    if (q.clusterName !== undefined) {
      const found = [...all.map((l) => l.targetClusterName), ...read.invalid.map((l) => l.clusterName)].sort();
      const others = found.length > 0 ? `Links there are for ${found.join(", ")}` : "there are no Links there";
      throw new UserError(
        `no Link for cluster ${q.clusterName} in namespace ${q.namespace} on ${client.cluster} (${others}): check --cluster-name, or ${LINK_FIX}`,
      );
    }
    await requireNamespace(client, q.namespace);
    throw new UserError(`no Links in namespace ${q.namespace} on ${client.cluster}: ${LINK_FIX}`);
  }
  for (const l of links) if (l.probe === null) log.debug(`Link ${l.namespace}/${l.name} probes no gateway (no probeSpec): not shown`);
  return { links, invalid, serviceCounts: await countMirrors(client, q.clusterName) };
}

async function listLinks(client: KubeClient, namespace: string, log: Logger): Promise<{ links: Link[]; invalid: InvalidLink[] }> {
  let items: KubeObject[];
  try {
    items = (await client.list(linkResource, { namespace })).items;
  } catch (err) {
    if (isNotFound(err)) {
      throw new UserError(
        `the Link resource (links.multicluster.linkerd.io) is not installed on ${client.cluster}: install the extension with \`mc install | kubectl apply -f -\``,
      );
    }
    throw err;
  }
  const links: Link[] = [];
  const invalid: InvalidLink[] = [];
  for (const item of items) {
    try {
      links.push(parseLink(item));
    } catch (err) {
      if (!(err instanceof LinkError)) throw err;
      log.warn(`${err.message} (shown as ALIVE invalid)`);
      const name = (item.spec as { targetClusterName?: unknown } | undefined)?.targetClusterName;
      invalid.push({ clusterName: typeof name === "string" && name !== "" ? name : (item.metadata.name ?? ""), problem: err.message });
    }
  }
  return { links, invalid };
}

async function requireNamespace(client: KubeClient, namespace: string): Promise<void> {
  try {
    await client.get(resources.namespace, undefined, namespace);
  } catch (err) {
    if (isNotFound(err)) {
      throw new UserError(
        `namespace ${namespace} not found on ${client.cluster}: install the extension with \`mc install | kubectl apply -f -\`, or pass --namespace`,
      );
    }
    // Not allowed to read namespaces: the "no Links" message is still right.
  }
}

async function countMirrors(client: KubeClient, clusterName: string | undefined): Promise<Map<string, number>> {
  const selector = [
    `${MIRRORED_SERVICE}=true`,
    `!${MIRRORED_GATEWAY}`,
    `!${HEADLESS_MIRROR_SVC_NAME}`,
    ...(clusterName ? [`${CLUSTER_NAME}=${clusterName}`] : [`${CLUSTER_NAME}`]),
  ];
  const counts = new Map<string, number>();
  const { items } = await client.list(resources.service, { labelSelector: selector.join(",") });
  for (const svc of items) {
    const cluster = svc.metadata.labels?.[CLUSTER_NAME];
    if (cluster) counts.set(cluster, (counts.get(cluster) ?? 0) + 1);
  }
  // Each MCS import a cluster takes part in counts as one of its services (its mc EndpointSlice here).
  for (const slice of await mcsSlices(client, clusterName)) {
    const cluster = slice.metadata.labels?.[LABEL_SOURCE_CLUSTER];
    if (cluster) counts.set(cluster, (counts.get(cluster) ?? 0) + 1);
  }
  return counts;
}

/** mc's MCS EndpointSlices (one per import and exporting cluster); none where the kind or the read is refused. */
async function mcsSlices(client: KubeClient, clusterName: string | undefined): Promise<KubeObject[]> {
  const selector = [
    `${LABEL_MANAGED_BY}=${MANAGED_BY_MC}`,
    LABEL_SERVICE_NAME,
    clusterName ? `${LABEL_SOURCE_CLUSTER}=${clusterName}` : LABEL_SOURCE_CLUSTER,
  ].join(",");
  try {
    return (await client.list(resources.endpointSlice, { labelSelector: selector })).items;
  } catch (err) {
    if ((err as { code?: number }).code === 403 || isNotFound(err)) return [];
    throw err;
  }
}

export interface GatewaysOptions extends GatewaysQuery {
  client: KubeClient;
  output: GatewayOutput;
  /** `--wait`: read again until every probed Link reports a fresh status, for at most this long. 0 = read once. */
  waitMs?: number;
  /** Between reads while waiting; default 1 s. */
  pollMs?: number;
  clock?: Clock;
  log?: Logger;
}

/** The rows now (or, with waitMs, once all are fresh). */
export async function readGateways(o: GatewaysOptions): Promise<GatewayRow[]> {
  const clock = o.clock ?? systemClock;
  const waitMs = o.waitMs ?? 0;
  const deadline = clock.now() + waitMs;
  for (;;) {
    const snap = await readGatewaysSnapshot(o.client, o, o.log);
    const rows = gatewayRows(snap.links, snap.serviceCounts, clock.now(), snap.invalid);
    const stale = rows.filter((r) => r.stale).map((r) => r.clusterName);
    if (waitMs <= 0 || stale.length === 0) return rows;
    const left = deadline - clock.now();
    if (left <= 0) {
      throw new UserError(
        `timed out after ${formatDuration(waitMs)} waiting for the gateway status of ${stale.join(", ")}: ` +
          `is mc serve running for ${stale.length === 1 ? "that Link" : "those Links"}? (its logs say why it does not report)`,
      );
    }
    await sleep(clock, Math.min(o.pollMs ?? 1000, left));
  }
}

/** What `mc gateways` prints on stdout. */
export async function gatewaysOutput(o: GatewaysOptions): Promise<string> {
  return renderGateways(await readGateways(o), o.output);
}
