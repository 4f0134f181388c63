// What every renderer shares: the manifest shape and the metadata every object carries.
import { CREATED_BY, EXTENSION, EXTENSION_NAME } from "../model/labels.ts";

interface ManifestMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** A Kubernetes object as a renderer returns it: plain data, ready for YAML or JSON. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: ManifestMeta;
  [key: string]: unknown;
}

/** `linkerd.io/created-by` value: which tool and version rendered the object. */
export const createdBy = (version: string): string => `mc/cli ${version}`;

/** `linkerd.io/extension: multicluster` plus extra labels. */
export const extensionLabels = (extra: Record<string, string> = {}): Record<string, string> => ({ [EXTENSION]: EXTENSION_NAME, ...extra });

/** An object with name, optional namespace, the extension label (plus `labels`) and created-by (plus `annotations`). */
export function object(
  apiVersion: string,
  kind: string,
  meta: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string>; version: string },
  body: Record<string, unknown> = {},
): Manifest {
  const metadata: ManifestMeta = { name: meta.name };
  if (meta.namespace !== undefined) metadata.namespace = meta.namespace;
  metadata.labels = extensionLabels(meta.labels);
  metadata.annotations = { [CREATED_BY]: createdBy(meta.version), ...meta.annotations };
  return { apiVersion, kind, metadata, ...body };
}

/** The container security settings Linkerd gives its own containers: non-root, read-only, no capabilities. */
export function restrictedContainer(uid: number): Record<string, unknown> {
  return {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ["ALL"] },
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    runAsUser: uid,
    runAsGroup: uid,
    seccompProfile: { type: "RuntimeDefault" },
  };
}

/** HA scheduling (Linkerd's values-ha): replicas on different nodes (required), zones (preferred). */
export function antiAffinity(matchLabels: Record<string, string>): Record<string, unknown> {
  return {
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels }, topologyKey: "kubernetes.io/hostname" }],
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight: 100, podAffinityTerm: { labelSelector: { matchLabels }, topologyKey: "topology.kubernetes.io/zone" } },
      ],
    },
  };
}
