// The endpoints controller, the one part of it mc relies on: a deleted Service's Endpoints go
// with it (through the API).
import type { Controller, ControllerContext } from "./controller.ts";

export function endpoints(ctx: ControllerContext): Controller {
  return {
    onDelete(type, svc) {
      if (type.kind !== "Service") return;
      const ep = ctx.registry.find("", "v1", "endpoints")!;
      if (ctx.store.get(ep, svc.metadata.namespace, svc.metadata.name!)) ctx.delete(ep, svc.metadata.namespace, svc.metadata.name!);
    },
  };
}
