// --mirror-endpoint-slices end to end on two sandboxes with RBAC enforced: `mc link
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import { linkResource } from "../../src/model/link.ts";
import { runMc } from "../cmd/run-mc.ts";
import { multiclusterSetup, NS, waitFor, type Setup } from "../helpers/clusters.ts";
import { hasKubectl, kubectlFor, needsKubectl, type Kubectl } from "../helpers/kubectl.ts";

// --mirror-endpoint-slices` applied to west, its controller running as the ServiceAccount the
// bundle renders (so the ClusterRole is proved to grant what the controller does), the mirrors
// read back with the real kubectl. One story, in order: the slice form, a dead gateway, mc check,
// the way back to Endpoints, the way there again, and mc unlink | kubectl delete -f -.

const MANAGED_BY = "endpointslice.kubernetes.io/managed-by=service-mirror.mc-project.io";
type Slice = KubeObject & {
  addressType: string;
  endpoints: Array<{ addresses: string[]; conditions: { ready: boolean; serving: boolean } }>;
  ports: unknown[];
};

let s: Setup;
let kubectl: Kubectl;
beforeAll(async () => {
  if (!hasKubectl) return;
  s = await multiclusterSetup({ enforceRbac: true, linkArgs: ["--mirror-endpoint-slices"], settings: { mirrorEndpointSlices: true } });
  kubectl = kubectlFor(s.west.kubeconfig);
}, 30_000);
afterAll(async () => {
  await s?.stop();
});

/** `kubectl get endpointslices -l <selector> -o json` in west: the items. */
async function slices(selector: string, namespace = "default"): Promise<Slice[]> {
  const r = await kubectl(["get", "endpointslices", "-n", namespace, "-l", selector, "-o", "json"]);
  expect(r.stderr).toBe("");
  return (JSON.parse(r.stdout) as { items: Slice[] }).items;
}

const sliceReady = (ready: boolean) => (o: KubeObject | undefined) =>
  ((o as Slice | undefined)?.endpoints ?? []).some((e) => e.conditions.ready === ready);

