// planUninstall: every labelled object of every kind mc renders, namespaced first, the CRD last;
// refuses while Links exist; says so when there is nothing.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { connect, type KubeClient } from "../../src/kube/index.ts";
import { pluralOf, renderedKinds } from "../../src/linker/owned.ts";
import { planUninstall } from "../../src/linker/uninstall.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { applyObjects } from "../helpers/apply.ts";
import { installMc } from "../helpers/linkerd.ts";

let sb: Sandbox;
let client: KubeClient;
beforeEach(async () => {
  sb = await startSandbox({ name: "west" });
  const path = `${process.env.TMPDIR ?? "/tmp"}/mc-uninstall-${crypto.randomUUID()}.kubeconfig`;
  await Bun.write(path, sb.kubeconfig);
  client = await connect({ kubeconfig: path, name: "west" });
});
afterEach(() => sb.stop());

describe("the kinds uninstall looks at", () => {
  test("are every kind mc install and mc link render, policy resources included", () => {
    const kinds = renderedKinds().map((k) => k.kind);
    for (const k of [
      "Namespace",
      "Deployment",
      "Service",
      "ServiceAccount",
      "Secret",
      "ClusterRole",
      "ClusterRoleBinding",
      "CustomResourceDefinition",
      "Server",
      "AuthorizationPolicy",
      "PodDisruptionBudget",
      "Role",
      "RoleBinding",
    ]) {
      expect(kinds).toContain(k);
    }
  });

  test("map to resources the way kubectl guesses them", () => {
    expect(["Endpoints", "AuthorizationPolicy", "MeshTLSAuthentication", "Service", "Ingress"].map(pluralOf)).toEqual([
      "endpoints",
      "authorizationpolicies",
      "meshtlsauthentications",
      "services",
      "ingresses",
    ]);
  });
});

describe("planUninstall", () => {
  test("lists every labelled object, namespaced before cluster-scoped and the CRD last, and nothing unlabelled", async () => {
    await installMc(sb);
    const refs = await planUninstall(client);
    const kinds = refs.map((r) => r.kind);
    expect(kinds.at(-1)).toBe("CustomResourceDefinition");
    const firstClusterScoped = refs.findIndex((r) => r.namespace === undefined);
    expect(refs.slice(firstClusterScoped).every((r) => r.namespace === undefined)).toBe(true);
    expect(refs.map((r) => `${r.kind} ${r.name}`)).toContain("Namespace linkerd-multicluster");
    expect(refs.map((r) => `${r.kind} ${r.name}`)).toContain("Server linkerd-gateway");
    expect(refs.some((r) => r.kind === "Namespace" && r.name === "linkerd")).toBe(false);
  });

  test("refuses while a Link exists", async () => {
    await installMc(sb);
    applyObjects(sb, [
      {
        apiVersion: "multicluster.linkerd.io/v1alpha3",
        kind: "Link",
        metadata: { name: "east", namespace: "linkerd-multicluster" },
        spec: { targetClusterName: "east", clusterCredentialsSecret: "cluster-credentials-east" },
      },
    ]);
    await expect(planUninstall(client)).rejects.toThrow("Links still exist on west; unlink these clusters first: east");
  });

  test("with nothing installed says so", async () => {
    await expect(planUninstall(client)).rejects.toThrow(
      "no resources labelled linkerd.io/extension=multicluster found to uninstall on west",
    );
  });
});
