// `mc link`'s flags (docs/linkerd-compatibility.md#link-flags) and how they become LinkOptions. In src/, not cmd/, because the demo and the
// benchmark link "as `mc link --cluster-name C` would" from the same table, so its defaults exist once.
import * as v from "valibot";
import pkg from "../../package.json" with { type: "json" };
import { UserError } from "../errors.ts";
import type { LinkOptions } from "../linker/link.ts";
import type { OutputFormat } from "../manifests/output.ts";
import { CONTROLLER_RESOURCES as R, type ContainerResources } from "../manifests/service-mirror.ts";
import type { LinkSpecOptions } from "../model/link.ts";
import { templateFitsCluster } from "../model/mirror-names.ts";
import { MIRROR_SETTINGS as S } from "../model/mirror-settings.ts";
import * as N from "../model/names.ts";
import { impossibility, type LabelSelector } from "../model/selector.ts";
import * as V from "../model/values.ts";
import { changedFlags, defineFlags, flagList, valuesOf, type FlagValues } from "./flags.ts";
import type { Globals } from "./globals.ts";
import { linkerdNamespaceFlag, MANIFEST_OUTPUT, namespaceFlag } from "./groups.ts";

// The Link spec's own fields are one group, LINK_SPEC_FLAGS, whose values are the model's
// LinkSpecOptions as they are: a field added to the model's LinkSpec needs its row here (the type
// check below says so) and nothing else on the way to the rendered Link.

const LOG_LEVELS = ["error", "warn", "info", "debug", "trace"] as const;

/** The Link spec fields chosen on the command line: the model's LinkSpecOptions, one row each. */
export const LINK_SPEC_FLAGS = {
  selector: {
    type: "string",
    alias: "l",
    default: N.DEFAULT_SELECTOR,
    description: "Selector of the Services to mirror through the gateway",
    schema: V.selector,
  },
  "remote-discovery-selector": {
    type: "string",
    default: N.DEFAULT_REMOTE_DISCOVERY_SELECTOR,
    description: "Selector of the Services to mirror in remote discovery mode",
    schema: V.selector,
  },
  "federated-service-selector": {
    type: "string",
    default: N.DEFAULT_FEDERATED_SERVICE_SELECTOR,
    description: "Selector of federated service members",
    schema: V.selector,
  },
  "excluded-annotations": {
    type: "string",
    description: "Annotation keys (or prefix/*) not copied to mirrors, comma-separated",
    schema: v.optional(V.keyList, ""),
  },
  "excluded-labels": {
    type: "string",
    description: "Label keys (or prefix/*) not copied to mirrors, comma-separated",
    schema: v.optional(V.keyList, ""),
  },
} as const;

// A row that is no LinkSpecOptions field fails to compile here; a field without a row, at `spec:` below.
type ExtraRows = Exclude<keyof FlagValues<typeof LINK_SPEC_FLAGS>, keyof LinkSpecOptions>;
// biome-ignore lint/correctness/noUnusedVariables: a compile-time check, never read
const noExtraRows: [ExtraRows] extends [never] ? true : never = true;

