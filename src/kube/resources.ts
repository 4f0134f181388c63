// The built-in resource types mc reads and writes. Custom resources (Link) are declared the same
// way by their owners in src/model/.
import type { ResourceType } from "./types.ts";

export const resources = {
  namespace: { apiVersion: "v1", kind: "Namespace", plural: "namespaces", namespaced: false },
  service: { apiVersion: "v1", kind: "Service", plural: "services", namespaced: true },
  endpoints: { apiVersion: "v1", kind: "Endpoints", plural: "endpoints", namespaced: true },
  endpointSlice: { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", plural: "endpointslices", namespaced: true },
  secret: { apiVersion: "v1", kind: "Secret", plural: "secrets", namespaced: true },
  configMap: { apiVersion: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true },
  serviceAccount: { apiVersion: "v1", kind: "ServiceAccount", plural: "serviceaccounts", namespaced: true },
  event: { apiVersion: "v1", kind: "Event", plural: "events", namespaced: true },
  pod: { apiVersion: "v1", kind: "Pod", plural: "pods", namespaced: true },
  lease: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", plural: "leases", namespaced: true },
  deployment: { apiVersion: "apps/v1", kind: "Deployment", plural: "deployments", namespaced: true },
  customResourceDefinition: {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    plural: "customresourcedefinitions",
    namespaced: false,
  },
} as const satisfies Record<string, ResourceType>;
