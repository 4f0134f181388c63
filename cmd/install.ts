// mc install: the manifests for a cluster that will be linked *to* (gateway, remote access, Link
// CRD) and, for a source, the local service mirror and (`--shared-controller`) the controller
// that serves every Link; `--controllers east,north`, a controller per Link (Linkerd 2.18's chart).
import * as v from "valibot";
import pkg from "../package.json" with { type: "json" };
import { command } from "../src/cli/command.ts";
import { defineFlags } from "../src/cli/flags.ts";
import { linkerdNamespaceFlag, MANIFEST_OUTPUT, namespaceFlag, REMOTE_ACCESS_FLAGS, unlessEmpty } from "../src/cli/groups.ts";
import { CONTROLLER_SETTINGS, installControllers } from "../src/cli/install-controllers.ts";
import { buildInstall } from "../src/linker/install.ts";
import { GATEWAY_SERVICE_TYPES } from "../src/manifests/gateway.ts";
import { formatManifests } from "../src/manifests/output.ts";
import { MAX_PROBE_PERIOD_MS } from "../src/model/limits.ts";
import { DEFAULT_REMOTE_ACCESS_SA, defaultImage } from "../src/model/names.ts";
import * as V from "../src/model/values.ts";
import { meta } from "./commands.ts";

const flags = defineFlags(
  {
    namespace: namespaceFlag(),
    "linkerd-namespace": linkerdNamespaceFlag(),
    gateway: { type: "boolean", default: true, description: "Include the gateway (--gateway=false leaves it out)" },
    "gateway-port": { type: "string", default: "4143", description: "Port of the gateway's mc-gateway port", schema: V.port },
    "gateway-probe-port": {
      type: "string",
      default: "4191",
      description: "Port of the gateway's mc-probe port (the proxy's admin port)",
      schema: V.port,
    },
    "gateway-probe-seconds": {
      type: "string",
      default: "3",
      description: "Seconds between gateway probes",
      schema: V.wholeNumber(1, "seconds", MAX_PROBE_PERIOD_MS / 1000),
    },
    "gateway-service-type": {
      type: "string",
      default: "LoadBalancer",
      description: "Gateway Service type: LoadBalancer, NodePort or ClusterIP",
      schema: V.oneOf(GATEWAY_SERVICE_TYPES),
    },
    "service-mirror-credentials": {
      type: "boolean",
      default: true,
      description: `Include the remote access account ${DEFAULT_REMOTE_ACCESS_SA}`,
    },
    ...REMOTE_ACCESS_FLAGS,
    "identity-trust-domain": {
      type: "string",
      description: "Linkerd's identity trust domain",
      defaultText: "from linkerd-config; cluster.local with --ignore-cluster",
      schema: unlessEmpty(V.domain),
    },
    "local-service-mirror": {
      type: "boolean",
      default: true,
      description:
        "Include the local service mirror (this cluster's Services as federated members; --local-service-mirror=false leaves it out)",
    },
    mcs: {
      type: "boolean",
      default: true,
      description:
        "Include the Multi-Cluster Services API's CRDs, ServiceExport and ServiceImport (--mcs=false leaves them out, e.g. when another implementation owns them)",
    },
    "cluster-name": {
      type: "string",
      default: "",
      description:
        "This cluster's name in the ClusterSet: the local mirror then imports its own ServiceExports and writes their Valid/Ready/Conflict conditions (Multi-Cluster Services API)",
      schema: v.union([v.literal(""), V.clusterName]),
    },
    "shared-controller": {
      type: "boolean",
      default: false,
      description:
        "Include one controller (mc serve --all) serving every Link of --namespace, for links made with mc link --controller=shared",
    },
    controllers: {
      type: "string",
      default: "",
      value: "LINKS",
      description:
        "Render a controller for each of these Links, comma-separated (Linkerd 2.18's controllers[]): the install serves them, for GitOps; give each its Link with mc link-gen",
      schema: V.clusterNameList,
    },
    "controller-set": {
      type: "string",
      default: "",
      value: "LINK.SETTING=VALUE,...",
      description: `Override one controller of --controllers, e.g. east.log-level=debug,north.ha=true; settings: ${CONTROLLER_SETTINGS.join(", ")}`,
    },
    image: {
      type: "string",
      default: defaultImage(pkg.version),
      description: "Image of the local mirror and the controllers (runs mc serve)",
      schema: V.image,
    },
    ha: { type: "boolean", default: false, description: "3 gateway (and controller) replicas with anti-affinity and a disruption budget" },
    "ignore-cluster": { type: "boolean", default: false, description: "Read nothing from the cluster; use flags and defaults" },
    output: MANIFEST_OUTPUT,
  },
  { command: "install" },
);

export default command(meta("install"), flags, async (f, g) => {
  const objects = await buildInstall({
    namespace: f.namespace,
    linkerdNamespace: f.linkerdNamespace,
    trustDomain: f.identityTrustDomain,
    gateway: f.gateway
      ? {
          serviceType: f.gatewayServiceType,
          port: f.gatewayPort,
          probePort: f.gatewayProbePort,
          probeSeconds: f.gatewayProbeSeconds,
          replicas: f.ha ? 3 : 1,
          ha: f.ha,
        }
      : null,
    remoteAccessAccounts: f.serviceMirrorCredentials ? [DEFAULT_REMOTE_ACCESS_SA] : [],
    localMirror: f.localServiceMirror
      ? { controller: controllerOf(f.image, f.ha), ...(f.clusterName ? { clusterName: f.clusterName } : {}) }
      : null,
    sharedController: f.sharedController ? controllerOf(f.image, f.ha) : null,
    controllers: installControllers(f.controllers, f.controllerSet, controllerOf(f.image, f.ha)),
    mcs: f.mcs,
    remoteAccess: { endpointSlices: f.endpointSlicesAccess, remoteDiscovery: f.remoteDiscoveryAccess, namespaces: f.namespacesAccess },
    version: pkg.version,
    ignoreCluster: f.ignoreCluster,
    kubeconfig: g.kubeconfig,
    context: g.context,
  });
  process.stdout.write(formatManifests(objects, f.output));
});

function controllerOf(image: string, ha: boolean) {
  return { image, logLevel: "info", logFormat: "plain" as const, ha };
}