export const LINK_FLAGS = defineFlags(
  {
    "cluster-name": {
      type: "string",
      description: "Name of this (target) cluster, as the source will call it (required)",
      schema: V.clusterName,
    },
    namespace: namespaceFlag("Namespace of the remote access account here, and of the Link on the source"),
    "linkerd-namespace": linkerdNamespaceFlag(),
    "api-server-address": {
      type: "string",
      description: "API server URL the source should use for this cluster",
      defaultText: "the kubeconfig's",
      value: "URL",
      schema: v.optional(V.serverUrl, ""),
    },
    "service-account-name": {
      type: "string",
      default: N.DEFAULT_REMOTE_ACCESS_SA,
      description: "Remote access ServiceAccount whose token the source gets",
      schema: V.objectName,
    },
    "gateway-name": { type: "string", default: N.GATEWAY_NAME, description: "Name of the gateway Service", schema: V.objectName },
    "gateway-namespace": {
      type: "string",
      description: "Namespace of the gateway Service",
      defaultText: "--namespace",
      schema: v.optional(V.namespace),
    },
    "gateway-addresses": {
      type: "string",
      description: "Comma-separated gateway IPs or hostnames",
      defaultText: "the load balancer's",
      schema: v.optional(V.addressList, ""),
    },
    "gateway-port": {
      type: "string",
      description: "Gateway port",
      defaultText: "the Service's mc-gateway port, or its nodePort",
      schema: v.optional(V.optionalPort, ""),
    },
    gateway: {
      type: "boolean",
      default: true,
      description: "Link through the gateway (--gateway=false: remote discovery and federated services only)",
    },
    ...LINK_SPEC_FLAGS,
    "selector-allow-empty": {
      type: "boolean",
      default: false,
      description: "Accept a --selector that selects no Service (the controller then deletes every mirror of this link)",
    },
    controller: {
      type: "string",
      default: "true",
      description:
        "Include the link's service mirror controller (false: Secrets and Link only, for GitOps; shared: served by mc install --shared-controller)",
      choices: ["true", "false", "shared"],
      schema: V.controllerChoice,
    },
    image: {
      type: "string",
      default: N.defaultImage(pkg.version),
      description: "Image of the controller (runs mc serve)",
      schema: V.image,
    },
    "log-level": {
      type: "string",
      default: "info",
      description: "Controller log level: error, warn, info, debug, trace",
      schema: V.oneOf(LOG_LEVELS),
    },
    "log-format": {
      type: "string",
      default: "plain",
      description: "Controller log format: plain or json",
      schema: V.oneOf(["plain", "json"] as const),
    },
    // Linkerd's name for the controller's --event-requeue-limit: the same row, default and check.
    "service-mirror-retry-limit": {
      ...S.eventRequeueLimit.row,
      description: "Times the controller retries a failing service before giving up",
    },
    "controller-cpu-request": {
      type: "string",
      default: R.requests.cpu,
      description: "CPU the controller's container requests (empty: none)",
      schema: V.quantity("100m"),
    },
    "controller-cpu-limit": {
      type: "string",
      default: R.limits.cpu,
      description: "CPU limit of the controller's container (empty: none)",
      schema: V.quantity("1"),
    },
    "controller-memory-request": {
      type: "string",
      default: R.requests.memory,
      description: "Memory the controller's container requests (empty: none)",
      schema: V.quantity("128Mi"),
    },
    "controller-memory-limit": {
      type: "string",
      default: R.limits.memory,
      description: "Memory limit of the controller's container, ~240 MB at 10,000 mirrors (empty: none)",
      schema: V.quantity("512Mi"),
    },
    ha: { type: "boolean", default: false, description: "3 controller replicas with anti-affinity and a disruption budget" },
    "enable-endpoint-slices": {
      ...S.enableEndpointSlices.row,
      description: "The controller reads the target's EndpointSlices instead of its Endpoints (mc serve --enable-endpoint-slices)",
    },
    "enable-namespace-creation": {
      ...S.enableNamespaceCreation.row,
      description:
        "The controller creates a missing namespace instead of skipping its Services (mc serve --enable-namespace-creation; its ClusterRole then grants namespaces create)",
    },
    "mirror-name-template": {
      ...S.mirrorNameTemplate.row,
      description:
        "Controller: mirrors' names from {service}, {cluster} and {namespace} (mc serve --mirror-name-template; default Linkerd's {service}-{cluster})",
    },
    "namespace-selector": {
      ...S.namespaceSelector.row,
      description:
        "Controller: mirror only Services in the target's Namespaces this label selector selects (mc serve --namespace-selector; the target's account needs mc install --namespaces-access)",
    },
    "namespace-map": {
      ...S.namespaceMap.row,
      description:
        "Controller: mirror a target namespace's Services into a differently named local one, TARGET=LOCAL,... (mc serve --namespace-map; default none)",
    },
    "mirror-endpoint-slices": {
      ...S.mirrorEndpointSlices.row,
      description:
        "Controller: write mirrors' endpoints as EndpointSlices instead of Endpoints, converting existing ones (mc serve --mirror-endpoint-slices; the Link stays Linkerd's)",
    },
    "fast-failure-detection": {
      ...S.fastFailureDetection.row,
      description:
        "Controller: confirm a failed gateway probe every period/10 (mc serve --fast-failure-detection; the Link itself stays Linkerd's)",
    },
    "kube-api-qps": {
      ...S.kubeApiQps.row,
      description: "Controller: requests per second to each API server, client-side (mc serve --kube-api-qps; 0: none)",
    },
    "kube-api-burst": {
      ...S.kubeApiBurst.row,
      description: "Controller: requests sent at once above --kube-api-qps (mc serve --kube-api-burst)",
    },
    output: MANIFEST_OUTPUT,
  },
  { command: "link" },
);

