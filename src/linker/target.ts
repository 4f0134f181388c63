// What `mc link` (and `mc install`/`mc allow`) read from a cluster, through the kube layer (docs/linkerd-compatibility.md#link-reads):
// linkerd-config, the remote-access ServiceAccount and its token, the gateway Service. Every "not there" becomes one line naming the object
// and the fix; the token never reaches a message.
import { UserError } from "../errors.ts";
import { isNotFound, resources, type KubeClient, type KubeObject } from "../kube/index.ts";
import { SERVICE_ACCOUNT_NAME, SERVICE_ACCOUNT_TOKEN_SECRET_TYPE } from "../model/labels.ts";
import { LINKERD_CONFIG, tokenSecretName } from "../model/names.ts";
import type { LinkGateway } from "../manifests/link-bundle.ts";
import { gatewayFromService, type GatewayOverrides, type GatewayServiceLike } from "./gateway.ts";
import { parseLinkerdConfig, type LinkerdConfig } from "./linkerd-config.ts";

export interface TargetReadOptions {
  /** Namespace of the remote-access ServiceAccount. */
  namespace: string;
  linkerdNamespace: string;
  serviceAccount: string;
  /** null: `--gateway=false`, the gateway is not read. */
  gateway: { name: string; namespace: string; overrides: GatewayOverrides } | null;
}

export interface TargetFacts {
  config: LinkerdConfig;
  token: string;
  gateway: LinkGateway | null;
}

/** Reads everything at once; the first failure in reading order (config, account, token, gateway) wins. */
export async function readTarget(client: KubeClient, o: TargetReadOptions): Promise<TargetFacts> {
  const [config, token, gateway] = await Promise.allSettled([
    readLinkerdConfig(client, o.linkerdNamespace),
    readServiceAccountToken(client, o.namespace, o.serviceAccount),
    o.gateway ? readGateway(client, o.gateway.namespace, o.gateway.name, o.gateway.overrides) : Promise.resolve(null),
  ]);
  for (const r of [config, token, gateway]) if (r.status === "rejected") throw r.reason;
  return { config: value(config), token: value(token), gateway: value(gateway) };
}

const value = <T>(r: PromiseSettledResult<T>): T => (r as PromiseFulfilledResult<T>).value;

/** `alsoTry` extends the not-found fix, e.g. `, or --ignore-cluster to use flags and defaults`. */
export async function readLinkerdConfig(client: KubeClient, linkerdNamespace: string, alsoTry = ""): Promise<LinkerdConfig> {
  const where = `ConfigMap ${linkerdNamespace}/${LINKERD_CONFIG} on ${client.cluster}`;
  const cm = await orExplain(
    client.get<KubeObject & { data?: Record<string, string> }>(resources.configMap, linkerdNamespace, LINKERD_CONFIG),
    `${where} not found: install Linkerd's control plane first, or pass --linkerd-namespace if it runs elsewhere${alsoTry}`,
  );
  return parseLinkerdConfig(cm, where);
}

/** The token the token controller wrote into the ServiceAccount's token Secret (decoded). */
async function readServiceAccountToken(client: KubeClient, namespace: string, serviceAccount: string): Promise<string> {
  const sa = `ServiceAccount ${namespace}/${serviceAccount} on ${client.cluster}`;
  const [, secrets] = await Promise.all([
    orExplain(
      client.get(resources.serviceAccount, namespace, serviceAccount),
      `${sa} not found: run mc install (or mc allow --service-account-name ${serviceAccount}) on ${client.cluster} first`,
    ),
    client.list<KubeObject & { type?: string; data?: Record<string, string> | null }>(resources.secret, { namespace }),
  ]);
  return tokenFromSecrets(secrets.items, serviceAccount, { namespace, cluster: client.cluster });
}

interface TokenSecretLike {
  metadata: { name?: string; annotations?: Record<string, string> };
  type?: string;
  data?: Record<string, string> | null;
}

/** Picks the ServiceAccount's token Secret (the one mc install renders first) and decodes its token. */
export function tokenFromSecrets(
  secrets: readonly TokenSecretLike[],
  serviceAccount: string,
  at: { namespace: string; cluster: string },
): string {
  const sa = `ServiceAccount ${at.namespace}/${serviceAccount} on ${at.cluster}`;
  const bound = secrets
    .filter((s) => s.type === SERVICE_ACCOUNT_TOKEN_SECRET_TYPE && s.metadata.annotations?.[SERVICE_ACCOUNT_NAME] === serviceAccount)
    .sort((a, b) => (a.metadata.name ?? "").localeCompare(b.metadata.name ?? ""));
  const secret = bound.find((s) => s.metadata.name === tokenSecretName(serviceAccount)) ?? bound[0];
  if (!secret) {
    throw new UserError(
      `no token Secret for ${sa}: apply the Secret ${tokenSecretName(serviceAccount)} that mc install renders (type ${SERVICE_ACCOUNT_TOKEN_SECRET_TYPE}, annotation ${SERVICE_ACCOUNT_NAME}=${serviceAccount})`,
    );
  }
  const data = secret.data?.token ?? "";
  const token = data ? Buffer.from(data, "base64").toString("utf8").trim() : "";
  if (!token) {
    throw new UserError(
      `Secret ${at.namespace}/${secret.metadata.name ?? ""} on ${at.cluster} has no data.token yet: the token controller fills it once the ServiceAccount exists; retry in a moment`,
    );
  }
  return token;
}

async function readGateway(client: KubeClient, namespace: string, name: string, overrides: GatewayOverrides): Promise<LinkGateway> {
  const where = `gateway Service ${namespace}/${name} on ${client.cluster}`;
  const svc = await orExplain(
    client.get<GatewayServiceLike & KubeObject>(resources.service, namespace, name),
    `${where} not found: run mc install on ${client.cluster}, pass --gateway-name/--gateway-namespace, or --gateway=false for a link without a gateway`,
  );
  return gatewayFromService(svc, overrides, where);
}

/** A 404 becomes `notFound` as a UserError; any other failure stays the kube layer's one-line KubeError. */
async function orExplain<T>(promise: Promise<T>, notFound: string): Promise<T> {
  try {
    return await promise;
  } catch (err) {
    if (isNotFound(err)) throw new UserError(notFound);
    throw err;
  }
}
