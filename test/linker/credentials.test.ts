// linkerd-config, the token Secret and the kubeconfig mc link builds from them.
import { describe, expect, test } from "bun:test";
import YAML from "yaml";
import { remoteKubeconfig } from "../../src/linker/kubeconfig.ts";
import { parseLinkerdConfig } from "../../src/linker/linkerd-config.ts";
import { tokenFromSecrets } from "../../src/linker/target.ts";
import { parseKubeconfig } from "../../src/kube/index.ts";

const WHERE = "ConfigMap linkerd/linkerd-config on east";

describe("parseLinkerdConfig", () => {
  test("reads the cluster domain, trust domain and anchors from data.values", () => {
    const values = YAML.stringify({ clusterDomain: "east.local", identityTrustDomain: "root.linkerd", identityTrustAnchorsPEM: "PEM" });
    expect(parseLinkerdConfig({ data: { values } }, WHERE)).toEqual({
      clusterDomain: "east.local",
      trustDomain: "root.linkerd",
      trustAnchorsPem: "PEM",
    });
  });

  test("missing values fall back to Linkerd's defaults", () => {
    expect(parseLinkerdConfig({ data: { values: "linkerdVersion: x\n" } }, WHERE)).toEqual({
      clusterDomain: "cluster.local",
      trustDomain: "cluster.local",
      trustAnchorsPem: "",
    });
  });

  test.each<[string, Record<string, string> | null, string]>([
    [
      "no data.values",
      { global: "{}" },
      `${WHERE} has no data.values; it is not a Linkerd 2.10+ linkerd-config (upgrade Linkerd's control plane, or pass --linkerd-namespace)`,
    ],
    ["values not YAML", { values: "a: [" }, `${WHERE}: data.values is not valid YAML (reinstall or repair Linkerd's control plane)`],
    [
      "bad domain",
      { values: "clusterDomain: Not A Domain\n" },
      `${WHERE}: data.values clusterDomain must be a DNS domain such as cluster.local, got "Not A Domain"`,
    ],
    ["non-string trust domain", { values: "identityTrustDomain: 3\n" }, `${WHERE}: data.values identityTrustDomain must be a string`],
  ])("%s is one line naming the ConfigMap", (_, data, message) => {
    expect(() => parseLinkerdConfig({ data }, WHERE)).toThrow(message);
  });
});

const b64 = (s: string) => Buffer.from(s).toString("base64");
const tokenSecret = (
  name: string,
  sa: string,
  token?: string,
): { metadata: { name: string; annotations: Record<string, string> }; type: string; data: Record<string, string> } => ({
  metadata: { name, annotations: { "kubernetes.io/service-account.name": sa } },
  type: "kubernetes.io/service-account-token",
  data: token === undefined ? {} : { token: b64(token) },
});
const AT = { namespace: "linkerd-multicluster", cluster: "east" };
const SA = "linkerd-service-mirror-remote-access-default";

describe("tokenFromSecrets", () => {
  test("prefers the <sa>-token Secret mc install renders, decoded", () => {
    const secrets = [
      tokenSecret("aaa-other", SA, "other"),
      tokenSecret(`${SA}-token`, SA, "mine\n"),
      tokenSecret("x", "someone-else", "no"),
    ];
    expect(tokenFromSecrets(secrets, SA, AT)).toBe("mine");
  });

  test("takes any Secret bound to the account when the usual one is absent", () => {
    expect(tokenFromSecrets([tokenSecret("custom", SA, "t")], SA, AT)).toBe("t");
  });

  test("no bound Secret is one line with the fix", () => {
    const opaque = { ...tokenSecret(`${SA}-token`, SA, "t"), type: "Opaque" };
    expect(() => tokenFromSecrets([opaque], SA, AT)).toThrow(
      `no token Secret for ServiceAccount linkerd-multicluster/${SA} on east: apply the Secret ${SA}-token that mc install renders (type kubernetes.io/service-account-token, annotation kubernetes.io/service-account.name=${SA})`,
    );
  });

  test("a Secret the token controller has not filled yet says to retry", () => {
    expect(() => tokenFromSecrets([tokenSecret(`${SA}-token`, SA)], SA, AT)).toThrow(
      `Secret linkerd-multicluster/${SA}-token on east has no data.token yet: the token controller fills it once the ServiceAccount exists; retry in a moment`,
    );
  });
});

describe("remoteKubeconfig", () => {
  const cluster = { server: "https://127.0.0.1:6443", "certificate-authority-data": b64("CA"), "tls-server-name": "kubernetes" };

  test("holds the context's cluster and only the token, and parses as a kubeconfig", () => {
    const text = remoteKubeconfig({ contextName: "east-admin", clusterName: "east", cluster, serviceAccount: SA, token: "tok" });
    const parsed = parseKubeconfig(text, "test");
    expect(parsed).toEqual({
      clusters: [
        {
          name: "east",
          cluster: { server: "https://127.0.0.1:6443", "certificate-authority-data": b64("CA"), "tls-server-name": "kubernetes" },
        },
      ],
      users: [{ name: SA, user: { token: "tok" } }],
      contexts: [{ name: "east-admin", context: { cluster: "east", user: SA } }],
      currentContext: "east-admin",
    });
  });

  test("--api-server-address replaces the server; a CA file is inlined as data", () => {
    const text = remoteKubeconfig({
      contextName: "e",
      clusterName: "e",
      cluster: { server: "https://x", "certificate-authority": "/ca.crt" },
      caData: b64("FILE"),
      server: "https://203.0.113.1:6443",
      serviceAccount: SA,
      token: "t",
    });
    const entry = parseKubeconfig(text, "test").clusters[0]!.cluster;
    expect(entry).toEqual({ server: "https://203.0.113.1:6443", "certificate-authority-data": b64("FILE") });
  });
});
