// Shapes of the Kubernetes API that both sides speak — mc's kube layer as a client and the
// sandbox as a server: object metadata and the reasons a `kind: Status` failure carries. Plain
// types of Kubernetes conventions; imports nothing.

/** metav1.ObjectMeta, as far as anything here reads or writes it. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: Array<Record<string, unknown>>;
  managedFields?: unknown[];
  [key: string]: unknown;
}

/** metav1.StatusReason: the reasons kube-apiserver puts in a `kind: Status` failure. */
export type StatusReason =
  | "BadRequest"
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Gone"
  | "Invalid"
  | "MethodNotAllowed"
  | "NotAcceptable"
  | "UnsupportedMediaType"
  | "Expired"
  | "InternalError"
  | "ServiceUnavailable"
  | "Timeout"
  | "TooManyRequests";