/** Checks citty's parsed args of `mc link` and turns them into what buildLinkBundle takes. */
export function linkOptions(args: Record<string, unknown>, g: Globals): { options: LinkOptions; output: OutputFormat } {
  const f = LINK_FLAGS.parse(args);
  if (!f.gateway) {
    // Without a gateway nothing is probed and no target Endpoints are read: the gateway's and the prober's flags would do nothing.
    const gatewayOnly = changedFlags(LINK_FLAGS, f, [
      "gateway-name",
      "gateway-namespace",
      "fast-failure-detection",
      "enable-endpoint-slices",
    ]);
    const clash =
      args.selector !== undefined && args.selector !== N.DEFAULT_SELECTOR
        ? "--selector"
        : f.gatewayAddresses.length
          ? "--gateway-addresses"
          : f.gatewayPort
            ? "--gateway-port"
            : gatewayOnly[0]
              ? `--${gatewayOnly[0]}`
              : "";
    if (clash)
      throw new UserError(
        `${clash} and --gateway=false are mutually exclusive: a link without a gateway mirrors only remote-discovery and federated services`,
      );
  }
  if (f.gateway && !f.selectorAllowEmpty) refuseEmptySelector(f.selector, String(args.selector ?? N.DEFAULT_SELECTOR));
  const unfit = templateFitsCluster(f.mirrorNameTemplate, f.clusterName);
  if (unfit) throw new UserError(`--mirror-name-template: ${unfit}`);
  if (f.controller !== "dedicated") refuseControllerFlags(f);
  const options: LinkOptions = {
    clusterName: f.clusterName,
    namespace: f.namespace,
    linkerdNamespace: f.linkerdNamespace,
    serviceAccount: f.serviceAccountName,
    apiServerAddress: f.apiServerAddress,
    gateway: f.gateway
      ? { name: f.gatewayName, namespace: f.gatewayNamespace || f.namespace, addresses: f.gatewayAddresses, port: f.gatewayPort }
      : null,
    spec: valuesOf(LINK_SPEC_FLAGS, f),
    controller:
      f.controller === "dedicated"
        ? {
            image: f.image,
            logLevel: f.logLevel,
            logFormat: f.logFormat,
            ha: f.ha,
            settings: {
              eventRequeueLimit: f.serviceMirrorRetryLimit,
              enableEndpointSlices: f.enableEndpointSlices,
              enableNamespaceCreation: f.enableNamespaceCreation,
              mirrorEndpointSlices: f.mirrorEndpointSlices,
              mirrorNameTemplate: f.mirrorNameTemplate,
              namespaceSelector: f.namespaceSelector,
              namespaceMap: f.namespaceMap,
              fastFailureDetection: f.fastFailureDetection,
              kubeApiQps: f.kubeApiQps,
              kubeApiBurst: f.kubeApiBurst,
            },
            resources: controllerResources(f),
          }
        : f.controller === "shared"
          ? "shared"
          : null,
    version: pkg.version,
    kubeconfig: g.kubeconfig,
    context: g.context,
  };
  return { options, output: f.output };
}

