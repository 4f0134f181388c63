// Every workload mc renders runs locked down: non-root, read-only root filesystem, no privilege, capabilities dropped.
import { describe, expect, test } from "bun:test";
import { renderAllow } from "../../src/manifests/install.ts";
import type { Manifest } from "../../src/manifests/meta.ts";
import { allCases, renderCase, VERSION } from "../manifests/cases.ts";

// Every workload mc renders (mc install in each shape, mc link in each shape, mc allow) runs
// locked down: every container non-root with a fixed non-zero UID, read-only root filesystem, no
// privilege escalation, all capabilities dropped and none added, RuntimeDefault seccomp, nothing
// privileged or on the host's namespaces; and the service-account token is mounted only into
// the pods that talk to the API server (the controllers: a link's, the install's, the local
// mirror, the shared one), never into the gateway (a pause container the proxy is injected next to).

interface Container {
  name: string;
  securityContext?: Record<string, any>;
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  securityContext?: Record<string, any>;
  automountServiceAccountToken?: boolean;
  serviceAccountName?: string;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
}

const WORKLOAD_KINDS = new Set(["Deployment", "DaemonSet", "StatefulSet", "Job", "CronJob", "Pod"]);
const podOf = (m: Manifest): PodSpec => (m as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec;

const renders: [string, Manifest[]][] = [
  ...allCases.map((c) => [c, renderCase(c)] as [string, Manifest[]]),
  [
    "allow",
    renderAllow({ namespace: "linkerd-multicluster", serviceAccount: "linkerd-service-mirror-remote-access-west", version: VERSION }),
  ],
];

/** The pods that call the Kubernetes API, by the Deployment's name: only mc's controllers. */
const USES_API_TOKEN = (m: Manifest) =>
  m.metadata.name.startsWith("linkerd-service-mirror-") ||
  m.metadata.name.startsWith("controller-") ||
  m.metadata.name === "linkerd-local-service-mirror" ||
  m.metadata.name === "mc-shared-controller";

describe("rendered workloads", () => {
  test("every render that has workloads has only Deployments (so the checks below see them all)", () => {
    const kinds = new Set(renders.flatMap(([, ms]) => ms.filter((m) => WORKLOAD_KINDS.has(m.kind)).map((m) => m.kind)));
    expect([...kinds]).toEqual(["Deployment"]);
  });

  for (const [name, manifests] of renders) {
    const deployments = manifests.filter((m) => m.kind === "Deployment");
    for (const d of deployments) {
      test(`${name}: ${d.metadata.name} runs non-root, read-only, unprivileged, with every capability dropped`, () => {
        const pod = podOf(d);
        expect([pod.hostNetwork, pod.hostPID, pod.hostIPC]).toEqual([undefined, undefined, undefined]);
        expect(pod.securityContext?.seccompProfile).toEqual({ type: "RuntimeDefault" });
        for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
          const sc = c.securityContext ?? {};
          expect({
            container: c.name,
            runAsNonRoot: sc.runAsNonRoot,
            readOnlyRootFilesystem: sc.readOnlyRootFilesystem,
            allowPrivilegeEscalation: sc.allowPrivilegeEscalation,
            privileged: sc.privileged,
          }).toEqual({
            container: c.name,
            runAsNonRoot: true,
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            privileged: undefined,
          });
          expect(sc.runAsUser).toBeGreaterThan(0);
          expect(sc.capabilities?.drop).toEqual(["ALL"]);
          expect(sc.capabilities?.add).toBeUndefined();
          expect(sc.seccompProfile ?? pod.securityContext?.seccompProfile).toEqual({ type: "RuntimeDefault" });
        }
      });

      test(`${name}: ${d.metadata.name} mounts its service-account token only if it calls the API`, () => {
        const pod = podOf(d);
        if (USES_API_TOKEN(d)) {
          expect(pod.automountServiceAccountToken).not.toBe(false);
          expect(pod.serviceAccountName).toBe(d.metadata.name);
        } else {
          expect(pod.automountServiceAccountToken).toBe(false);
        }
      });
    }
  }

  test("the cases cover the gateway and the controllers", () => {
    const names = new Set(renders.flatMap(([, ms]) => ms.filter((m) => m.kind === "Deployment").map((m) => m.metadata.name)));
    expect([...names].sort()).toEqual([
      "controller-east",
      "controller-north",
      "linkerd-gateway",
      "linkerd-local-service-mirror",
      "linkerd-service-mirror-east",
      "mc-shared-controller",
    ]);
  });
});
