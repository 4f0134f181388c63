// The built-in controllers, in the order the Api calls their hooks: the one hook list. A new
// controller is a file in this folder and an entry here.
import type { Controller, ControllerContext } from "./controller.ts";
import { customResourceDefinitions } from "./crd.ts";
import { endpoints } from "./endpoints.ts";
import { endpointSliceMirroring } from "./endpointslice-mirror.ts";
import { namespaceGC } from "./namespace-gc.ts";
import { serviceAccountTokens } from "./service-account-tokens.ts";
import { systemNamespaces } from "./system-namespaces.ts";

export function builtinControllers(ctx: ControllerContext): readonly Controller[] {
  return [
    systemNamespaces(ctx),
    customResourceDefinitions(ctx),
    serviceAccountTokens(ctx),
    namespaceGC(ctx),
    // Before the mirroring controller: a deleted Service's Endpoints go first, then its slices.
    endpoints(ctx),
    endpointSliceMirroring(ctx),
  ];
}
