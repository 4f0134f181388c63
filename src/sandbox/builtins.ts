// What a real cluster's controllers would do to objects mc depends on: service-account token
// Secrets filled in, CRD names accepted.
import { errors, type KubeObject } from "./types.ts";

const SA_TOKEN_TYPE = "kubernetes.io/service-account-token";
const SA_NAME_ANNOTATION = "kubernetes.io/service-account.name";

/** Is this a token Secret whose data the token controller has still to fill in? */
export function isUnfilledTokenSecret(secret: KubeObject): boolean {
  const data = secret.data as Record<string, string> | undefined;
  return secret.type === SA_TOKEN_TYPE && !!secret.metadata.annotations?.[SA_NAME_ANNOTATION] && !data?.token;
}

/** Fills `data.token`, `data.ca.crt` and `data.namespace` (base64), as the token controller does. */
export function fillTokenSecret(secret: KubeObject, serviceAccount: KubeObject, token: string, caPem: string): void {
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
export function mintToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `sbx.${Buffer.from(bytes).toString("base64url")}`;
}

/** The apiextensions controller: a CRD is named plural.group, and its names are accepted at once. */
export function admitCrd(crd: KubeObject): void {
  const spec = crd.spec as { group?: string; names?: { plural?: string } } | undefined;
  const expected = `${spec?.names?.plural}.${spec?.group}`;
  if (crd.metadata.name !== expected) {
    throw errors.invalid("CustomResourceDefinition", crd.metadata.name ?? "", [{ field: "metadata.name", message: `Invalid value: "${crd.metadata.name}": must be spec.names.plural+"."+spec.group` }], "apiextensions.k8s.io");
  }
  crd.status = {
    conditions: [
      { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found", lastTransitionTime: new Date().toISOString() },
      { type: "Established", status: "True", reason: "InitialNamesAccepted", message: "the initial names have been accepted", lastTransitionTime: new Date().toISOString() },
    ],
    acceptedNames: (crd.spec as { names: object }).names,
    storedVersions: ((crd.spec as { versions: { name: string; storage?: boolean }[] }).versions ?? []).filter((v) => v.storage).map((v) => v.name),
  };
}
