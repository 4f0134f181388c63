// The kinds of object the mirror writes, one row each: the API resource it is written through, and whether the mirror owns it (keeps it up
// to date and deletes it: it also keeps a LocalView of it, its own writes known before their events) or only creates it (a namespace). A
// new output — an EndpointSlice, a ServiceImport — is a row here, a phase in phases.ts and its desired function.
import { resources, type ResourceType } from "../../kube/index.ts";

export const OUTPUT_KINDS = {
  Namespace: { resource: resources.namespace, owned: false },
  Service: { resource: resources.service, owned: true },
  Endpoints: { resource: resources.endpoints, owned: true },
  /** `--mirror-endpoint-slices`: a mirror's endpoints as EndpointSlices (slices.ts). */
  EndpointSlice: { resource: resources.endpointSlice, owned: true },
} as const satisfies Record<string, { resource: ResourceType; owned: boolean }>;

export type OutputKind = keyof typeof OUTPUT_KINDS;

/** The kinds the mirror updates and deletes (and keeps a view of). */
export type OwnedKind = { [K in OutputKind]: (typeof OUTPUT_KINDS)[K]["owned"] extends true ? K : never }[OutputKind];
