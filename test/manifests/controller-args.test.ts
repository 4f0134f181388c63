// The args a controller Deployment runs `mc serve` with come from the table `mc serve` parses
// (src/model/mirror-settings.ts): every Deployment mc renders — a Link's, the shared controller,
// the install's controllers, the local mirror — parses back, through mc serve's own flags, to the settings it was given.
import { describe, expect, test } from "bun:test";
import { parseArgs } from "citty";
import { SERVE_FLAGS } from "../../cmd/serve.ts";
import { settingsOf } from "../../src/cli/serve-flags.ts";
import { linkOptions } from "../../src/cli/link-flags.ts";
import { renderInstallControllers } from "../../src/manifests/install-controllers.ts";
import { renderLocalMirror } from "../../src/manifests/local-mirror.ts";
import type { Manifest } from "../../src/manifests/meta.ts";
import { renderServiceMirror, type ControllerOptions } from "../../src/manifests/service-mirror.ts";
import { renderSharedController } from "../../src/manifests/shared-controller.ts";
import {
  DEFAULT_MIRROR_SETTINGS,
  MIRROR_SETTINGS,
  mirrorSettings,
  type DeployedSettings,
  type MirrorSettings,
} from "../../src/model/mirror-settings.ts";

const NS = "linkerd-multicluster";
const base: ControllerOptions = { image: "mc:test", logLevel: "info", logFormat: "plain", ha: false };

/** Every setting a Deployment carries, each away from its default (so a row that renders wrong, or not at all, shows). */
function everySettingChanged(): DeployedSettings {
  const out: Record<string, unknown> = {};
  for (const [field, s] of Object.entries(MIRROR_SETTINGS)) {
    if (s.carried.when === "never") continue;
    const d = DEFAULT_MIRROR_SETTINGS[field as keyof MirrorSettings];
    // A value other than its default that its row accepts: a template needs {service}, a map is pairs of namespaces.
    const other =
      field === "mirrorNameTemplate"
        ? "{cluster}-{service}"
        : field === "namespaceMap"
          ? { shop: "shop-east", web: "web-east" }
          : "probe-other";
    out[field] = typeof d === "boolean" ? !d : typeof d === "number" ? d + 1000 : other;
  }
  return out as DeployedSettings;
}

/** The args of the one container of the Deployment among `objects`. */
function containerArgs(objects: Manifest[]): string[] {
  const deployment = objects.find((o) => o.kind === "Deployment") as unknown as {
    spec: { template: { spec: { containers: Array<{ args: string[] }> } } };
  };
  return deployment.spec.template.spec.containers[0]!.args;
}

/** What `mc serve ARGS` parses them to, after checking each flag is one of its own. */
function serveParses(args: string[]): { flags: Record<string, unknown>; settings: MirrorSettings } {
  expect(args[0]).toBe("serve");
  const rest = args.slice(1);
  const unknown = rest
    .filter((a) => a.startsWith("--"))
    .map((a) => a.slice(2).split("=")[0]!)
    .filter((name) => !(name in SERVE_FLAGS.rows));
  expect(unknown).toEqual([]);
  const parsed = parseArgs(rest, SERVE_FLAGS.args as never) as Record<string, unknown>;
  const flags = SERVE_FLAGS.parse(parsed) as unknown as Record<string, unknown>;
  return { flags, settings: settingsOf(flags) };
}

