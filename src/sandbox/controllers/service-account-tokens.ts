// The token controller: a service-account token Secret gets its token, the CA and the namespace
// filled in (base64) as soon as its ServiceAccount exists — at once if it does, or when it is
// created — and the authenticator learns every token Secret written and forgets deleted ones.
import { SA_NAME_ANNOTATION, SA_TOKEN_TYPE, tokenSecretAccount } from "../auth/tokens.ts";
import type { KubeObject } from "../types.ts";
import type { Controller, ControllerContext } from "./controller.ts";

/** Is this a token Secret whose data the token controller has still to fill in? */
function isUnfilledTokenSecret(secret: KubeObject): boolean {
  const data = secret.data as Record<string, string> | undefined;
  return secret.type === SA_TOKEN_TYPE && !!secret.metadata.annotations?.[SA_NAME_ANNOTATION] && !data?.token;
}

/** Fills `data.token`, `data.ca.crt` and `data.namespace` (base64), as the token controller does. */
function fillTokenSecret(secret: KubeObject, serviceAccount: KubeObject, token: string, caPem: string): void {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  secret.data = {
    ...((secret.data as Record<string, string> | undefined) ?? {}),
    token: b64(token),
    "ca.crt": b64(caPem),
    namespace: b64(secret.metadata.namespace ?? "default"),
  };
  secret.metadata.annotations = {
    ...secret.metadata.annotations,
    "kubernetes.io/service-account.uid": serviceAccount.metadata.uid ?? "",
  };
}

/** Random token text that looks like what a cluster hands out, unique per call. */
function mintToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `sbx.${Buffer.from(bytes).toString("base64url")}`;
}

export function serviceAccountTokens(ctx: ControllerContext): Controller {
  return {
    start() {
      // A store kept across a restart carries its tokens with it.
      for (const s of ctx.store.list({ group: "", plural: "secrets" })) ctx.tokens.remember(s);
    },
    admit(type, secret) {
      if (type.kind !== "Secret" || !isUnfilledTokenSecret(secret)) return;
      const sa = ctx.store.get({ group: "", plural: "serviceaccounts" }, secret.metadata.namespace, tokenSecretAccount(secret)!);
      if (sa) fillTokenSecret(secret, sa, mintToken(), ctx.caPem);
    },
    onWrite(type, obj) {
      if (type.kind === "Secret") ctx.tokens.remember(obj);
      if (type.kind === "ServiceAccount") fillPending(ctx, obj);
    },
    onDelete(type, obj) {
      if (type.kind === "Secret") ctx.tokens.forget(obj);
    },
  };
}

/** The store's index of token Secrets still to fill, by the ServiceAccount they wait for. */
const PENDING_INDEX = "unfilled-token-secrets";
const pendingFor = (secret: KubeObject): string[] => (isUnfilledTokenSecret(secret) ? [tokenSecretAccount(secret)!] : []);

/** Secrets created before their ServiceAccount are filled once it appears (a controller write). */
function fillPending(ctx: ControllerContext, sa: KubeObject): void {
  const secrets = ctx.registry.find("", "v1", "secrets")!;
  for (const pending of ctx.store.byIndex(secrets, PENDING_INDEX, pendingFor, sa.metadata.name!, sa.metadata.namespace)) {
    const s = ctx.store.get(secrets, pending.metadata.namespace, pending.metadata.name!)!;
    fillTokenSecret(s, sa, mintToken(), ctx.caPem);
    ctx.tokens.remember(ctx.store.replace(secrets, s));
  }
}
