// The Multi-Cluster Services API (KEP-1645) as mc speaks it: the two kinds (v1beta1, the stored
// version), their labels, condition types and reasons, and the shapes mc reads and writes. Pure.
import type { ResourceType } from "../kube/index.ts";
import type { ObjectMeta } from "../lib/kube-api.ts";

const MCS_GROUP = "multicluster.x-k8s.io";
export const MCS_API_VERSION = `${MCS_GROUP}/v1beta1`;

export const mcsResources = {
  serviceExport: { apiVersion: MCS_API_VERSION, kind: "ServiceExport", plural: "serviceexports", namespaced: true },
  serviceImport: { apiVersion: MCS_API_VERSION, kind: "ServiceImport", plural: "serviceimports", namespaced: true },
} as const satisfies Record<string, ResourceType>;

/** On an MCS EndpointSlice: the ServiceImport it belongs to. */
export const LABEL_SERVICE_NAME = "multicluster.kubernetes.io/service-name";
/** On an MCS EndpointSlice: the cluster whose endpoints it holds. */
export const LABEL_SOURCE_CLUSTER = "multicluster.kubernetes.io/source-cluster";
/** discovery.k8s.io's: the Service an EndpointSlice belongs to (here the derived Service). */
export const LABEL_K8S_SERVICE_NAME = "kubernetes.io/service-name";
/** discovery.k8s.io's: who manages an EndpointSlice (not the default controller, so it leaves ours alone). */
export const LABEL_MANAGED_BY = "endpointslice.kubernetes.io/managed-by";
/** The value of LABEL_MANAGED_BY on the slices mc writes. */
export const MANAGED_BY_MC = "mc.multicluster.linkerd.io";
/**
 * On an MCS EndpointSlice mc writes: what its cluster exports (its ExportView, JSON), so every
 * writer of the import merges the same views — each cluster's in the slice only its writer owns.
 */
export const ANNOTATION_EXPORT = "mc.multicluster.linkerd.io/export";

export type ImportType = "ClusterSetIP" | "Headless";

export interface McsPort {
  name?: string;
  protocol: string;
  port: number;
  appProtocol?: string;
}

export interface SessionAffinityConfig {
  clientIP?: { timeoutSeconds?: number };
}

export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface ServiceExportObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: { exportedLabels?: Record<string, string>; exportedAnnotations?: Record<string, string> };
  status?: { conditions?: Condition[]; clusters?: Array<{ cluster: string }> };
}

export interface ServiceImportSpec {
  type: ImportType;
  ports: McsPort[];
  ips?: string[];
  ipFamilies?: string[];
  sessionAffinity?: string;
  sessionAffinityConfig?: SessionAffinityConfig;
  internalTrafficPolicy?: string;
  trafficDistribution?: string;
}

export interface ServiceImportObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: ServiceImportSpec;
  status?: { clusters?: Array<{ cluster: string }>; conditions?: Condition[] };
}

/** ServiceExport's condition types and their reasons (KEP-1645). */
export const EXPORT_CONDITIONS = { valid: "Valid", ready: "Ready", conflict: "Conflict" } as const;
export const REASONS = {
  valid: "Valid",
  noService: "NoService",
  invalidServiceType: "InvalidServiceType",
  ready: "Ready",
  pending: "Pending",
  noConflicts: "NoConflicts",
} as const;
