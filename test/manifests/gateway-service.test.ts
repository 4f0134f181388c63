// The gateway Service carries exactly the annotations Linkerd's chart gives it
// (multicluster/cmd/testdata/install_default.golden), so tools that read them find the same keys.
import { expect, test } from "bun:test";
import { renderInstall } from "../../src/manifests/install.ts";
import { installBase } from "./cases.ts";

test("the gateway Service has Linkerd's annotations, including component: gateway", () => {
  const svc = renderInstall(installBase).find((o) => o.kind === "Service" && o.metadata.name === "linkerd-gateway");
  const annotations = { ...(svc?.metadata.annotations ?? {}) };
  // Linkerd's says linkerd/helm, ours mc/cli (docs/linkerd-compatibility.md#other-keys).
  delete annotations["linkerd.io/created-by"];
  expect(annotations).toEqual({
    "mirror.linkerd.io/gateway-identity": "linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.cluster.local",
    "mirror.linkerd.io/probe-period": "3",
    "mirror.linkerd.io/probe-path": "/ready",
    "mirror.linkerd.io/multicluster-gateway": "true",
    component: "gateway",
  });
});
