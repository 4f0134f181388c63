// `mc install --cluster-name`: the local mirror runs `mc serve --local --cluster-name`, whose flags
// parse, and its ClusterRole grants what it writes for the MCS API (the cluster's own imports, its
// ServiceExports' status); without the flag, the local mirror is rendered as before.
import { describe, expect, test } from "bun:test";
import { parseArgs } from "citty";
import { SERVE_FLAGS } from "../../cmd/serve.ts";
import { renderLocalMirror } from "../../src/manifests/local-mirror.ts";
import type { Manifest } from "../../src/manifests/meta.ts";

const base = {
  controller: { image: "mc:test", logLevel: "info", logFormat: "plain" as const, ha: false },
  namespace: "linkerd-multicluster",
  version: "0",
};
const args = (objects: Manifest[]) =>
  (objects.find((o) => o.kind === "Deployment") as unknown as { spec: { template: { spec: { containers: Array<{ args: string[] }> } } } })
    .spec.template.spec.containers[0]!.args;

describe("the local mirror with a ClusterSet name", () => {
  test("runs mc serve --local --cluster-name NAME, which mc serve parses", () => {
    const a = args(renderLocalMirror({ ...base, clusterName: "east" }));
    expect(a).toContain("--cluster-name=east");
    const flags = SERVE_FLAGS.parse(parseArgs(a.slice(1), SERVE_FLAGS.args as never) as never) as unknown as Record<string, unknown>;
    expect([flags.local, flags.clusterName]).toEqual([true, "east"]);
    expect(args(renderLocalMirror(base)).some((x) => x.startsWith("--cluster-name"))).toBe(false);
  });

  test("its ClusterRole grants the MCS writes: ServiceImports and their status, EndpointSlices, ServiceExports' status", () => {
    const role = renderLocalMirror(base).find((o) => o.kind === "ClusterRole") as unknown as {
      rules: Array<{ resources: string[]; verbs: string[] }>;
    };
    const grants = role.rules.flatMap((r) => r.resources.flatMap((res) => r.verbs.map((v) => `${v} ${res}`)));
    for (const g of [
      "create serviceimports",
      "patch serviceimports/status",
      "create endpointslices",
      "watch serviceexports",
      "patch serviceexports/status",
    ])
      expect(grants).toContain(g);
  });
});
