// `mc install --controllers east` against Linkerd 2.18's chart rendering of `controllers: [{link: {ref: {name: east}}}]`
// (test/golden/linkerd/chart-controllers-east.yaml): the same objects by kind and name, with the chart's labels, selectors and references,
// and RBAC that grants what the chart's does — except Leases, which mc's Role limits to the Link's own.
import { expect, test } from "bun:test";
import { parseAllDocuments } from "yaml";
import { missingPermissions, type PolicyRule } from "../../src/checker/verdicts.ts";
import { renderInstallControllers } from "../../src/manifests/install-controllers.ts";
import type { Manifest } from "../../src/manifests/meta.ts";

const CHART = parseAllDocuments(await Bun.file(new URL("../golden/linkerd/chart-controllers-east.yaml", import.meta.url)).text()).map(
  (d) => d.toJS() as Manifest,
);
const controller = { image: "ghcr.io/mc-project/mc:0.1.0-test", logLevel: "info", logFormat: "plain" as const, ha: false };
const MC = renderInstallControllers({
  controllers: [{ clusterName: "east", controller, probePort: 4191 }],
  namespace: "linkerd-multicluster",
  version: "0.1.0-test",
});
const key = (o: Manifest) => `${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}`;
const withoutRules = ({ rules: _rules, ...o }: Manifest) => o;

test("the same objects, by kind and name, as the chart renders", () => {
  expect(MC.map(key).toSorted()).toEqual(CHART.map(key).toSorted());
});

test.each(CHART.map((o) => [key(o), o] as const))("%s has the chart's labels, selectors and references", (_name, chart) => {
  const mine = MC.find((o) => key(o) === key(chart))!;
  expect(mine).toMatchObject(withoutRules(chart));
});

test.each(CHART.filter((o) => o.rules).map((o) => [key(o), o] as const))(
  "%s grants what the chart's does (Leases: only the Link's own)",
  (_name, chart) => {
    const mine = MC.find((o) => key(o) === key(chart))!;
    const wanted = (chart.rules as PolicyRule[]).map((r) =>
      r.resources?.includes("leases") ? { ...r, verbs: ["get", "update", "patch"], resourceNames: ["service-mirror-write-east"] } : r,
    );
    expect(missingPermissions(wanted, mine.rules as PolicyRule[])).toEqual([]);
  },
);

test("the controller serves the Link its name says, probing through probe-<link>", () => {
  const deployment = MC.find((o) => o.kind === "Deployment")!;
  const args = (deployment as unknown as { spec: { template: { spec: { containers: Array<{ args: string[] }> } } } }).spec.template.spec
    .containers[0]!.args;
  expect(args.at(-1)).toBe("east");
  expect(args).toContain("--probe-service=probe-east");
});
