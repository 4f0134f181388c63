// Kubernetes' protobuf schema as the sandbox embeds it (k8s/proto/, generated from kubectl's own descriptors; see k8s/proto/README.md): the
// .proto sources, the proto package of each group version, the Go JSON tags, and one lazily parsed protobufjs Root shared by the request
// decoder (decode.ts) and the OpenAPI v2 document (openapi/v2.ts).
import type { Root } from "protobufjs";
import jsonTagsSource from "../../../k8s/proto/json-tags.json" with { type: "text" };
import appsV1 from "../../../k8s/proto/k8s.io/api/apps/v1/generated.proto" with { type: "text" };
import authenticationV1 from "../../../k8s/proto/k8s.io/api/authentication/v1/generated.proto" with { type: "text" };
import authorizationV1 from "../../../k8s/proto/k8s.io/api/authorization/v1/generated.proto" with { type: "text" };
import batchV1 from "../../../k8s/proto/k8s.io/api/batch/v1/generated.proto" with { type: "text" };
import coordinationV1 from "../../../k8s/proto/k8s.io/api/coordination/v1/generated.proto" with { type: "text" };
import coreV1 from "../../../k8s/proto/k8s.io/api/core/v1/generated.proto" with { type: "text" };
import discoveryV1 from "../../../k8s/proto/k8s.io/api/discovery/v1/generated.proto" with { type: "text" };
import networkingV1 from "../../../k8s/proto/k8s.io/api/networking/v1/generated.proto" with { type: "text" };
import policyV1 from "../../../k8s/proto/k8s.io/api/policy/v1/generated.proto" with { type: "text" };
import rbacV1 from "../../../k8s/proto/k8s.io/api/rbac/v1/generated.proto" with { type: "text" };
import schedulingV1 from "../../../k8s/proto/k8s.io/api/scheduling/v1/generated.proto" with { type: "text" };
import resource from "../../../k8s/proto/k8s.io/apimachinery/pkg/api/resource/generated.proto" with { type: "text" };
import metaV1 from "../../../k8s/proto/k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto" with { type: "text" };
import runtime from "../../../k8s/proto/k8s.io/apimachinery/pkg/runtime/generated.proto" with { type: "text" };
import intstr from "../../../k8s/proto/k8s.io/apimachinery/pkg/util/intstr/generated.proto" with { type: "text" };

/** The proto package of each built-in group version (those k8s/proto/generate.ts kept). */
export const PROTO_PACKAGES: Readonly<Record<string, string>> = {
  v1: "k8s.io.api.core.v1",
  "apps/v1": "k8s.io.api.apps.v1",
  "batch/v1": "k8s.io.api.batch.v1",
  "networking.k8s.io/v1": "k8s.io.api.networking.v1",
  "rbac.authorization.k8s.io/v1": "k8s.io.api.rbac.v1",
  "authorization.k8s.io/v1": "k8s.io.api.authorization.v1",
  "authentication.k8s.io/v1": "k8s.io.api.authentication.v1",
  "coordination.k8s.io/v1": "k8s.io.api.coordination.v1",
  "policy/v1": "k8s.io.api.policy.v1",
  "discovery.k8s.io/v1": "k8s.io.api.discovery.v1",
  "scheduling.k8s.io/v1": "k8s.io.api.scheduling.v1",
};

const SOURCES = [
  metaV1,
  runtime,
  intstr,
  resource,
  coreV1,
  appsV1,
  batchV1,
  networkingV1,
  rbacV1,
  authorizationV1,
  authenticationV1,
  coordinationV1,
  policyV1,
  discoveryV1,
  schedulingV1,
];

export interface KubeProtos {
  protobuf: typeof import("protobufjs");
  root: Root;
  /** Go JSON struct tags by message and field (k8s/proto/json-tags.json). */
  tags: Record<string, Record<string, string>>;
}

let loaded: KubeProtos | undefined;

/** Parses the schema once per process, on first use. */
export function kubeProtos(): KubeProtos {
  if (loaded) return loaded;
  // Loaded here, not imported at the top: protobufjs costs ~20 ms to import.
  const protobuf = require("protobufjs") as typeof import("protobufjs");
  const root = new protobuf.Root();
  for (const source of SOURCES) protobuf.parse(source, root, { keepCase: true });
  // Field types resolve as they are met: resolveAll() would cost ~20 ms more.
  const tags = (typeof jsonTagsSource === "string" ? JSON.parse(jsonTagsSource) : jsonTagsSource) as Record<string, Record<string, string>>;
  loaded = { protobuf, root, tags };
  return loaded;
}
