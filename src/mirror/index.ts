// The service mirror as a library: pure core (read → desired → phases → outcomes, status) and the controller for one
// Link. The process around it (`serve`, the supervisor, leader election) is src/serve/, which imports this and never the reverse.
export { desiredGatewayMirror, desiredMirror, hasReadyEndpoints, isExported, isHeadlessService } from "./reconcile/desired.ts";
export type { DesiredInput, DesiredMirror, DesiredOptions, NamespaceObject, RemoteEvent, RemoteState } from "./reconcile/desired.ts";
export { headlessEndpoints } from "./reconcile/headless.ts";
export type { EndpointMirror, HeadlessDesired } from "./reconcile/headless.ts";
export { planEndpointMirrors, planEndpoints, planGatewayMirror, planMirror } from "./reconcile/plan.ts";
export type { MirrorOp, Plan } from "./reconcile/plan.ts";
export { mirrorServicesStatus, keepTransitionTimes, sameMirrorServices, MAX_STATUS_ENTRIES } from "./status/status.ts";
export type { MirrorFailure, MirrorServiceStatus } from "./status/status.ts";
export { resolveGatewayAddresses, systemResolver } from "./gateway.ts";
export type { Resolver } from "./gateway.ts";
export { MirrorController } from "./controller.ts";
export type { MirrorControllerOptions } from "./controller.ts";
export { GATEWAY_KEY, STATUS_KEY } from "./types.ts";
export { serviceKey } from "./sources/keys.ts";
export type { MirrorKey, ServiceKey } from "./sources/keys.ts";
export type { FailureReason, MirrorProblem, ResolvedGateway } from "./types.ts";
