// The kubeconfig a source cluster's controller uses to reach the target (docs/linkerd-compatibility.md#link-kubeconfig): the current
// context's cluster entry only (CA inlined, server optionally replaced) and a user named after the remote-access ServiceAccount holding
// only its token. Pure.
import YAML from "yaml";
import type { SelectedContext } from "../kube/index.ts";

export interface RemoteKubeconfigOptions {
  contextName: string;
  clusterName: string;
  cluster: SelectedContext["cluster"];
  /** The CA certificate as base64, when the entry named a file (a pod has no such file). */
  caData?: string;
  /** `--api-server-address`. */
  server?: string;
  serviceAccount: string;
  token: string;
}

export function remoteKubeconfig(o: RemoteKubeconfigOptions): string {
  const c = o.cluster;
  const cluster: Record<string, unknown> = { server: o.server ?? c.server };
  const ca = o.caData ?? c["certificate-authority-data"];
  if (ca) cluster["certificate-authority-data"] = ca;
  if (c["insecure-skip-tls-verify"]) cluster["insecure-skip-tls-verify"] = true;
  if (c["tls-server-name"]) cluster["tls-server-name"] = c["tls-server-name"];
  if (c["proxy-url"]) cluster["proxy-url"] = c["proxy-url"];
  return YAML.stringify(
    {
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: o.clusterName, cluster }],
      users: [{ name: o.serviceAccount, user: { token: o.token } }],
      contexts: [{ name: o.contextName, context: { cluster: o.clusterName, user: o.serviceAccount } }],
      "current-context": o.contextName,
      preferences: {},
    },
    { lineWidth: 0 },
  );
}
