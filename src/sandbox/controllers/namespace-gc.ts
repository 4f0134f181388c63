// The namespace controller: deleting a Namespace deletes everything in it first (through the
// API, so each deletion is seen and its own controllers run), then the Namespace goes.
import type { Controller, ControllerContext } from "./controller.ts";

export function namespaceGC(ctx: ControllerContext): Controller {
  return {
    beforeDelete(type, ns) {
      if (type.kind !== "Namespace") return;
      const namespace = ns.metadata.name!;
      for (const t of ctx.registry.all()) {
        if (!t.namespaced || !t.verbs.includes("delete")) continue;
        for (const o of ctx.store.list(t, { namespace })) {
          if (ctx.store.get(t, namespace, o.metadata.name!)) ctx.delete(t, namespace, o.metadata.name!);
        }
      }
    },
  };
}
