// What one cluster exports (its ExportView, from its Service and ServiceExport), and the merge of every exporting cluster's view into one
// ServiceImport as KEP-1645 says: the global properties from the oldest export (by the ServiceExport's creation, then cluster name), the
// ports the union by name (a name used for different ports takes the oldest's), every disagreement a conflict. Pure.
import type { ObjectMeta } from "../lib/kube-api.ts";
import {
  REASONS,
  type ImportType,
  type McsPort,
  type ServiceExportObject,
  type ServiceImportSpec,
  type SessionAffinityConfig,
} from "./api.ts";

/** One cluster's export, as every writer of the import sees it. */
export interface ExportView {
  cluster: string;
  /** The ServiceExport's creationTimestamp: the oldest export wins conflicts. */
  created: string;
  type: ImportType;
  ports: McsPort[];
  sessionAffinity: string;
  sessionAffinityConfig?: SessionAffinityConfig;
  internalTrafficPolicy?: string;
  trafficDistribution?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** The Service fields a view is made of. */
export interface ExportedService {
  metadata: ObjectMeta;
  spec?: {
    type?: string;
    clusterIP?: string;
    ports?: Array<{ name?: string; protocol?: string; port: number; appProtocol?: string }>;
    sessionAffinity?: string;
    sessionAffinityConfig?: SessionAffinityConfig;
    internalTrafficPolicy?: string;
    trafficDistribution?: string;
  };
}

export type ExportJudgement =
  | { view: ExportView }
  | { invalid: { reason: typeof REASONS.noService | typeof REASONS.invalidServiceType; message: string } };

/** A cluster's view of its export, or why the export is not valid (its `Valid=False` reason). */
export function judgeExport(cluster: string, exp: ServiceExportObject, svc: ExportedService | undefined): ExportJudgement {
  const { namespace, name } = exp.metadata;
  if (!svc) return { invalid: { reason: REASONS.noService, message: `Service ${namespace}/${name} not found` } };
  const spec = svc.spec ?? {};
  if (spec.type === "ExternalName")
    return {
      invalid: {
        reason: REASONS.invalidServiceType,
        message: `Service type ExternalName is not supported; export a ClusterIP or headless Service`,
      },
    };
  return {
    view: {
      cluster,
      created: exp.metadata.creationTimestamp ?? "",
      type: spec.clusterIP === "None" ? "Headless" : "ClusterSetIP",
      ports: (spec.ports ?? []).map((p) => ({
        ...(p.name ? { name: p.name } : {}),
        protocol: p.protocol ?? "TCP",
        port: p.port,
        ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}),
      })),
      sessionAffinity: spec.sessionAffinity ?? "None",
      ...(spec.sessionAffinityConfig ? { sessionAffinityConfig: spec.sessionAffinityConfig } : {}),
      ...(spec.internalTrafficPolicy ? { internalTrafficPolicy: spec.internalTrafficPolicy } : {}),
      ...(spec.trafficDistribution ? { trafficDistribution: spec.trafficDistribution } : {}),
      labels: exp.spec?.exportedLabels ?? {},
      annotations: exp.spec?.exportedAnnotations ?? {},
    },
  };
}

type ConflictReason =
  | "TypeConflict"
  | "PortConflict"
  | "SessionAffinityConflict"
  | "SessionAffinityConfigConflict"
  | "InternalTrafficPolicyConflict"
  | "TrafficDistributionConflict"
  | "LabelsConflict"
  | "AnnotationsConflict";

interface Conflict {
  reason: ConflictReason;
  /** The property, as the message names it. */
  what: string;
  /** The value used (the oldest export's). */
  used: string;
  /** The clusters whose export says otherwise. */
  disagree: string[];
}

export interface MergedImport {
  spec: Omit<ServiceImportSpec, "ips" | "ipFamilies">;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** Every exporting cluster, sorted (`status.clusters`). */
  clusters: string[];
  oldest: string;
  conflicts: Conflict[];
}

const byAge = (a: ExportView, b: ExportView) =>
  a.created < b.created ? -1 : a.created > b.created ? 1 : a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0;
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const portKey = (p: McsPort) => `${p.protocol}/${p.port}/${p.appProtocol ?? ""}`;
const sortPorts = (ports: McsPort[]) =>
  [...ports].sort((a, b) => (a.name ?? "").localeCompare(b.name ?? "") || a.port - b.port || a.protocol.localeCompare(b.protocol));

