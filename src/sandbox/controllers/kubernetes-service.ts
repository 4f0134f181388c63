// kube-apiserver's kubernetes service controller: Service default/kubernetes (10.96.0.1, https 443 → the sandbox's port), its Endpoints
// (labelled skip-mirror) and its EndpointSlice `kubernetes`, put in place once the sandbox listens. Internal writes, like the controllers':
// not counted in `store.writes`.
import { isDeepStrictEqual } from "node:util";
import { admitService, type Allocator } from "../admission/services.ts";
import { specOf } from "../object-utils.ts";
import { recordUpdateManager } from "../patch/patch.ts";
import type { Registry } from "../resources.ts";
import type { Store } from "../storage/store.ts";
import type { KubeObject } from "../types.ts";
import { SERVICE_NAME_LABEL } from "./endpointslice-mirror.ts";

/** Creates or brings up to date what the API server keeps for itself at `ip`:`port`. */
export function ensureKubernetesService(store: Store, registry: Registry, alloc: Allocator, ip: string, port: number): void {
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const put = (group: string, version: string, plural: string, obj: KubeObject) => {
    const type = registry.find(group, version, plural)!;
    const current = store.get(type, obj.metadata.namespace, obj.metadata.name!);
    if (current && plural === "services") return;
    if (current && isDeepStrictEqual(specOf(current), specOf(obj))) return;
    const meta = current ? { ...current.metadata, ...obj.metadata } : { ...obj.metadata, uid: crypto.randomUUID(), creationTimestamp: now };
    const next = recordUpdateManager(current, { ...obj, metadata: meta }, { manager: "kube-apiserver", now });
    if (current) store.replace(type, next);
    else store.insert(type, next);
  };
  const svc: KubeObject = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "kubernetes", namespace: "default", labels: { component: "apiserver", provider: "kubernetes" } },
    spec: { type: "ClusterIP", clusterIP: "10.96.0.1", ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: port }] },
  };
  admitService(svc, undefined, alloc);
  put("", "v1", "services", svc);
  const ports = [{ name: "https", port, protocol: "TCP" }];
  put("", "v1", "endpoints", {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: { name: "kubernetes", namespace: "default", labels: { "endpointslice.kubernetes.io/skip-mirror": "true" } },
    subsets: [{ addresses: [{ ip }], ports }],
  });
  put("discovery.k8s.io", "v1", "endpointslices", {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name: "kubernetes", namespace: "default", labels: { [SERVICE_NAME_LABEL]: "kubernetes" } },
    addressType: "IPv4",
    endpoints: [{ addresses: [ip], conditions: { ready: true } }],
    ports,
  });
}
