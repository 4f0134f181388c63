// kube-apiserver's system namespaces controller: default, kube-system, kube-public and
// kube-node-lease exist from the start (created through the API, as a client would).
import type { Controller, ControllerContext } from "./controller.ts";

const SYSTEM_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];

export function systemNamespaces(ctx: ControllerContext): Controller {
  return {
    start() {
      const nsType = ctx.registry.find("", "v1", "namespaces")!;
      for (const name of SYSTEM_NAMESPACES) {
        if (!ctx.store.get(nsType, undefined, name))
          ctx.create(nsType, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
      }
    },
  };
}