/** The import the views make; undefined when there is none. */
export function mergeViews(views: readonly ExportView[]): MergedImport | undefined {
  if (views.length === 0) return undefined;
  const ordered = [...views].sort(byAge);
  const oldest = ordered[0]!;
  const conflicts: Conflict[] = [];
  const differ = (reason: ConflictReason, what: string, get: (v: ExportView) => unknown, used = JSON.stringify(get(oldest) ?? null)) => {
    const disagree = ordered.filter((v) => !same(get(v), get(oldest))).map((v) => v.cluster);
    if (disagree.length > 0) conflicts.push({ reason, what, used, disagree });
  };
  differ("TypeConflict", "type", (v) => v.type, oldest.type);
  // The other properties are merged from the exports of the chosen type (a Headless export's ports do not join a ClusterSetIP import).
  const members = ordered.filter((v) => v.type === oldest.type);
  const ports: McsPort[] = [];
  const byName = new Map<string, McsPort>();
  for (const v of members) {
    for (const p of v.ports) {
      const name = p.name ?? "";
      const held = byName.get(name);
      if (held) continue; // the oldest export's port of this name stays (a different one is a conflict, found below)
      byName.set(name, p);
      ports.push(p);
    }
  }
  const merged = sortPorts(ports);
  const portsOf = (v: ExportView) => sortPorts(v.ports).map((p) => `${p.name ?? ""}=${portKey(p)}`);
  const disagreePorts = members
    .filter(
      (v) =>
        !same(
          portsOf(v),
          merged.map((p) => `${p.name ?? ""}=${portKey(p)}`),
        ),
    )
    .map((v) => v.cluster);
  if (disagreePorts.length > 0)
    conflicts.push({
      reason: "PortConflict",
      what: "ports",
      used: merged.map((p) => `${p.name ? `${p.name}:` : ""}${p.port}/${p.protocol}`).join(","),
      disagree: disagreePorts,
    });
  const among = (reason: ConflictReason, what: string, get: (v: ExportView) => unknown) => {
    const disagree = members.filter((v) => !same(get(v), get(oldest))).map((v) => v.cluster);
    if (disagree.length > 0) conflicts.push({ reason, what, used: JSON.stringify(get(oldest) ?? null), disagree });
  };
  among("SessionAffinityConflict", "sessionAffinity", (v) => v.sessionAffinity);
  among("SessionAffinityConfigConflict", "sessionAffinityConfig", (v) => v.sessionAffinityConfig);
  among("InternalTrafficPolicyConflict", "internalTrafficPolicy", (v) => v.internalTrafficPolicy);
  among("TrafficDistributionConflict", "trafficDistribution", (v) => v.trafficDistribution);
  differ("LabelsConflict", "labels", (v) => sortedRecord(v.labels));
  differ("AnnotationsConflict", "annotations", (v) => sortedRecord(v.annotations));
  return {
    spec: {
      type: oldest.type,
      ports: merged,
      sessionAffinity: oldest.sessionAffinity,
      ...(oldest.sessionAffinityConfig ? { sessionAffinityConfig: oldest.sessionAffinityConfig } : {}),
      ...(oldest.internalTrafficPolicy ? { internalTrafficPolicy: oldest.internalTrafficPolicy } : {}),
      ...(oldest.trafficDistribution ? { trafficDistribution: oldest.trafficDistribution } : {}),
    },
    labels: { ...oldest.labels },
    annotations: { ...oldest.annotations },
    clusters: ordered.map((v) => v.cluster).sort(),
    oldest: oldest.cluster,
    conflicts,
  };
}

function sortedRecord(r: Record<string, string>): Array<[string, string]> {
  return Object.entries(r).sort(([a], [b]) => a.localeCompare(b));
}

/** The `Conflict` condition's reason and message for a merged import (KEP-1645's "n/m clusters disagree"). */
export function conflictCondition(m: MergedImport): { status: "True" | "False"; reason: string; message: string } {
  if (m.conflicts.length === 0) return { status: "False", reason: REASONS.noConflicts, message: "" };
  const total = m.clusters.length;
  return {
    status: "True",
    reason: m.conflicts.map((c) => c.reason).join(","),
    message: m.conflicts
      .map(
        (c) => `${c.disagree.length}/${total} clusters disagree, using ${c.what} ${c.used} from the oldest export in cluster "${m.oldest}"`,
      )
      .join("; "),
  };
}
