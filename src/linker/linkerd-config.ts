// Linkerd's `linkerd-config` ConfigMap: the control plane's Helm values under `data.values`
// (YAML), of which mc needs the cluster domain, the identity trust domain and the trust anchors.
// Pure: the ConfigMap in, the facts out, or one line naming what is wrong and the fix.
import YAML from "yaml";
import { UserError } from "../errors.ts";
import { DEFAULT_CLUSTER_DOMAIN, DEFAULT_TRUST_DOMAIN, isDns1123Subdomain } from "../model/names.ts";

export interface LinkerdConfig {
  clusterDomain: string;
  trustDomain: string;
  /** PEM bundle; "" when the values carry none. */
  trustAnchorsPem: string;
}

interface ConfigMapLike {
  data?: Record<string, string> | null;
}

/** `where` names the object in errors: `ConfigMap linkerd/linkerd-config on east`. */
export function parseLinkerdConfig(cm: ConfigMapLike, where: string): LinkerdConfig {
  const text = cm.data?.values;
  if (text === undefined) {
    throw new UserError(
      `${where} has no data.values; it is not a Linkerd 2.10+ linkerd-config (upgrade Linkerd's control plane, or pass --linkerd-namespace)`,
    );
  }
  let values: unknown;
  try {
    values = YAML.parse(text);
  } catch {
    throw new UserError(`${where}: data.values is not valid YAML (reinstall or repair Linkerd's control plane)`);
  }
  const v = (values ?? {}) as Record<string, unknown>;
  const clusterDomain = stringField(v.clusterDomain, "clusterDomain", where) ?? DEFAULT_CLUSTER_DOMAIN;
  const trustDomain = stringField(v.identityTrustDomain, "identityTrustDomain", where) ?? DEFAULT_TRUST_DOMAIN;
  const trustAnchorsPem = stringField(v.identityTrustAnchorsPEM, "identityTrustAnchorsPEM", where) ?? "";
  for (const [key, value] of [
    ["clusterDomain", clusterDomain],
    ["identityTrustDomain", trustDomain],
  ] as const) {
    if (!isDns1123Subdomain(value))
      throw new UserError(`${where}: data.values ${key} must be a DNS domain such as cluster.local, got ${JSON.stringify(value)}`);
  }
  return { clusterDomain, trustDomain, trustAnchorsPem };
}

function stringField(value: unknown, key: string, where: string): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") throw new UserError(`${where}: data.values ${key} must be a string`);
  return value;
}
