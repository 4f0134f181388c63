// Mirror names a user chooses, end to end on two sandboxes with RBAC enforced: `mc link
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import { runMc } from "../cmd/run-mc.ts";
import { multiclusterSetup, NS, waitFor, type Setup } from "../helpers/clusters.ts";
import { hasKubectl, kubectlFor, needsKubectl, type Kubectl } from "../helpers/kubectl.ts";

// --mirror-name-template '{cluster}-{service}'` applied to west and its controller as the rendered
// ServiceAccount; the target annotated and a name taken with the real kubectl; the refusal read
// back from the Link's status, west's Events and `mc check`. One story, in order.

const TEMPLATE = "{cluster}-{service}";
let s: Setup;
let west: Kubectl;
let east: Kubectl;
beforeAll(async () => {
  if (!hasKubectl) return;
  s = await multiclusterSetup({
    enforceRbac: true,
    linkArgs: ["--mirror-name-template", TEMPLATE],
    settings: { mirrorNameTemplate: TEMPLATE },
  });
  west = kubectlFor(s.west.kubeconfig);
  east = kubectlFor(s.targets.get("east")!.sandbox.kubeconfig);
}, 30_000);
afterAll(async () => {
  await s?.stop();
});

/** The Services in west's default namespace, save the API server's own. */
const names = async () =>
  (await west(["get", "services", "-n", "default", "-o", "jsonpath={.items[*].metadata.name}"])).stdout
    .split(" ")
    .filter((n) => n !== "" && n !== "kubernetes")
    .sort();
const exists = (o: KubeObject | undefined) => o !== undefined;
const gone = (o: KubeObject | undefined) => o === undefined;

describe.skipIf(!hasKubectl)("mc link --mirror-name-template and the annotation mc-project.io/mirror-name", () => {
  test(needsKubectl("mc link renders the template into the controller's args; the mirror is named by it"), async () => {
    const args = await west([
      "get",
      "deployment",
      "linkerd-service-mirror-east",
      "-n",
      NS,
      "-o",
      "jsonpath={.spec.template.spec.containers[0].args}",
    ]);
    expect(JSON.parse(args.stdout)).toContain(`--mirror-name-template=${TEMPLATE}`);
    expect(await names()).toEqual(["east-web"]);
  });

  test(needsKubectl("kubectl annotate on the target renames the mirror: the new one first, then the old one goes"), async () => {
    expect((await east(["annotate", "service", "web", "-n", "default", "mc-project.io/mirror-name=shop"])).stderr).toBe("");
    await waitFor(s.westClient, resources.service, "default", "shop", exists, "the mirror shop");
    await waitFor(s.westClient, resources.service, "default", "east-web", gone, "east-web to go");
    expect(await names()).toEqual(["shop"]);
    const ep = await west(["get", "endpoints", "shop", "-n", "default", "-o", "jsonpath={.subsets[0].addresses[0].ip}"]);
    expect(ep.stdout).toBe("192.0.2.10");
  });

  test(needsKubectl(
    "a name another Service holds is refused: the old mirror stays, the Link status, an Event and mc check name it",
  ), async () => {
    expect((await west(["create", "service", "clusterip", "taken", "-n", "default", "--tcp=80:80"])).code).toBe(0);
    const before = await west(["get", "service", "shop", "-n", "default", "-o", "jsonpath={.metadata.resourceVersion}"]);
    expect((await east(["annotate", "--overwrite", "service", "web", "-n", "default", "mc-project.io/mirror-name=taken"])).stderr).toBe("");
    const refused = (o: KubeObject | undefined) =>
      JSON.stringify((o as { status?: unknown } | undefined)?.status ?? {}).includes(
        "Service default/taken exists and is not a mirror of east",
      );
    await waitFor(
      s.westClient,
      { apiVersion: "multicluster.linkerd.io/v1alpha3", kind: "Link", plural: "links", namespaced: true },
      NS,
      "east",
      refused,
      "the refusal in the Link's status",
      10_000,
    );
    expect((await west(["get", "service", "taken", "-n", "default", "-o", "jsonpath={.metadata.labels}"])).stdout).toBe('{"app":"taken"}'); // kubectl's, untouched
    expect((await west(["get", "service", "shop", "-n", "default", "-o", "jsonpath={.metadata.resourceVersion}"])).stdout).toBe(
      before.stdout,
    );
    const events = await west([
      "get",
      "events",
      "-n",
      "default",
      "--field-selector",
      "involvedObject.name=taken",
      "-o",
      "jsonpath={.items[*].reason}",
    ]);
    expect(events.stdout).toBe("ServiceMirroringSkipped");
    const check = await runMc(["--kubeconfig", s.westKubeconfig, "check", "-o", "json"]);
    const checks = (
      JSON.parse(check.stdout) as {
        categories: Array<{ checks: Array<{ description: string; result: string; error?: string; details?: string[] }> }>;
      }
    ).categories.flatMap((c) => c.checks);
    const blocked = checks.find((c) => c.description === "no foreign service blocks a mirror name");
    expect(blocked?.result).toBe("warning");
    expect(JSON.stringify(blocked)).toContain("east: 1 export not mirrored, the name is taken: default/taken");
  }, 20_000);

  test(needsKubectl("the name freed (kubectl delete), the mirror takes it; mc unlink finds it by label"), async () => {
    expect((await west(["delete", "service", "taken", "-n", "default"])).code).toBe(0);
    const ours = (o: KubeObject | undefined) => o?.metadata.labels?.["mirror.linkerd.io/cluster-name"] === "east";
    await waitFor(s.westClient, resources.service, "default", "taken", ours, "the mirror under the freed name", 10_000);
    await waitFor(s.westClient, resources.service, "default", "shop", gone, "the old name to go");
    await s.controllers.get("east")!.stop();
    const unlink = await runMc(["--kubeconfig", s.westKubeconfig, "unlink", "--cluster-name", "east"]);
    expect(unlink.stdout).toContain("name: taken");
    expect((await west(["delete", "-f", "-"], { stdin: unlink.stdout })).stderr).toBe("");
    expect(await names()).toEqual([]);
  }, 20_000);
});
