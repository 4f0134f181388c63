// Authentication: who a request is. Plain http, a verified client certificate and the admin
// token are the sandbox admin; a bearer token from a service-account token Secret is that
// account. Tokens are learnt from Secrets as they are written (and forgotten when deleted).
import type { KubeObject } from "../types.ts";
import { SANDBOX_ADMIN, serviceAccountUser, type UserInfo } from "./rbac.ts";

export const SA_TOKEN_TYPE = "kubernetes.io/service-account-token";
export const SA_NAME_ANNOTATION = "kubernetes.io/service-account.name";

/** The ServiceAccount a token Secret is for (kubernetes.io/service-account.name), if it is one. */
export function tokenSecretAccount(secret: KubeObject): string | undefined {
  return secret.type === SA_TOKEN_TYPE ? secret.metadata.annotations?.[SA_NAME_ANNOTATION] : undefined;
}

/** Service-account tokens: token text → user name (system:serviceaccount:ns:name). */
export class ServiceAccountTokens {
  private readonly users = new Map<string, string>();

  /** Learns the token of a filled service-account token Secret (anything else is ignored). */
  remember(secret: KubeObject): void {
    const account = tokenSecretAccount(secret);
    const token = (secret.data as Record<string, string> | undefined)?.token;
    if (account && token)
      this.users.set(Buffer.from(token, "base64").toString(), `system:serviceaccount:${secret.metadata.namespace}:${account}`);
  }

  /** Forgets a deleted Secret's token. */
  forget(secret: KubeObject): void {
    const token = (secret.data as Record<string, string> | undefined)?.token;
    if (token) this.users.delete(Buffer.from(token, "base64").toString());
  }

  /** The user name a token authenticates as. */
  get(token: string): string | undefined {
    return this.users.get(token);
  }
}

export interface Authenticator {
  /** Tokens accepted besides service-account tokens; empty = no authentication (plain http). */
  adminTokens: Set<string>;
  /** The connection presented a client certificate signed by the sandbox CA. */
  certVerified: boolean;
  tokens: ServiceAccountTokens;
}

/** Who is asking: the admin (plain http, verified client certificate, admin token) or a service account; undefined = 401. */
export function authenticate(a: Authenticator, authorization: string | null): UserInfo | undefined {
  if (a.adminTokens.size === 0 || a.certVerified) return SANDBOX_ADMIN;
  if (!authorization) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(authorization);
  if (!m) return undefined;
  if (a.adminTokens.has(m[1]!)) return SANDBOX_ADMIN;
  const account = a.tokens.get(m[1]!);
  return account === undefined ? undefined : serviceAccountUser(account);
}
