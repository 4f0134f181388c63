// `mc install --controllers … --controller-set …`: each controller from the install's defaults
// and its own overrides; a wrong entry is one line naming the flag, the entry and the fix.
import { describe, expect, test } from "bun:test";
import { DEFAULT_PROBE_PORT, installControllers } from "../../src/cli/install-controllers.ts";
import { parseManifests } from "../../src/manifests/output.ts";
import { runMc } from "../cmd/run-mc.ts";

const defaults = { image: "img:1", logLevel: "info", logFormat: "plain" as const, ha: false };

describe("the controllers an install renders", () => {
  test("each from the defaults, then its own overrides", () => {
    const [east, north] = installControllers(
      ["east", "north"],
      "east.log-level=debug, north.ha=true,north.gateway=false,east.probe-port=30191,north.event-requeue-limit=5",
      defaults,
    );
    expect(east).toEqual({ clusterName: "east", controller: { ...defaults, logLevel: "debug" }, probePort: 30191 });
    expect(north).toEqual({
      clusterName: "north",
      controller: { ...defaults, ha: true, settings: { eventRequeueLimit: 5 } },
      probePort: null,
    });
    expect(installControllers(["east"], "", defaults)).toEqual([
      { clusterName: "east", controller: defaults, probePort: DEFAULT_PROBE_PORT },
    ]);
  });

  test("every mirroring setting a Deployment carries, checked by mc serve's flag schema", () => {
    const [east] = installControllers(
      ["east"],
      "east.endpoint-refresh-period=2m,east.enable-headless-services=true,east.status-interval=30s,east.workers=8",
      defaults,
    );
    expect(east!.controller.settings).toEqual({
      endpointRefreshPeriod: 120_000,
      enableHeadlessServices: true,
      statusInterval: 30_000,
      workers: 8,
    });
    expect(() => installControllers(["east"], "east.status-interval=1ms", defaults)).toThrow(
      "--controller-set: east.status-interval: must be at least",
    );
    // The probe Service is the install's own (probe-<link>), and a process outside the cluster's settings are not a Deployment's.
    for (const setting of ["probe-service", "probe-direct", "probe-address"])
      expect(() => installControllers(["east"], `east.${setting}=x`, defaults)).toThrow("no such setting");
  });

  test("a value with commas in it (a namespace map, a selector) stays one value", () => {
    const [east, north] = installControllers(
      ["east", "north"],
      "east.namespace-map=shop=shop-east,pay=pay-east, north.namespace-selector=team in (a,b),env=prod,north.ha=true,east.workers=8",
      defaults,
    );
    expect(east!.controller.settings).toEqual({ namespaceMap: { shop: "shop-east", pay: "pay-east" }, workers: 8 });
    expect(north!.controller.ha).toBe(true);
    expect(north!.controller.settings?.namespaceSelector).toBe("team in (a,b),env=prod");
    // A label key with a dot is a selector's, not a new entry; a misspelt Link before a real setting is still one.
    const [only] = installControllers(["east"], "east.namespace-selector=app.kubernetes.io/part-of=shop,tier=web", defaults);
    expect(only!.controller.settings?.namespaceSelector).toBe("app.kubernetes.io/part-of=shop,tier=web");
    expect(() => installControllers(["east"], "east.ha=true,esat.workers=2", defaults)).toThrow('"esat" is not in --controllers');
    expect(() => installControllers(["east"], "east.ha=true,east.replicas=3", defaults)).toThrow("east.replicas: no such setting");
  });

  test.each<[string, string[], string, string]>([
    [
      "an entry that is not LINK.SETTING=VALUE",
      ["east"],
      "east=debug",
      '--controller-set: each entry is LINK.SETTING=VALUE, e.g. --controller-set east.log-level=debug,north.ha=true; got "east=debug"',
    ],
    [
      "a Link not in --controllers",
      ["east"],
      "west.ha=true",
      '--controller-set: "west" is not in --controllers (east); add it there, or fix the name',
    ],
    [
      "an unknown setting",
      ["east"],
      "east.replicas=3",
      "--controller-set: east.replicas: no such setting; one of image, log-level, log-format, ha, gateway, probe-port, event-requeue-limit, endpoint-refresh-period, enable-headless-services, enable-namespace-creation, enable-endpoint-slices, mirror-endpoint-slices, mirror-name-template, namespace-selector, namespace-map, status-interval, fast-failure-detection, workers, kube-api-qps, kube-api-burst",
    ],
    [
      "a bad value",
      ["east"],
      "east.log-level=loud",
      '--controller-set: east.log-level: must be one of error, warn, info, debug, trace, got "loud"',
    ],
    ["a bad boolean", ["east"], "east.ha=yes", '--controller-set: east.ha: must be true or false, got "yes"'],
  ])("%s is refused", (_what, names, set, message) => {
    expect(() => installControllers(names, set, defaults)).toThrow(message);
  });
});

describe("mc install --controllers", () => {
  test("renders a controller per Link, named as Linkerd's chart names them", async () => {
    const r = await runMc(["install", "--ignore-cluster", "--controllers", "east,north", "--controller-set", "north.gateway=false"]);
    expect(r.code).toBe(0);
    const names = parseManifests(r.stdout)
      .filter((o) => o.metadata.labels?.component === "controller")
      .map((o) => `${o.kind} ${o.metadata.name}`);
    expect(names).toEqual([
      "ClusterRole linkerd-multicluster-controller-access-local-resources",
      "ClusterRoleBinding linkerd-multicluster-controller-access-local-resources-east",
      "Role controller-read-remote-creds-east",
      "RoleBinding controller-read-remote-creds-east",
      "ServiceAccount controller-east",
      "Deployment controller-east",
      "ClusterRoleBinding linkerd-multicluster-controller-access-local-resources-north",
      "Role controller-read-remote-creds-north",
      "RoleBinding controller-read-remote-creds-north",
      "ServiceAccount controller-north",
      "Deployment controller-north",
    ]);
    expect(
      parseManifests(r.stdout)
        .filter((o) => o.kind === "Service" && o.metadata.name.startsWith("probe-"))
        .map((o) => o.metadata.name),
    ).toEqual(["probe-east"]);
  });

  test("a bad name in --controllers is one line naming the flag", async () => {
    const r = await runMc(["install", "--ignore-cluster", "--controllers", "east,East_1"]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr:
        'error: --controllers: must be comma-separated Link names (DNS-1123 labels, at most 49 characters), e.g. east,north; "East_1" is not one, got "east,East_1"\n',
    });
  });
});
