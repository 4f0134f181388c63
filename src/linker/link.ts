// `mc link`: read the target (through the kube layer), build the kubeconfig that holds only the
// remote-access token, render the bundle for the source. Nothing is returned unless every read
// succeeded, so the command prints all or nothing.
import { readFileSync } from "node:fs";
import { UserError } from "../errors.ts";
import { connect, loadKubeconfig, selectContext } from "../kube/index.ts";
import { renderLinkBundle, type LinkBundleOptions } from "../manifests/link-bundle.ts";
import type { Manifest } from "../manifests/meta.ts";
import type { ControllerOptions } from "../manifests/service-mirror.ts";
import type { LinkSpecOptions } from "../model/link.ts";
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
  /** The Link's selectors and exclusions, rendered as given. */
  spec: LinkSpecOptions;
  /** null: `--controller=false`; "shared": `--controller=shared`. */
  controller: ControllerOptions | "shared" | null;
  version: string;
  /** The target's kubeconfig and context (`--kubeconfig`, `--context`, else KUBECONFIG, ~/.kube/config). */
  kubeconfig?: string;
  context?: string;
  env?: Record<string, string | undefined>;
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
    gateway: o.gateway && {
      name: o.gateway.name,
      namespace: o.gateway.namespace,
      overrides: { addresses: o.gateway.addresses, port: o.gateway.port },
    },
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
    spec: o.spec,
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
    throw new UserError(
      `${source}: cluster "${cluster}" certificate-authority ${path} cannot be read; fix the path or use certificate-authority-data`,
    );
  }
}
