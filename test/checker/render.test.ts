// The table and JSON renderers, against golden files (UPDATE_GOLDEN=1 rewrites them).
import { describe, expect, test } from "bun:test";
import { renderHeader, renderJson, renderResult, renderSummary, renderTable, toJsonReport } from "../../src/checker/render.ts";
import type { CheckReport, CheckResult } from "../../src/checker/types.ts";
import { expectGolden } from "../manifests/golden.ts";

const result = (r: Partial<CheckResult> & Pick<CheckResult, "id" | "title" | "status">): CheckResult => ({
  severity: "error",
  details: [],
  attempts: 1,
  ...r,
});

const mixed: CheckReport = {
  success: false,
  results: [
    result({ id: "link-crd", title: "Link CRD exists", severity: "fatal", status: "success" }),
    result({ id: "links-valid", title: "Link resources are valid", severity: "fatal", status: "success", details: ["east", "north"] }),
    result({
      id: "remote-access",
      title: "remote cluster access credentials are valid",
      status: "error",
      message: "Problematic clusters:",
      details: ["north: Secret linkerd-multicluster/cluster-credentials-north on west: not found"],
      hint: "l5d-smc-target-clusters-access",
    }),
    result({
      id: "trust-anchors",
      title: "clusters share trust anchors",
      status: "skipped",
      skippedBecause: "remote cluster access credentials are valid",
      attempts: 0,
    }),
    result({
      id: "mirror-orphans",
      title: "all mirror services are part of a Link",
      severity: "warning",
      status: "warning",
      message: "mirror services without a Link:",
      details: ['cluster "south" has no Link: default/web-south'],
      hint: "l5d-multicluster-orphaned-services",
    }),
  ],
};

describe("the table", () => {
  test("has Linkerd's category header, √ × ‼ lines, indented details and a hint into docs/checks.md", () => {
    expectGolden("check-mixed.txt", renderTable(mixed));
  });

  test("says a skipped check was skipped and which check had to pass first", () => {
    expect(renderResult(mixed.results[3]!)).toBe(
      '- clusters share trust anchors (skipped: "remote cluster access credentials are valid" did not pass)\n',
    );
  });

  test("prints piece by piece exactly what it prints at once", () => {
    expect(renderHeader() + mixed.results.map(renderResult).join("") + renderSummary(mixed)).toBe(renderTable(mixed));
  });

  test("ends with √ when all pass, ‼ with only warnings, × with an error", () => {
    const ok = result({ id: "a", title: "a", status: "success" });
    const warn = result({ id: "b", title: "b", status: "warning", severity: "warning" });
    expect(renderSummary({ success: true, results: [ok] })).toBe("\nStatus check results are √\n");
    expect(renderSummary({ success: true, results: [ok, warn] })).toBe("\nStatus check results are ‼\n");
    expect(renderSummary(mixed)).toBe("\nStatus check results are ×\n");
  });
});

describe("-o json", () => {
  test("is one object in linkerd check's shape with every check's result", () => {
    const json = renderJson(mixed);
    expectGolden("check-mixed.json", json);
    const parsed = JSON.parse(json);
    expect(parsed).toEqual(toJsonReport(mixed));
    expect(parsed.success).toBe(false);
    expect(parsed.categories[0].categoryName).toBe("linkerd-multicluster");
    expect(parsed.categories[0].checks.map((c: { result: string }) => c.result)).toEqual([
      "success",
      "success",
      "error",
      "skipped",
      "warning",
    ]);
    expect(parsed.categories[0].checks[2].hint).toBe("docs/checks.md#l5d-smc-target-clusters-access");
  });
});
