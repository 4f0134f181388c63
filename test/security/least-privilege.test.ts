// Least privilege (docs/decisions.md#d26): the remote-access ClusterRole grants exactly what mc asks of a target (src/model/access.ts), the
// controller's client for the target is held to that table, and the reads Linkerd's destination controller needs for remote discovery are
// granted only on request.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AccessTableError, connectKubeconfigText, resources, type KubeClient } from "../../src/kube/index.ts";
import { linkOptions } from "../../src/cli/link-flags.ts";
import { renderAllow, renderInstall } from "../../src/manifests/install.ts";
import { renderLinkBundle } from "../../src/manifests/link-bundle.ts";
import { CONTROLLER_RESOURCES, type ControllerOptions } from "../../src/manifests/service-mirror.ts";
import type { Manifest } from "../../src/manifests/meta.ts";
import { controllerAccess, remoteAccessRules, TARGET_ACCESS } from "../../src/model/access.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { mc } from "../helpers/mc.ts";
import { installBase, linkBase } from "../manifests/cases.ts";
import { startPair } from "../helpers/clusters.ts";
import { startController } from "../mirror/harness.ts";

const clusterRole = (objects: Manifest[]) =>
  objects.find((o) => o.kind === "ClusterRole") as Manifest & {
    rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
  };
const granted = (objects: Manifest[]) =>
  clusterRole(objects)
    .rules.flatMap((r) => r.resources.flatMap((res) => r.verbs.map((v) => `${v} ${res}${r.apiGroups[0] ? `.${r.apiGroups[0]}` : ""}`)))
    .sort();

describe("the remote-access ClusterRole", () => {
  test("by default grants what mc serve and mc check call, nothing else", () => {
    expect(granted(renderInstall(installBase))).toEqual([
      "create events",
      "get configmaps",
      "list endpoints",
      "list serviceexports.multicluster.x-k8s.io",
      "list services",
      "watch endpoints",
      "watch serviceexports.multicluster.x-k8s.io",
      "watch services",
    ]);
    expect(clusterRole(renderInstall(installBase)).rules).toEqual([
      ...TARGET_ACCESS.mirror,
      ...TARGET_ACCESS.mcs,
      ...TARGET_ACCESS.check,
    ] as never);
    expect(granted(renderAllow({ namespace: "linkerd-multicluster", serviceAccount: "sa", version: "t" }))).toEqual(
      granted(renderInstall(installBase)),
    );
  });

  test("endpoint-slices access adds list and watch of EndpointSlices; remote-discovery access adds Linkerd's destination reads", () => {
    const slices = granted(renderInstall({ ...installBase, remoteAccess: { endpointSlices: true } }));
    expect(slices.filter((g) => !granted(renderInstall(installBase)).includes(g))).toEqual([
      "list endpointslices.discovery.k8s.io",
      "watch endpointslices.discovery.k8s.io",
    ]);
    const discovery = granted(
      renderAllow({ namespace: "linkerd-multicluster", serviceAccount: "sa", version: "t", access: { remoteDiscovery: true } }),
    );
    for (const g of [
      "list pods",
      "watch pods",
      "get replicasets.apps",
      "list jobs.batch",
      "watch endpointslices.discovery.k8s.io",
      "list servers.policy.linkerd.io",
    ])
      expect(discovery).toContain(g);
    expect(remoteAccessRules({ endpointSlices: true, remoteDiscovery: true })).toEqual(remoteAccessRules({ remoteDiscovery: true }));
  });

  test.each([
    [["install", "--ignore-cluster"], false],
    [["install", "--ignore-cluster", "--remote-discovery-access"], true],
    [["allow", "--ignore-cluster", "--service-account-name", "west", "--remote-discovery-access"], true],
  ])("mc %p grants pods: %p", async (args, pods) => {
    const r = await mc(args);
    expect(r.code).toBe(0);
    // The remote-access ClusterRole (the source's own roles may write EndpointSlices: the MCS import's).
    const role = r.stdout.split(/^---$/m).find((doc) => doc.includes("kind: ClusterRole\n") && doc.includes("- linkerd-config\n"))!;
    expect(role.includes("- pods\n")).toBe(pods);
    expect(role.includes("- endpointslices\n")).toBe(pods);
  });
});

