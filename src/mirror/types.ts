// The shapes the mirror reads and writes: just the parts of Services, Endpoints and Namespaces
// it looks at, as plain data compatible with the kube layer's KubeObject. Pure.

export interface Meta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

export interface ServicePort {
  name?: string;
  protocol?: string;
  port: number;
  targetPort?: number | string;
  [key: string]: unknown;
}

export interface ServiceObject {
  apiVersion?: string;
  kind?: string;
  metadata: Meta;
  spec?: {
    ports?: ServicePort[];
    clusterIP?: string;
    selector?: Record<string, string> | null;
    type?: string;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export interface EndpointAddress {
  ip: string;
  hostname?: string;
  [key: string]: unknown;
}

export interface EndpointPort {
  name?: string;
  protocol?: string;
  port: number;
  [key: string]: unknown;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
  [key: string]: unknown;
}

export interface EndpointsObject {
  apiVersion?: string;
  kind?: string;
  metadata: Meta;
  subsets?: EndpointSubset[] | null;
  [key: string]: unknown;
}

/** The target's gateway as the mirror uses it: resolved IPs (sorted), the gateway port, its identity. */
export interface ResolvedGateway {
  addresses: string[];
  port: number;
  /** "" when the Link names none. */
  identity: string;
}

/** Why a target Service has no (up-to-date) mirror: Linkerd's reasons (docs/linkerd-compatibility.md#link-status). */
export type FailureReason = "MissingNamespace" | "InvalidService" | "Error";

export interface MirrorProblem {
  reason: FailureReason;
  message: string;
  /** The local object involved (a foreign same-named Service), for status `localRef`. */
  localRef?: { namespace: string; name: string };
}

/** Queue keys: `ns/name` of target Services, plus these (no `/`, never a Service key). */
export const GATEWAY_KEY = "@gateway";
/** Mirrors this Link made under an earlier target name (renamed.ts). */
export const RENAMED_KEY = "@renamed";

/** mc's slices of mirrors left from `--mirror-endpoint-slices`, once it is off (slices-sweep.ts). */
export const SLICES_KEY = "@slices";

/** The keys that are no Service; what each runs is one table (wiring.ts). */
const SPECIAL_KEYS = [GATEWAY_KEY, RENAMED_KEY, SLICES_KEY] as const;
export type SpecialKey = (typeof SPECIAL_KEYS)[number];

export function isSpecialKey(key: string): key is SpecialKey {
  return (SPECIAL_KEYS as readonly string[]).includes(key);
}
