// Test view of the fake Linkerd control plane (src/demo/fake-linkerd.ts) plus `installMc`, which
// makes a sandbox a target ready for `mc link`.
import type { Manifest } from "../../src/manifests/meta.ts";
import type { Sandbox } from "../../src/sandbox/index.ts";
import { fakeLinkerd, FAKE_ANCHORS, type FakeLinkerdOptions } from "../../src/demo/fake-linkerd.ts";
import { applyObjects } from "./apply.ts";

export { fakeLinkerd, type FakeLinkerdOptions };
export const TEST_ANCHORS = FAKE_ANCHORS;

/**
 * A target ready for `mc link`: fakeLinkerd plus what `mc install` renders (gateway, remote
 * access account, Link CRD), created in-process. `mutate` may change the objects first.
 */
export async function installMc(
  sb: Sandbox,
  o: FakeLinkerdOptions & {
    namespace?: string;
    serviceType?: "LoadBalancer" | "NodePort" | "ClusterIP";
    mutate?: (objects: Manifest[]) => Manifest[];
  } = {},
): Promise<void> {
  const { renderInstall } = await import("../../src/manifests/install.ts");
  fakeLinkerd(sb, o);
  const objects = renderInstall({
    namespace: o.namespace ?? "linkerd-multicluster",
    linkerdNamespace: o.linkerdNamespace ?? "linkerd",
    trustDomain: o.trustDomain ?? "cluster.local",
    gateway: { serviceType: o.serviceType ?? "LoadBalancer", port: 4143, probePort: 4191, probeSeconds: 3, replicas: 1, ha: false },
    remoteAccessAccounts: ["linkerd-service-mirror-remote-access-default"],
    version: "0.0.0-test",
  });
  applyObjects(sb, o.mutate ? o.mutate(objects) : objects);
}
