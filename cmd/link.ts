// mc link: run against the target; prints what the source applies (credentials, Link, controller).
import { defineCommand } from "citty";
import * as v from "valibot";
import pkg from "../package.json" with { type: "json" };
import { UserError } from "../src/errors.ts";
import { buildLinkBundle } from "../src/linker/link.ts";
import { formatManifests, OUTPUT_FORMATS } from "../src/manifests/output.ts";
import * as N from "../src/model/names.ts";
import * as V from "../src/model/values.ts";
import { parseFlags } from "./flags.ts";
import { globals } from "./globals.ts";

const LOG_LEVELS = ["error", "warn", "info", "debug", "trace"] as const;

const Flags = v.object({
  "cluster-name": V.clusterName,
  namespace: V.namespace,
  "linkerd-namespace": V.namespace,
  "api-server-address": v.optional(V.serverUrl, ""),
  "service-account-name": V.objectName,
  "gateway-name": V.objectName,
  "gateway-namespace": v.optional(V.namespace),
  "gateway-addresses": v.optional(V.addressList, ""),
  "gateway-port": v.optional(V.optionalPort, ""),
  gateway: v.boolean(),
  selector: V.selector,
  "remote-discovery-selector": V.selector,
  "federated-service-selector": V.selector,
  "excluded-annotations": v.optional(V.keyList, ""),
  "excluded-labels": v.optional(V.keyList, ""),
  controller: v.boolean(),
  image: V.image,
  "log-level": V.oneOf(LOG_LEVELS),
  "log-format": V.oneOf(["plain", "json"] as const),
  "service-mirror-retry-limit": V.wholeNumber(0, "retries"),
  ha: v.boolean(),
  output: V.oneOf(OUTPUT_FORMATS),
});

export default defineCommand({
  meta: { name: "link", description: "Print, for the source cluster, the credentials, Link and controller that mirror this (target) cluster" },
  args: {
    "cluster-name": { type: "string", description: "Name of this (target) cluster, as the source will call it (required)" },
    namespace: { type: "string", default: N.DEFAULT_NAMESPACE, description: "Namespace of the remote access account here, and of the Link on the source" },
    "linkerd-namespace": { type: "string", alias: "L", default: N.DEFAULT_LINKERD_NAMESPACE, description: "Namespace of Linkerd's control plane" },
    "api-server-address": { type: "string", description: "API server URL the source should use for this cluster (default: the kubeconfig's)" },
    "service-account-name": { type: "string", default: N.DEFAULT_REMOTE_ACCESS_SA, description: "Remote access ServiceAccount whose token the source gets" },
    "gateway-name": { type: "string", default: N.GATEWAY_NAME, description: "Name of the gateway Service" },
    "gateway-namespace": { type: "string", description: "Namespace of the gateway Service (default: --namespace)" },
    "gateway-addresses": { type: "string", description: "Comma-separated gateway IPs or hostnames (default: the load balancer's)" },
    "gateway-port": { type: "string", description: "Gateway port (default: the Service's mc-gateway port, or its nodePort)" },
    gateway: { type: "boolean", default: true, description: "Link through the gateway (--gateway=false: remote discovery and federated services only)" },
    selector: { type: "string", alias: "l", default: N.DEFAULT_SELECTOR, description: "Selector of the Services to mirror through the gateway" },
    "remote-discovery-selector": { type: "string", default: N.DEFAULT_REMOTE_DISCOVERY_SELECTOR, description: "Selector of the Services to mirror in remote discovery mode" },
    "federated-service-selector": { type: "string", default: N.DEFAULT_FEDERATED_SERVICE_SELECTOR, description: "Selector of federated service members" },
    "excluded-annotations": { type: "string", description: "Annotation keys (or prefix/*) not copied to mirrors, comma-separated" },
    "excluded-labels": { type: "string", description: "Label keys (or prefix/*) not copied to mirrors, comma-separated" },
    controller: { type: "boolean", default: true, description: "Include the service mirror controller (--controller=false: Secrets and Link only, for GitOps)" },
    image: { type: "string", default: N.defaultImage(pkg.version), description: "Image of the controller (runs mc serve)" },
    "log-level": { type: "string", default: "info", description: "Controller log level: error, warn, info, debug, trace" },
    "log-format": { type: "string", default: "plain", description: "Controller log format: plain or json" },
    "service-mirror-retry-limit": { type: "string", default: "3", description: "Times the controller retries a failing service before giving up" },
    ha: { type: "boolean", default: false, description: "3 controller replicas with anti-affinity and a disruption budget" },
    output: { type: "string", alias: "o", default: "yaml", description: "Output format: yaml or json" },
  },
  async run({ args }) {
    if (args._.length > 0) throw new UserError(`unexpected argument ${JSON.stringify(args._[0])}: boolean flags take their value after =, e.g. --gateway=false`);
    const f = parseFlags(Flags, { ...args, "cluster-name": args["cluster-name"] });
    if (!f.gateway) {
      const clash = args.selector !== N.DEFAULT_SELECTOR ? "--selector" : f["gateway-addresses"].length ? "--gateway-addresses" : f["gateway-port"] ? "--gateway-port" : "";
      if (clash) throw new UserError(`${clash} and --gateway=false are mutually exclusive: a link without a gateway mirrors only remote-discovery and federated services`);
    }
    const objects = await buildLinkBundle({
      clusterName: f["cluster-name"],
      namespace: f.namespace,
      linkerdNamespace: f["linkerd-namespace"],
      serviceAccount: f["service-account-name"],
      apiServerAddress: f["api-server-address"],
      gateway: f.gateway
        ? {
            name: f["gateway-name"],
            namespace: f["gateway-namespace"] || f.namespace,
            addresses: f["gateway-addresses"],
            port: f["gateway-port"],
          }
        : null,
      selector: f.selector,
      remoteDiscoverySelector: f["remote-discovery-selector"],
      federatedServiceSelector: f["federated-service-selector"],
      excludedAnnotations: f["excluded-annotations"],
      excludedLabels: f["excluded-labels"],
      controller: f.controller
        ? { image: f.image, logLevel: f["log-level"], logFormat: f["log-format"], retryLimit: f["service-mirror-retry-limit"], ha: f.ha }
        : null,
      version: pkg.version,
      kubeconfig: globals.kubeconfig,
      context: globals.context,
    });
    process.stdout.write(formatManifests(objects, f.output));
  },
});