describe("the controller's client for the target", () => {
  let sb: Sandbox;
  let client: KubeClient;
  beforeAll(async () => {
    sb = await startSandbox({ name: "east" });
    client = (await connectKubeconfigText(sb.kubeconfig, "east", { name: "east" })).restrictedTo(controllerAccess(), "src/model/access.ts");
  });
  afterAll(() => sb?.stop());

  test("makes the calls the table grants", async () => {
    expect((await client.list(resources.service)).items).toBeArray();
    const stream = await client.watch(resources.endpoints, { timeoutSeconds: 1 });
    stream.cancel();
    await client.create(resources.event, {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "e", namespace: "default" },
      involvedObject: { kind: "Service", name: "web", namespace: "default" },
    });
  });

  test("refuses any other before a request is sent, as a bug naming the table", async () => {
    const before = sb.store.writes.create;
    await expect(client.list(resources.pod)).rejects.toThrow(AccessTableError);
    await expect(client.get(resources.service, "default", "web")).rejects.toThrow(
      "get services default/web on east: not in mc's access table for this cluster (src/model/access.ts); this is a bug in mc",
    );
    await expect(
      client.create(resources.secret, { apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "default" } }),
    ).rejects.toThrow(AccessTableError);
    await expect(client.watch(resources.pod)).rejects.toThrow(AccessTableError);
    expect(sb.store.writes.create).toBe(before);
    expect(
      (await client
        .named("renamed")
        .list(resources.pod)
        .catch((e: Error) => e)) instanceof AccessTableError,
    ).toBe(true);
  });

  test("with endpoint slices, also lists them", () => {
    expect(controllerAccess({ endpointSlices: true })).toContainEqual(TARGET_ACCESS.endpointSlices[0]);
  });
});

describe("the controller's Deployment", () => {
  const link = (...flags: string[]) =>
    mc([
      "--kubeconfig",
      "/nonexistent",
      "link",
      "--cluster-name",
      "east",
      "--gateway=false",
      "--api-server-address",
      "https://203.0.113.1:6443",
      ...flags,
    ]);

  test("has requests and limits sized from bun run bench memory, each overridable, and a request above its limit is refused", async () => {
    const options = (args: Record<string, unknown>) =>
      (linkOptions({ "cluster-name": "east", ...args }, { verbose: false }).options.controller as ControllerOptions).resources;
    expect(options({})).toEqual(CONTROLLER_RESOURCES as never);
    expect(options({ "controller-memory-limit": "1Gi", "controller-cpu-limit": "" })).toEqual({
      requests: { cpu: "100m", memory: "128Mi" },
      limits: { memory: "1Gi" },
    });
    expect(() => options({ "controller-memory-request": "1Gi" })).toThrow(
      '--controller-memory-request: must not exceed --controller-memory-limit (512Mi), got "1Gi"',
    );
    // What the options hold is what the Deployment gets (the defaults are in the golden files).
    const resourcesOf = (objects: Manifest[]) =>
      (
        objects.find((o) => o.kind === "Deployment") as unknown as {
          spec: { template: { spec: { containers: Array<{ resources?: unknown }> } } };
        }
      ).spec.template.spec.containers[0]!.resources;
    const override = { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "1Gi" } };
    expect(
      resourcesOf(renderLinkBundle({ ...linkBase, controller: { ...(linkBase.controller as ControllerOptions), resources: override } })),
    ).toEqual(override);
    expect(resourcesOf(renderLinkBundle(linkBase))).toEqual(CONTROLLER_RESOURCES as never);
    const r = await link("--controller-memory-limit", "lots");
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr: 'error: --controller-memory-limit: must be a Kubernetes quantity such as 512Mi (or empty: not set), got "lots"\n',
    });
  });
});

describe("the mirror controller", () => {
  test("asks the target only through the client restricted to the table: given one restricted to nothing, its first call is refused and it never syncs", async () => {
    const pair = await startPair();
    try {
      const asked: unknown[] = [];
      const restrict = pair.eastClient.restrictedTo.bind(pair.eastClient);
      pair.eastClient.restrictedTo = (rules, table) => {
        asked.push(rules);
        return restrict([], table); // nothing allowed: any request the controller sends is refused before it leaves
      };
      const err = await startController(pair).catch((e: unknown) => e);
      expect(asked).toEqual([controllerAccess()]);
      expect(String(err)).toContain("not in mc's access table for this cluster (src/model/access.ts)");
    } finally {
      await pair.stop();
    }
  });
});
