// `mc install` and `mc allow`: what they read from the cluster before rendering (linkerd-config
// for the trust domain; for allow, that the account does not exist yet). `ignoreCluster` skips
// every read and uses the given values.
import { UserError } from "../errors.ts";
import { connect, isNotFound, resources } from "../kube/index.ts";
import { renderAllow, renderInstall, type InstallOptions } from "../manifests/install.ts";
import type { Manifest } from "../manifests/meta.ts";
import type { RemoteAccessOptions } from "../manifests/remote-access.ts";
import {
  DEFAULT_LINKERD_NAMESPACE,
  DEFAULT_NAMESPACE,
  DEFAULT_REMOTE_ACCESS_SA,
  DEFAULT_TRUST_DOMAIN,
  defaultImage,
} from "../model/names.ts";
import { readLinkerdConfig } from "./target.ts";

interface ClusterAccess {
  ignoreCluster: boolean;
  kubeconfig?: string;
  context?: string;
}

export interface BuildInstallOptions extends Omit<InstallOptions, "trustDomain">, ClusterAccess {
  /** `--identity-trust-domain`: wins over linkerd-config. */
  trustDomain?: string;
}

/** What `mc install` renders given no flags, reading the cluster at `kubeconfig` (for in-process callers: demo, bench). */
export function defaultInstallOptions(version: string, kubeconfig?: string): BuildInstallOptions {
  return {
    namespace: DEFAULT_NAMESPACE,
    linkerdNamespace: DEFAULT_LINKERD_NAMESPACE,
    gateway: { serviceType: "LoadBalancer", port: 4143, probePort: 4191, probeSeconds: 3, replicas: 1, ha: false },
    remoteAccessAccounts: [DEFAULT_REMOTE_ACCESS_SA],
    localMirror: { controller: { image: defaultImage(version), logLevel: "info", logFormat: "plain", ha: false } },
    version,
    ignoreCluster: false,
    kubeconfig,
  };
}

export async function buildInstall(o: BuildInstallOptions): Promise<Manifest[]> {
  let trustDomain = o.trustDomain ?? DEFAULT_TRUST_DOMAIN;
  if (!o.ignoreCluster) {
    const client = await connect({ kubeconfig: o.kubeconfig, context: o.context });
    const config = await readLinkerdConfig(client, o.linkerdNamespace, ", or --ignore-cluster to render from flags and defaults");
    trustDomain = o.trustDomain ?? config.trustDomain;
  }
  return renderInstall({ ...o, trustDomain });
}

export interface BuildAllowOptions extends ClusterAccess, RemoteAccessOptions {}

export async function buildAllow(o: BuildAllowOptions): Promise<Manifest[]> {
  if (!o.ignoreCluster) {
    const client = await connect({ kubeconfig: o.kubeconfig, context: o.context });
    try {
      await client.get(resources.serviceAccount, o.namespace, o.serviceAccount);
      throw new UserError(
        `ServiceAccount ${o.namespace}/${o.serviceAccount} already exists on ${client.cluster}: choose another --service-account-name, or pass --ignore-cluster to render it anyway`,
      );
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return renderAllow(o);
}
