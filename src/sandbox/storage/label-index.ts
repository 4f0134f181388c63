// An index of one type's objects by the value of one label, per namespace: a list or a
// controller asking for `label=value` visits only the objects carrying it (EndpointSlices by
// kubernetes.io/service-name, Pods by pod-template-hash) instead of every object in the
// namespace. The store keeps it in step at its commit point (store.ts).
import type { LabelSelector } from "../selector.ts";
import type { KubeObject } from "../types.ts";

export class LabelIndex {
  /** namespace ("" for cluster-scoped) → label value → names. */
  private readonly entries = new Map<string, Map<string, Set<string>>>();

  constructor(readonly label: string) {}

  add(obj: KubeObject): void {
    const value = obj.metadata.labels?.[this.label];
    if (value === undefined) return;
    const ns = obj.metadata.namespace ?? "";
    let byValue = this.entries.get(ns);
    if (!byValue) this.entries.set(ns, (byValue = new Map()));
    let names = byValue.get(value);
    if (!names) byValue.set(value, (names = new Set()));
    names.add(obj.metadata.name!);
  }

  remove(obj: KubeObject): void {
    const value = obj.metadata.labels?.[this.label];
    if (value === undefined) return;
    const ns = obj.metadata.namespace ?? "";
    const byValue = this.entries.get(ns);
    const names = byValue?.get(value);
    names?.delete(obj.metadata.name!);
    if (names?.size === 0) byValue!.delete(value);
    if (byValue?.size === 0) this.entries.delete(ns);
  }

  /** The value a selector requires this label to equal, if it does (then the index answers it). */
  valueIn(selector: LabelSelector | undefined): string | undefined {
    for (const r of selector ?? []) if (r.key === this.label && r.op === "=") return r.value;
    return undefined;
  }

  /** Namespace and name of every object with label=value, in `namespace` or in all. */
  candidates(namespace: string | undefined, value: string): Array<[string, string]> {
    const spaces = namespace !== undefined ? [[namespace, this.entries.get(namespace)] as const] : [...this.entries];
    const out: Array<[string, string]> = [];
    for (const [ns, byValue] of spaces) for (const name of byValue?.get(value) ?? []) out.push([ns, name]);
    return out;
  }
}
