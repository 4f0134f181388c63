// The apiextensions controllers: a CustomResourceDefinition is named plural.group and its names
// are accepted (and the CRD established) at once; from then on the registry serves its types,
// until it is deleted, which deletes its custom resources first.
import type { Controller, ControllerContext } from "./controller.ts";
import { errors, type KubeObject, type ResourceType } from "../types.ts";

const isCrd = (type: ResourceType) => type.kind === "CustomResourceDefinition";

/** A CRD is named plural.group, and its names are accepted at once. Mutates `crd`. */
function admitCrd(crd: KubeObject): void {
  const spec = crd.spec as { group?: string; names?: { plural?: string } } | undefined;
  const expected = `${spec?.names?.plural}.${spec?.group}`;
  if (crd.metadata.name !== expected) {
    throw errors.invalid(
      "CustomResourceDefinition",
      crd.metadata.name ?? "",
      [{ field: "metadata.name", message: `Invalid value: "${crd.metadata.name}": must be spec.names.plural+"."+spec.group` }],
      "apiextensions.k8s.io",
    );
  }
  crd.status = {
    conditions: [
      {
        type: "NamesAccepted",
        status: "True",
        reason: "NoConflicts",
        message: "no conflicts found",
        lastTransitionTime: new Date().toISOString(),
      },
      {
        type: "Established",
        status: "True",
        reason: "InitialNamesAccepted",
        message: "the initial names have been accepted",
        lastTransitionTime: new Date().toISOString(),
      },
    ],
    acceptedNames: (crd.spec as { names: object }).names,
    storedVersions: ((crd.spec as { versions: { name: string; storage?: boolean }[] }).versions ?? [])
      .filter((v) => v.storage)
      .map((v) => v.name),
  };
}

export function customResourceDefinitions(ctx: ControllerContext): Controller {
  return {
    start() {
      // A store kept across a restart carries its CRDs with it.
      for (const crd of ctx.store.list({ group: "apiextensions.k8s.io", plural: "customresourcedefinitions" }))
        ctx.registry.setCrd(crd.metadata.name!, crd);
    },
    admit(type, obj) {
      if (isCrd(type)) admitCrd(obj);
    },
    beforeDelete(type, crd) {
      if (!isCrd(type)) return;
      const served = ctx.registry.all().find((t) => t.crd?.name === crd.metadata.name);
      if (!served) return;
      for (const o of ctx.store.list(served)) ctx.store.remove(served, o.metadata.namespace, o.metadata.name!);
    },
    onWrite(type, obj) {
      if (isCrd(type)) ctx.registry.setCrd(obj.metadata.name!, obj);
    },
    onDelete(type, obj) {
      if (isCrd(type)) ctx.registry.setCrd(obj.metadata.name!, undefined);
    },
  };
}
