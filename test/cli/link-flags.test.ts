// mc link's flag table: the Link spec group is the model's LinkSpecOptions, so every row's value
// lands in the rendered Link as given, and the defaults the demo and bench use are the table's.
import { describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { camelCase } from "../../src/cli/flags.ts";
import { defaultLinkOptions, LINK_FLAGS, LINK_SPEC_FLAGS, linkOptions } from "../../src/cli/link-flags.ts";
import { renderLink, renderLinkBundle } from "../../src/manifests/link-bundle.ts";
import { linkSpecOptions, noLinkSpecOptions, parseLink, type LinkSpecOptions } from "../../src/model/link.ts";
import { parseLabelSelector } from "../../src/model/selector.ts";

const globals = { verbose: false };
const facts = {
  clusterDomain: "cluster.local",
  gateway: { addresses: ["203.0.113.10"], port: 4143, identity: "gw", probe: { path: "/ready", port: 4191, periodMs: 3000 } },
};

/** The Link `mc link` would print for these options, read back as the controller reads it. */
function roundTrip(spec: LinkSpecOptions): LinkSpecOptions {
  const link = renderLink({
    clusterName: "east",
    namespace: "linkerd-multicluster",
    linkerdNamespace: "linkerd",
    ...facts,
    spec,
    version: "0",
  });
  return linkSpecOptions(parseLink(link));
}

/** A value other than the default for every Link spec flag (a new row needs one here). */
const SAMPLES: Record<keyof typeof LINK_SPEC_FLAGS, string> = {
  selector: "tier in (web,api)",
  "remote-discovery-selector": "mirror.linkerd.io/exported=flat",
  "federated-service-selector": "mirror.linkerd.io/federated=member,team=a",
  "excluded-annotations": "argocd.argoproj.io/*",
  "excluded-labels": "app.kubernetes.io/managed-by",
};

describe("the Link spec flags", () => {
  test.each(Object.entries(SAMPLES))("--%s=%s reaches the rendered Link as given", (flag, value) => {
    const key = camelCase(flag) as keyof LinkSpecOptions;
    const { options } = linkOptions({ "cluster-name": "east", [flag]: value }, globals);
    expect(options.spec[key]).not.toEqual(defaultLinkOptions("east").spec[key]);
    expect(roundTrip(options.spec)[key]).toEqual(options.spec[key]);
  });

  test("are the whole of the model's spec options, each once", () => {
    expect(Object.keys(LINK_SPEC_FLAGS).map(camelCase).sort()).toEqual(Object.keys(noLinkSpecOptions()).sort());
    for (const flag of Object.keys(LINK_SPEC_FLAGS)) expect(LINK_FLAGS.args[flag]).toBeDefined();
  });

  test("with no flags, the Link carries Linkerd's default selectors and no exclusions", () => {
    expect(roundTrip(defaultLinkOptions("east").spec)).toEqual({
      selector: parseLabelSelector("mirror.linkerd.io/exported=true"),
      remoteDiscoverySelector: parseLabelSelector("mirror.linkerd.io/exported=remote-discovery"),
      federatedServiceSelector: parseLabelSelector("mirror.linkerd.io/federated=member"),
      excludedAnnotations: [],
      excludedLabels: [],
    });
  });
});

describe("defaultLinkOptions", () => {
  test("is mc link --cluster-name C with every other flag at its default", () => {
    expect(defaultLinkOptions("east", "/k/east")).toEqual({
      clusterName: "east",
      namespace: "linkerd-multicluster",
      linkerdNamespace: "linkerd",
      serviceAccount: "linkerd-service-mirror-remote-access-default",
      apiServerAddress: undefined,
      gateway: { name: "linkerd-gateway", namespace: "linkerd-multicluster", addresses: [], port: undefined },
      spec: defaultLinkOptions("east").spec,
      controller: {
        image: `ghcr.io/mc-project/mc:${pkg.version}`,
        logLevel: "info",
        logFormat: "plain",
        ha: false,
        settings: {
          eventRequeueLimit: 3,
          enableEndpointSlices: false,
          enableNamespaceCreation: false,
          mirrorEndpointSlices: false,
          mirrorNameTemplate: "{service}-{cluster}",
          namespaceSelector: "",
          namespaceMap: {},
          fastFailureDetection: false,
          kubeApiQps: 0,
          kubeApiBurst: 100,
        },
        resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "1", memory: "512Mi" } },
      },
      version: pkg.version,
      kubeconfig: "/k/east",
      context: undefined,
    });
  });

  test("takes the global flags it is given", () => {
    expect(linkOptions({ "cluster-name": "east" }, { kubeconfig: "/k", context: "east", verbose: true }).options).toMatchObject({
      kubeconfig: "/k",
      context: "east",
    });
  });

  test("--fast-failure-detection goes into the controller's args only; the Link stays as without it", async () => {
    const bundle = async (...flags: string[]) => {
      const { options } = linkOptions({ "cluster-name": "east", ...Object.fromEntries(flags.map((f) => [f, true])) }, globals);
      return renderLinkBundle({
        ...options,
        kubeconfig: "apiVersion: v1\nkind: Config\n",
        ...facts,
        linkerdNamespace: "linkerd",
        trustDomain: "cluster.local",
      });
    };
    const [plain, fast] = await Promise.all([bundle(), bundle("fast-failure-detection")]);
    const args = (objects: typeof plain) =>
      (
        objects.find((o) => o.kind === "Deployment") as unknown as {
          spec: { template: { spec: { containers: Array<{ args: string[] }> } } };
        }
      ).spec.template.spec.containers[0]!.args;
    expect(args(fast)).toEqual([...args(plain).slice(0, -1), "--fast-failure-detection", "east"]);
    expect(fast.find((o) => o.kind === "Link")).toEqual(plain.find((o) => o.kind === "Link"));
    expect(fast.filter((o) => o.kind !== "Deployment")).toEqual(plain.filter((o) => o.kind !== "Deployment"));
  });

  test("--namespace-map goes into the controller's args as given (none without it); the Link stays as without it", async () => {
    const bundle = async (args: Record<string, unknown>) => {
      const { options } = linkOptions({ "cluster-name": "east", ...args }, globals);
      return renderLinkBundle({
        ...options,
        kubeconfig: "apiVersion: v1\nkind: Config\n",
        ...facts,
        linkerdNamespace: "linkerd",
        trustDomain: "cluster.local",
      });
    };
    const [plain, mapped] = await Promise.all([bundle({}), bundle({ "namespace-map": "shop=shop-east, pay=pay-east" })]);
    const args = (objects: typeof plain) =>
      (
        objects.find((o) => o.kind === "Deployment") as unknown as {
          spec: { template: { spec: { containers: Array<{ args: string[] }> } } };
        }
      ).spec.template.spec.containers[0]!.args;
    expect(args(plain).some((a) => a.startsWith("--namespace-map"))).toBe(false);
    expect(args(mapped).filter((a) => !args(plain).includes(a))).toEqual(["--namespace-map=shop=shop-east,pay=pay-east"]);
    expect(args(mapped).length).toBe(args(plain).length + 1);
    expect(mapped.find((o) => o.kind === "Link")).toEqual(plain.find((o) => o.kind === "Link"));
  });
});
