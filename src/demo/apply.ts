// Creates (or replaces) manifests in a sandbox in-process, in order — what `kubectl apply -f`
// does for a fresh cluster, without spawning kubectl. For tests and `mc demo`.
import type { Sandbox } from "../sandbox/index.ts";
import type { KubeObject } from "../sandbox/types.ts";

export function applyObjects<T extends { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }>(
  sb: Pick<Sandbox, "api" | "store">,
  objects: readonly T[],
  fieldManager = "sandbox-apply",
): void {
  for (const obj of objects) {
    const type = sb.api.registry.findKind(obj.apiVersion, obj.kind);
    if (!type) throw new Error(`sandbox serves no ${obj.apiVersion} ${obj.kind} (apply its CRD first)`);
    const ns = type.namespaced ? (obj.metadata.namespace ?? "default") : undefined;
    const body = structuredClone(obj) as unknown as KubeObject;
    const write = { fieldManager, fieldValidation: "Strict" as const };
    if (sb.store.get(type, ns, obj.metadata.name)) sb.api.update(type, ns, obj.metadata.name, body, write);
    else sb.api.create(type, ns, body, write);
  }
}