/** The flags that only shape the controller mc link renders (with --controller=false or shared there is none to shape). */
const CONTROLLER_FLAGS = [
  "image",
  "log-level",
  "log-format",
  "service-mirror-retry-limit",
  "controller-cpu-request",
  "controller-cpu-limit",
  "controller-memory-request",
  "controller-memory-limit",
  "ha",
  "enable-endpoint-slices",
  "enable-namespace-creation",
  "mirror-endpoint-slices",
  "mirror-name-template",
  "namespace-selector",
  "namespace-map",
  "fast-failure-detection",
  "kube-api-qps",
  "kube-api-burst",
] as const satisfies ReadonlyArray<keyof typeof LINK_FLAGS.rows>;

/** A controller flag set with --controller=false or --controller=shared would be silently dropped: refused, naming both and where the setting belongs. */
function refuseControllerFlags(f: FlagValues<typeof LINK_FLAGS.rows>): void {
  const set = changedFlags(LINK_FLAGS, f, CONTROLLER_FLAGS);
  if (set.length === 0) return;
  const which = f.controller === "shared" ? "--controller=shared" : "--controller=false";
  const why =
    f.controller === "shared"
      ? "the Link is served by the shared controller that mc install --shared-controller renders, with its own --image and --ha"
      : "mc link then renders no controller";
  throw new UserError(
    `${flagList(set)}: ${set.length > 1 ? "have" : "has"} no effect with ${which} (${why}): drop ${set.length > 1 ? "them" : "it"}, or use --controller=true`,
  );
}

/**
 * A Link whose selector selects nothing mirrors nothing, and its controller deletes every mirror
 * it had (Linkerd's rule for an empty selector): `-l ''` and selectors no labels can match are
 * refused unless asked for.
 */
function refuseEmptySelector(selector: LabelSelector, given: string): void {
  const fix = "give one such as mirror.linkerd.io/exported=true, or pass --selector-allow-empty if nothing is to be mirrored";
  if (selector.length === 0) {
    throw new UserError(
      `--selector: ${JSON.stringify(given)} selects no Service (an empty selector selects nothing, and the controller deletes every mirror of the link): ${fix}`,
    );
  }
  const why = impossibility(selector);
  if (why) throw new UserError(`--selector: ${JSON.stringify(given)} can match no Service (${why}): ${fix}`);
}

/** The controller container's requests and limits from the four flags; a request above its limit is refused (the API server would). */
function controllerResources(f: {
  controllerCpuRequest: string;
  controllerCpuLimit: string;
  controllerMemoryRequest: string;
  controllerMemoryLimit: string;
}): ContainerResources {
  for (const [what, request, limit] of [
    ["cpu", f.controllerCpuRequest, f.controllerCpuLimit],
    ["memory", f.controllerMemoryRequest, f.controllerMemoryLimit],
  ] as const) {
    if (request && limit && V.quantityValue(request)! > V.quantityValue(limit)!) {
      throw new UserError(
        `--controller-${what}-request: must not exceed --controller-${what}-limit (${limit}), got ${JSON.stringify(request)}`,
      );
    }
  }
  const set = (cpu: string, memory: string) => ({ ...(cpu && { cpu }), ...(memory && { memory }) });
  return { requests: set(f.controllerCpuRequest, f.controllerMemoryRequest), limits: set(f.controllerCpuLimit, f.controllerMemoryLimit) };
}

/** What `mc link --cluster-name C` uses when given no other flags (for in-process callers: demo, bench). */
export function defaultLinkOptions(clusterName: string, kubeconfig?: string): LinkOptions {
  return linkOptions({ "cluster-name": clusterName }, { kubeconfig, verbose: false }).options;
}
