// Run by test/security/enforced-suites.test.ts inside the suites it runs with MC_ENFORCE_RBAC=1:
// proves the setup those suites share really enforced RBAC there (a west request with the
// controller's token outside its rules is refused).
import { expect, test } from "bun:test";
import { KubeError, resources } from "../../src/kube/index.ts";
import { credentialsSecretName } from "../../src/model/names.ts";
import { multiclusterSetup, NS } from "../helpers/clusters.ts";

const on = process.env.MC_ENFORCE_RBAC === "1";

test.skipIf(!on)(
  `multiclusterSetup enforces RBAC under MC_ENFORCE_RBAC=1${on ? "" : " (skipped: only under MC_ENFORCE_RBAC=1)"}`,
  async () => {
    const setup = await multiclusterSetup({ targets: ["east", "north"] });
    try {
      expect(setup.enforceRbac).toBe(true);
      const err = await setup.controllerClients
        .get("east")!
        .get(resources.secret, NS, credentialsSecretName("north"))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KubeError);
      expect((err as KubeError).code).toBe(403);
    } finally {
      await setup.stop();
    }
  },
  20_000,
);
