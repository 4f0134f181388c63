// The service mirror: pure core (read → desired → phases → outcomes, status), the controller for one Link, the
// supervisor that follows the Link and its Secret, and `serve` (admin server + leader election).
export { desiredGatewayMirror, desiredMirror, hasReadyEndpoints, isExported, isHeadlessService } from "./desired.ts";
export type { DesiredInput, DesiredMirror, DesiredOptions, NamespaceObject, RemoteEvent, RemoteState } from "./desired.ts";
export { headlessEndpoints } from "./headless.ts";
export type { EndpointMirror, HeadlessDesired } from "./headless.ts";
export { planEndpointMirrors, planEndpoints, planGatewayMirror, planMirror } from "./plan.ts";
export type { MirrorOp, Plan } from "./plan.ts";
export { mirrorServicesStatus, keepTransitionTimes, sameMirrorServices, MAX_STATUS_ENTRIES } from "./status.ts";
export type { MirrorFailure, MirrorServiceStatus } from "./status.ts";
export { resolveGatewayAddresses, systemResolver } from "./gateway.ts";
export type { Resolver } from "./gateway.ts";
export { MirrorController } from "./controller.ts";
export type { MirrorControllerOptions } from "./controller.ts";
export { LinkSupervisor } from "./supervisor.ts";
export type { ControllerSettings, SupervisorOptions, SupervisorState } from "./supervisor.ts";
export { serve } from "./serve.ts";
export type { ServeOptions, Serving } from "./serve.ts";
export { GATEWAY_KEY, STATUS_KEY } from "./types.ts";
export { serviceKey } from "./keys.ts";
export type { MirrorKey, ServiceKey } from "./keys.ts";
export type { FailureReason, MirrorProblem, ResolvedGateway } from "./types.ts";