describe.skipIf(!hasKubectl)("mc link --mirror-endpoint-slices", () => {
  test(needsKubectl("the mirror has one slice managed by mc, ready, with the gateway's port; kubectl finds no Endpoints"), async () => {
    const link = (await s.westClient.get<KubeObject & { spec: { gatewayPort: string } }>(linkResource, NS, "east"))!;
    const [slice, ...more] = await slices("kubernetes.io/service-name=web-east");
    expect(more).toEqual([]);
    expect(slice!.metadata.labels?.["endpointslice.kubernetes.io/managed-by"]).toBe("service-mirror.mc-project.io");
    expect(slice!.addressType).toBe("IPv4");
    expect(slice!.endpoints).toEqual([{ addresses: ["192.0.2.10"], conditions: { ready: true, serving: true } }]);
    expect(slice!.ports).toEqual([{ name: "http", protocol: "TCP", port: Number(link.spec.gatewayPort) }]);
    const eps = await kubectl(["get", "endpoints", "web-east", "-n", "default"]);
    expect(eps.code).toBe(1);
    expect(eps.stderr).toContain('endpoints "web-east" not found');
    // The gateway mirror is a slice of the probe Service too.
    expect((await slices("kubernetes.io/service-name=probe-gateway-east", NS)).map((x) => x.endpoints.length)).toEqual([1]);
  });

  test(needsKubectl("a dead gateway makes the slice not ready and not serving; alive again, ready"), async () => {
    const gateway = s.targets.get("east")!.gateway;
    await gateway.kill();
    await waitFor(s.westClient, resources.endpointSlice, "default", "web-east", sliceReady(false), "web-east's slice not ready", 15_000);
    expect((await slices("kubernetes.io/service-name=web-east"))[0]!.endpoints[0]!.conditions).toEqual({ ready: false, serving: false });
    gateway.restart();
    await waitFor(s.westClient, resources.endpointSlice, "default", "web-east", sliceReady(true), "web-east's slice ready again", 15_000);
  }, 40_000);

  test(needsKubectl("mc check counts the slice as the mirror's endpoints"), async () => {
    const r = await runMc(["--kubeconfig", s.westKubeconfig, "check", "-o", "json"]);
    const checks = (
      JSON.parse(r.stdout) as { categories: Array<{ checks: Array<{ description: string; result: string }> }> }
    ).categories.flatMap((c) => c.checks);
    expect(checks.find((c) => c.description === "all mirror services have endpoints")?.result).toBe("success");
  });

  test(needsKubectl("mc check's RBAC review asks a controller run with the flag for endpointslices in its ClusterRole"), async () => {
    const rbac = async () => {
      const r = await runMc(["--kubeconfig", s.westKubeconfig, "check", "-o", "json"]);
      return (JSON.parse(r.stdout) as { categories: Array<{ checks: Array<{ description: string; result: string }> }> }).categories
        .flatMap((c) => c.checks)
        .find((c) => c.description === "service mirror controller has required permissions");
    };
    expect((await rbac())?.result).toBe("success");
    const role = "linkerd-service-mirror-access-local-resources-east";
    const original = (await kubectl(["get", "clusterrole", role, "-o", "json"])).stdout;
    const without = JSON.parse(original) as { rules: Array<{ resources: string[] }>; metadata: Record<string, unknown> };
    without.rules = without.rules.filter((r) => !r.resources.includes("endpointslices"));
    expect((await kubectl(["replace", "-f", "-"], { stdin: JSON.stringify(without) })).code).toBe(0);
    const denied = await rbac();
    expect(denied?.result).toBe("error");
    expect(JSON.stringify(denied)).toContain("endpointslices");
    const back = JSON.parse((await kubectl(["get", "clusterrole", role, "-o", "json"])).stdout) as { metadata: Record<string, unknown> };
    const restored = {
      ...(JSON.parse(original) as object),
      metadata: { ...(JSON.parse(original) as { metadata: object }).metadata, resourceVersion: back.metadata.resourceVersion },
    };
    expect((await kubectl(["replace", "-f", "-"], { stdin: JSON.stringify(restored) })).code).toBe(0);
    expect((await rbac())?.result).toBe("success");
  }, 20_000);

  test(needsKubectl("turned off, the controller writes the Endpoints back and then deletes mc's slices"), async () => {
    await s.startController("east", { mirrorEndpointSlices: false });
    await waitFor(s.westClient, resources.endpoints, "default", "web-east", (o) => o !== undefined, "web-east's Endpoints");
    await waitFor(s.westClient, resources.endpointSlice, "default", "web-east", (o) => o === undefined, "mc's slice of web-east to go");
    const r = await kubectl(["get", "endpoints", "web-east", "-n", "default", "-o", "jsonpath={.subsets[0].addresses[0].ip}"]);
    expect(r.stdout).toBe("192.0.2.10");
    expect(await slices(MANAGED_BY)).toEqual([]);
  });

  test(needsKubectl(
    "turned on again, Endpoints go once the slice is there; mc unlink | kubectl delete -f - removes the slices",
  ), async () => {
    await s.startController("east", { mirrorEndpointSlices: true });
    await waitFor(s.westClient, resources.endpoints, "default", "web-east", (o) => o === undefined, "web-east's Endpoints to go");
    expect(await slices(MANAGED_BY)).toHaveLength(1);
    await s.controllers.get("east")!.stop(); // as deleting its Deployment does
    const unlink = await runMc(["--kubeconfig", s.westKubeconfig, "unlink", "--cluster-name", "east"]);
    expect(unlink.code).toBe(0);
    expect(unlink.stdout).toContain("kind: EndpointSlice");
    const del = await kubectl(["delete", "-f", "-"], { stdin: unlink.stdout });
    expect(del.stderr).toBe("");
    expect(del.stdout).toContain('endpointslice.discovery.k8s.io "web-east" deleted');
    expect(await slices(MANAGED_BY)).toEqual([]);
    expect(await slices(MANAGED_BY, NS)).toEqual([]);
  }, 20_000);
});
