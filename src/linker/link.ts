// `mc link`: read the target (through the kube layer), build the kubeconfig that holds only the
// remote-access token, render the bundle for the source. Nothing is returned unless every read
// succeeded, so the command prints all or nothing.
import { readFileSync } from "node:fs";
import { UserError } from "../errors.ts";
import { connect, loadKubeconfig, selectContext } from "../kube/index.ts";
import { renderLinkBundle, type LinkBundleOptions } from "../manifests/link-bundle.ts";
import type { Manifest } from "../manifests/meta.ts";
import type { ControllerOptions } from "../manifests/service-mirror.ts";
import * as L from "../model/labels.ts";
import * as N from "../model/names.ts";
import { parseLabelSelector, type LabelSelector } from "../model/selector.ts";
import { remoteKubeconfig } from "./kubeconfig.ts";
import { readTarget } from "./target.ts";

export interface LinkOptions {
  clusterName: string;
  namespace: string;
  linkerdNamespace: string;
  serviceAccount: string;
  /** `--api-server-address`: the server the source should use for the target. */
  apiServerAddress?: string;
  /** null: `--gateway=false`. */
  gateway: { name: string; namespace: string; addresses?: string[]; port?: number } | null;
  selector: LabelSelector;
  remoteDiscoverySelector: LabelSelector;
  federatedServiceSelector: LabelSelector;
  excludedAnnotations: string[];
  excludedLabels: string[];
  controller: ControllerOptions | null;
  version: string;
  /** The target's kubeconfig and context (`--kubeconfig`, `--context`, else KUBECONFIG, ~/.kube/config). */
  kubeconfig?: string;
  context?: string;
  env?: Record<string, string | undefined>;
}

/** What `mc link --cluster-name C` uses when given no other flags (for in-process callers: demo, bench). */
export function defaultLinkOptions(clusterName: string, version: string, kubeconfig?: string): LinkOptions {
  return {
    clusterName,
    namespace: N.DEFAULT_NAMESPACE,
    linkerdNamespace: N.DEFAULT_LINKERD_NAMESPACE,
    serviceAccount: N.DEFAULT_REMOTE_ACCESS_SA,
    gateway: { name: N.GATEWAY_NAME, namespace: N.DEFAULT_NAMESPACE },
    selector: parseLabelSelector(`${L.EXPORTED}=true`),
    remoteDiscoverySelector: parseLabelSelector(`${L.EXPORTED}=remote-discovery`),
    federatedServiceSelector: parseLabelSelector(`${L.FEDERATED}=member`),
    excludedAnnotations: [],
    excludedLabels: [],
    controller: { image: N.defaultImage(version), logLevel: "info", logFormat: "plain", retryLimit: 3, ha: false },
    version,
    kubeconfig,
  };
}

export async function buildLinkBundle(o: LinkOptions): Promise<Manifest[]> {
  const env = o.env ?? process.env;
  const loaded = loadKubeconfig({ kubeconfig: o.kubeconfig }, env);
  if (!loaded) throw new UserError("mc link needs a kubeconfig for the target cluster: pass --kubeconfig or set KUBECONFIG");
  const selected = selectContext(loaded.config, loaded.source, o.context);
  const client = await connect({ kubeconfig: o.kubeconfig, context: o.context, env });
  const facts = await readTarget(client, {
    namespace: o.namespace,
    linkerdNamespace: o.linkerdNamespace,
    serviceAccount: o.serviceAccount,
    gateway: o.gateway && { name: o.gateway.name, namespace: o.gateway.namespace, overrides: { addresses: o.gateway.addresses, port: o.gateway.port } },
  });
  const kubeconfig = remoteKubeconfig({
    contextName: selected.context,
    clusterName: selected.clusterName,
    cluster: selected.cluster,
    caData: caFileData(selected.cluster["certificate-authority"], loaded.source, selected.clusterName),
    server: o.apiServerAddress,
    serviceAccount: o.serviceAccount,
    token: facts.token,
  });
  const bundle: LinkBundleOptions = {
    clusterName: o.clusterName,
    namespace: o.namespace,
    linkerdNamespace: o.linkerdNamespace,
    kubeconfig,
    clusterDomain: facts.config.clusterDomain,
    trustDomain: facts.config.trustDomain,
    gateway: facts.gateway,
    selector: o.selector,
    remoteDiscoverySelector: o.remoteDiscoverySelector,
    federatedServiceSelector: o.federatedServiceSelector,
    excludedAnnotations: o.excludedAnnotations,
    excludedLabels: o.excludedLabels,
    controller: o.controller,
    version: o.version,
  };
  return renderLinkBundle(bundle);
}

/** A CA named by file is inlined: the controller's pod has no such file. */
function caFileData(path: string | null | undefined, source: string, cluster: string): string | undefined {
  if (!path) return undefined;
  try {
    return readFileSync(path).toString("base64");
  } catch {
    throw new UserError(`${source}: cluster "${cluster}" certificate-authority ${path} cannot be read; fix the path or use certificate-authority-data`);
  }
}
