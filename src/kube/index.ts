// The kube layer: the only part of mc that talks to clusters (and the only importer of
// @kubernetes/client-node, loaded lazily by connect). Everything else imports from here; time,
// backoff, the work queue and waiting are src/runtime's.
export { contextNames, linkNames } from "./completion-names.ts";
export type { NamesScope } from "./completion-names.ts";
export { connect, connectFromSecret, connectInCluster, connectKubeconfigText, loadKubeconfig, REMOTE_KUBECONFIG_SECRET_TYPE, SERVICE_ACCOUNT_DIR } from "./connect.ts";
export type { ConnectOptions, SecretConnectOptions } from "./connect.ts";
export { AccessTableError, KubeClient, FIELD_MANAGER, resourcePath } from "./client.ts";
export type { CallOptions, DeleteOptions, ListOptions, PatchOptions, PatchType, WatchOptions, WatchStream, WriteOptions } from "./client.ts";
export {
  AlreadyExistsError,
  ConflictError,
  KubeError,
  describeTarget,
  isAlreadyExists,
  isConflict,
  isNotFound,
  isRetryable,
  kubeError,
  toKubeError,
} from "./kube-error.ts";
export type { KubeReason, KubeVerb } from "./kube-error.ts";
export { Informer } from "./informer.ts";
export type { InformerCounters, InformerEvent, InformerOptions, InformerStatus } from "./informer.ts";
export type { ReadonlyCache } from "./cache.ts";
export { createWriter } from "./writer.ts";
export type { Writer, WriterOptions } from "./writer.ts";
export { LeaderElector, LEASE_DEFAULTS, defaultIdentity } from "./lease.ts";
export type { LeaderElectorOptions, LeaseObject } from "./lease.ts";
export type { LeaseSpec } from "./lease-record.ts";
export { mergeKubeconfigs, parseKubeconfig, selectContext } from "./kubeconfig.ts";
export type { Kubeconfig, SelectedContext } from "./kubeconfig.ts";
export { resources } from "./resources.ts";
export type { ClientLimits } from "./throttle.ts";
export { objectKey, splitKey } from "./types.ts";
export type { KubeList, KubeObject, ObjectMeta, ResourceType, WatchEvent, WatchEventType } from "./types.ts";
export { followObject, getIfExists, waitForObject } from "./wait-object.ts";
