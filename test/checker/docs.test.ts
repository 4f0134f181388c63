// Every check's hint lands on a section of docs/checks.md, and the page documents no check that does not exist.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { multiclusterChecks } from "../../src/checker/index.ts";

const page = await Bun.file(join(import.meta.dir, "..", "..", "docs", "checks.md")).text();
const anchors = [...page.matchAll(/<a id="([^"]+)"><\/a>\n## . (.+)\n/g)].map((m) => ({ anchor: m[1]!, title: m[2]! }));

describe("docs/checks.md", () => {
  test("has one section per check, in run order, titled as the check prints", () => {
    expect(anchors).toEqual(multiclusterChecks.map((c) => ({ anchor: c.hint, title: c.title })));
  });

  test("titles checks that fail with √ and warnings with ‼, as Linkerd's troubleshooting page does", () => {
    for (const c of multiclusterChecks) expect(page).toContain(`## ${c.severity === "warning" ? "‼" : "√"} ${c.title}\n`);
  });
});
