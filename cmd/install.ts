// mc install: the manifests for a cluster that will be linked *to* (gateway, remote access, Link CRD).
import { defineCommand } from "citty";
import * as v from "valibot";
import pkg from "../package.json" with { type: "json" };
import { UserError } from "../src/errors.ts";
import { buildInstall } from "../src/linker/install.ts";
import { GATEWAY_SERVICE_TYPES } from "../src/manifests/gateway.ts";
import { formatManifests, OUTPUT_FORMATS } from "../src/manifests/output.ts";
import { DEFAULT_LINKERD_NAMESPACE, DEFAULT_NAMESPACE, DEFAULT_REMOTE_ACCESS_SA } from "../src/model/names.ts";
import * as V from "../src/model/values.ts";
import { parseFlags } from "./flags.ts";
import { globals } from "./globals.ts";

const Flags = v.object({
  namespace: V.namespace,
  "linkerd-namespace": V.namespace,
  gateway: v.boolean(),
  "gateway-port": V.port,
  "gateway-probe-port": V.port,
  "gateway-probe-seconds": V.wholeNumber(1, "seconds"),
  "gateway-service-type": V.oneOf(GATEWAY_SERVICE_TYPES),
  "service-mirror-credentials": v.boolean(),
  "identity-trust-domain": v.optional(V.domain),
  ha: v.boolean(),
  "ignore-cluster": v.boolean(),
  output: V.oneOf(OUTPUT_FORMATS),
});

export default defineCommand({
  meta: { name: "install", description: "Print the manifests for a cluster that will be linked to: gateway, remote access account, Link CRD" },
  args: {
    namespace: { type: "string", default: DEFAULT_NAMESPACE, description: "Namespace of the multicluster extension" },
    "linkerd-namespace": { type: "string", alias: "L", default: DEFAULT_LINKERD_NAMESPACE, description: "Namespace of Linkerd's control plane" },
    gateway: { type: "boolean", default: true, description: "Include the gateway (--gateway=false leaves it out)" },
    "gateway-port": { type: "string", default: "4143", description: "Port of the gateway's mc-gateway port" },
    "gateway-probe-port": { type: "string", default: "4191", description: "Port of the gateway's mc-probe port (the proxy's admin port)" },
    "gateway-probe-seconds": { type: "string", default: "3", description: "Seconds between gateway probes" },
    "gateway-service-type": { type: "string", default: "LoadBalancer", description: "Gateway Service type: LoadBalancer, NodePort or ClusterIP" },
    "service-mirror-credentials": { type: "boolean", default: true, description: `Include the remote access account ${DEFAULT_REMOTE_ACCESS_SA}` },
    "identity-trust-domain": { type: "string", description: "Linkerd's identity trust domain (default: from linkerd-config; cluster.local with --ignore-cluster)" },
    ha: { type: "boolean", default: false, description: "3 gateway replicas with anti-affinity and a disruption budget" },
    "ignore-cluster": { type: "boolean", default: false, description: "Read nothing from the cluster; use flags and defaults" },
    output: { type: "string", alias: "o", default: "yaml", description: "Output format: yaml or json" },
  },
  async run({ args }) {
    if (args._.length > 0) throw new UserError(`unexpected argument ${JSON.stringify(args._[0])}: boolean flags take their value after =, e.g. --gateway=false`);
    const f = parseFlags(Flags, { ...args, "identity-trust-domain": args["identity-trust-domain"] || undefined });
    const objects = await buildInstall({
      namespace: f.namespace,
      linkerdNamespace: f["linkerd-namespace"],
      trustDomain: f["identity-trust-domain"],
      gateway: f.gateway
        ? {
            serviceType: f["gateway-service-type"],
            port: f["gateway-port"],
            probePort: f["gateway-probe-port"],
            probeSeconds: f["gateway-probe-seconds"],
            replicas: f.ha ? 3 : 1,
            ha: f.ha,
          }
        : null,
      remoteAccessAccounts: f["service-mirror-credentials"] ? [DEFAULT_REMOTE_ACCESS_SA] : [],
      version: pkg.version,
      ignoreCluster: f["ignore-cluster"],
      kubeconfig: globals.kubeconfig,
      context: globals.context,
    });
    process.stdout.write(formatManifests(objects, f.output));
  },
});
