// The kube layer: the only part of mc that talks to clusters (and the only importer of
// @kubernetes/client-node, loaded lazily by connect). Everything else imports from here; time,
// backoff, the work queue and waiting are src/runtime's.
export { contextNames, linkNames } from "./completion-names.ts";
export { connect, connectFromSecret, connectKubeconfigText, loadKubeconfig } from "./connect.ts";
export type { SecretConnectOptions } from "./connect.ts";
export { AccessTableError, KubeClient } from "./client.ts";
export { KubeError, isAlreadyExists, isConflict, isNotFound } from "./kube-error.ts";
export { Informer } from "./informer.ts";
export type { InformerEvent } from "./informer.ts";
export type { ReadonlyCache } from "./cache.ts";
export { createWriter } from "./writer.ts";
export type { Writer } from "./writer.ts";
export { LeaderElector } from "./lease.ts";
export { parseKubeconfig, selectContext } from "./kubeconfig.ts";
export type { SelectedContext } from "./kubeconfig.ts";
export { resources } from "./resources.ts";
export type { KubeObject, ResourceType } from "./types.ts";
export { getIfExists, waitForObject } from "./wait-object.ts";