describe("controller Deployments carry mc serve's settings from its own table", () => {
  test("each default is the row's, as mc serve parses it given no flag", () => {
    expect(serveParses(["serve", "east"]).settings).toEqual(mirrorSettings());
  });

  test("a Link's controller: every carried setting, changed, parses back to itself", () => {
    const settings = everySettingChanged();
    const args = containerArgs(
      renderServiceMirror({ clusterName: "east", namespace: NS, probePort: null, controller: { ...base, settings }, version: "0" }),
    );
    expect(serveParses(args).settings).toEqual(mirrorSettings(settings));
    expect(args.at(-1)).toBe("east");
  });

  test("the shared controller (mc serve --all) carries them the same way, --fast-failure-detection included", () => {
    const settings = everySettingChanged();
    const args = containerArgs(renderSharedController({ controller: { ...base, settings }, namespace: NS, version: "0" }));
    const { flags, settings: parsed } = serveParses(args);
    expect(parsed).toEqual(mirrorSettings(settings));
    expect(flags.all).toBe(true);
    expect(args).toContain("--fast-failure-detection");
  });

  test("a controller the install renders (mc install --controllers) too", () => {
    const settings = everySettingChanged();
    const args = containerArgs(
      renderInstallControllers({
        controllers: [{ clusterName: "east", controller: { ...base, settings }, probePort: null }],
        namespace: NS,
        version: "0",
      }),
    );
    expect(serveParses(args).settings).toEqual(mirrorSettings(settings));
    expect(args.at(-1)).toBe("east");
  });

  test("the local mirror (mc serve --local) too", () => {
    const settings = everySettingChanged();
    const args = containerArgs(renderLocalMirror({ controller: { ...base, settings }, namespace: NS, version: "0" }));
    expect(serveParses(args).settings).toEqual(mirrorSettings(settings));
  });

  test("mc link's flags reach the Link's controller under mc serve's names (--service-mirror-retry-limit is --event-requeue-limit)", () => {
    const { options } = linkOptions(
      {
        "cluster-name": "east",
        "service-mirror-retry-limit": "7",
        "enable-endpoint-slices": true,
        "fast-failure-detection": true,
        "kube-api-qps": "50",
        "kube-api-burst": "200",
      },
      { verbose: false },
    );
    const controller = options.controller;
    if (controller === null || controller === "shared") throw new Error("expected a dedicated controller");
    const args = containerArgs(renderServiceMirror({ clusterName: "east", namespace: NS, probePort: 4191, controller, version: "0" }));
    expect(serveParses(args).settings).toEqual(
      mirrorSettings({
        eventRequeueLimit: 7,
        enableEndpointSlices: true,
        fastFailureDetection: true,
        kubeApiQps: 50,
        kubeApiBurst: 200,
        probeService: "probe-gateway-east",
      }),
    );
    expect(args).toContain("--kube-api-qps=50");
    expect(args).toContain("--kube-api-burst=200");
  });

  test("mc link --mirror-endpoint-slices: the controller runs with it and its ClusterRole grants EndpointSlices; without it, neither (Linkerd's role)", () => {
    const render = (args: Record<string, unknown>) => {
      const controller = linkOptions({ "cluster-name": "east", ...args }, { verbose: false }).options.controller;
      if (controller === null || controller === "shared") throw new Error("expected a dedicated controller");
      return renderServiceMirror({ clusterName: "east", namespace: NS, probePort: 4191, controller, version: "0" });
    };
    // The slice mirrors' rule (the MCS import's, LOCAL_MCS_RULES, is always there and reads no slice by name).
    const sliceRules = (objects: Manifest[]) =>
      (
        (
          objects.find((o) => o.kind === "ClusterRole") as unknown as {
            rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
          }
        ).rules ?? []
      ).filter((r) => r.resources.includes("endpointslices") && r.verbs.includes("get"));
    const on = render({ "mirror-endpoint-slices": true });
    expect(containerArgs(on)).toContain("--mirror-endpoint-slices");
    expect(serveParses(containerArgs(on)).settings.mirrorEndpointSlices).toBe(true);
    expect(sliceRules(on)).toEqual([
      { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "get", "watch", "create", "delete", "update"] },
    ]);
    const off = render({});
    expect(containerArgs(off).filter((a) => a.includes("mirror-endpoint-slices"))).toEqual([]);
    expect(sliceRules(off)).toEqual([]);
    const installed = renderInstallControllers({
      controllers: [{ clusterName: "east", controller: { ...base, settings: { mirrorEndpointSlices: true } }, probePort: null }],
      namespace: NS,
      version: "0",
    });
    expect(sliceRules(installed)).toHaveLength(1);
    expect(
      sliceRules(
        renderSharedController({ controller: { ...base, settings: { mirrorEndpointSlices: true } }, namespace: NS, version: "0" }),
      ),
    ).toHaveLength(1);
  });

  test("defaults are not written, save the always-carried --event-requeue-limit (Linkerd's Deployment has it)", () => {
    const args = containerArgs(renderSharedController({ controller: base, namespace: NS, version: "0" }));
    expect(args).toEqual(["serve", `--namespace=${NS}`, "--log-level=info", "--log-format=plain", "--event-requeue-limit=3", "--all"]);
  });
});
