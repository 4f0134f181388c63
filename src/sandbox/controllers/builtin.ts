// The built-in controllers, in the order the Api calls their hooks: the one hook list. A new
// controller is a file in this folder and an entry here.
import type { Controller, ControllerContext } from "./controller.ts";
import { customResourceDefinitions } from "./crd.ts";
import { deployments } from "./deployments.ts";
import { endpoints } from "./endpoints.ts";
import { endpointSlices } from "./endpointslices.ts";
import { endpointSliceMirroring } from "./endpointslice-mirror.ts";
import { kubelet, type Kubelet } from "./kubelet.ts";
import { loadBalancers } from "./load-balancer.ts";
import { namespaceGC } from "./namespace-gc.ts";
import { replicaSets } from "./replicasets.ts";
import { serviceAccountTokens } from "./service-account-tokens.ts";
import { systemNamespaces } from "./system-namespaces.ts";

export interface BuiltinControllers {
  all: readonly Controller[];
  /** The fake kubelet, whose test control sets a Pod's readiness. */
  kubelet: Kubelet;
}

export function builtinControllers(ctx: ControllerContext): BuiltinControllers {
  const node = kubelet(ctx);
  return {
    kubelet: node,
    all: [
      systemNamespaces(ctx),
      customResourceDefinitions(ctx),
      serviceAccountTokens(ctx),
      namespaceGC(ctx),
      loadBalancers(),
      // Pods start (IP, Ready) on their way in, before anything reads them.
      node,
      deployments(ctx),
      replicaSets(ctx),
      // Before the mirroring controller: a deleted Service's Endpoints go first, then its slices.
      endpoints(ctx),
      endpointSlices(ctx),
      endpointSliceMirroring(ctx),
    ],
  };
}
