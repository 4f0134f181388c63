// Docs that resolve inside the repository: paths, anchors, the decision log's index, and no citation a maintainer cannot follow.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { anchors, exists, pathOf, references, repoFiles, ROOT } from "./markdown.ts";

// Docs that resolve inside the repository: every path README.md and docs/ name exists, every
// anchor cited (there, or in code as `docs/<page>.md#<anchor>`) exists on its page, the decision
// log's index matches its entries, and no text cites what a maintainer does not have — a section
// of a design document outside the tree, or a tracker issue by number (name the behaviour
// instead; Linkerd's are `linkerd/linkerd2#N`).

const files = repoFiles();
const topLevel = new Set(files.filter((f) => f.includes("/")).map((f) => f.split("/")[0]!));
const pages = ["README.md", ...files.filter((f) => f.startsWith("docs/") && f.endsWith(".md"))].sort();
const read = (rel: string): string => readFileSync(join(ROOT, rel), "utf8");

/** Every `page:line` naming a path that does not exist, or an anchor its page lacks. */
function brokenReferences(page: string): string[] {
  const broken: string[] = [];
  for (const ref of references(read(page))) {
    const check = pathOf(ref, page, topLevel);
    if (!check) continue;
    if (!exists(check, files)) {
      broken.push(`${page}:${ref.line}: \`${ref.text}\` names ${check.path}, which does not exist`);
      continue;
    }
    const anchor = check.anchor;
    if (anchor === undefined || anchor.includes("<") || !check.path.endsWith(".md") || check.match !== "exact") continue;
    if (!anchors(read(check.path)).has(anchor)) broken.push(`${page}:${ref.line}: \`${ref.text}\`: ${check.path} has no anchor #${anchor}`);
  }
  return broken;
}

describe("paths named in README.md and docs/", () => {
  test("the pages are found", () => {
    expect(pages).toContain("README.md");
    expect(pages).toContain("docs/decisions.md");
    expect(pages).toContain("docs/linkerd-compatibility.md");
  });

  for (const page of pages) {
    test(`every path and anchor ${page} names exists`, () => {
      expect(brokenReferences(page)).toEqual([]);
    });
  }

  test("a path that does not exist, or an anchor a page lacks, is caught", () => {
    const page = "docs/example.md";
    const missing = [
      { line: 1, text: "src/mirror/no-such-file.ts", kind: "code" as const },
      { line: 2, text: "no-such-module.ts", kind: "code" as const },
      { line: 3, text: "../test/no-such-dir/", kind: "link" as const },
      { line: 4, text: "bench/results/*.csv", kind: "code" as const },
    ];
    for (const ref of missing) expect(exists(pathOf(ref, page, topLevel)!, files)).toBe(false);
    const present = [
      { line: 1, text: "src/model/labels.ts", kind: "code" as const },
      { line: 2, text: "labels.ts", kind: "code" as const },
      { line: 3, text: "checks.md#l5d-multicluster-link-crd-exists", kind: "link" as const },
      { line: 4, text: "bench/results/<scenario>.md", kind: "code" as const },
      { line: 5, text: "src/sandbox/", kind: "code" as const },
    ];
    for (const ref of present) expect(exists(pathOf(ref, page, topLevel)!, files)).toBe(true);
    // Not paths: label keys, API paths, URLs, names in prose.
    for (const text of [
      "mirror.linkerd.io/exported",
      "links/status",
      "https://github.com/linkerd/linkerd2",
      "ns/name",
      "linkerd-gateway",
    ]) {
      expect(pathOf({ line: 1, text, kind: text.startsWith("http") ? "link" : "code" }, page, topLevel)).toBeUndefined();
    }
    expect(anchors(read("docs/checks.md")).has("no-such-anchor")).toBe(false);
  });
});

// --- the decision log -----------------------------------------------------------------------

interface Row {
  id: string;
  title: string;
  area: string;
  status: string;
}

/** Markdown links reduced to their text, so `superseded by [D10](#d10)` reads `superseded by D10`. */
const plain = (text: string): string => text.replace(/\[([^\]]+)\]\([^)]*\)/g, "$1").trim();

function indexRows(log: string): Row[] {
  const rows: Row[] = [];
  for (const m of log.matchAll(/^\| \[(D\d+)\]\(#d\d+\) \| (.+?) \| (.+?) \| (.+?) \|$/gm)) {
    rows.push({ id: m[1]!, title: plain(m[2]!), area: m[3]!.trim(), status: plain(m[4]!) });
  }
  return rows;
}

function entries(log: string): Row[] {
  const out: Row[] = [];
  let area = "";
  const lines = log.split("\n");
  lines.forEach((line, i) => {
    const areaHeading = /^## (.+)$/.exec(line);
    if (areaHeading) area = areaHeading[1]!.trim();
    const entry = /^### (D\d+)\. (.+)$/.exec(line);
    if (!entry) return;
    const anchorLine = lines[i - 1] ?? "";
    const statusLine = /^\d{4}-\d{2}-\d{2} · (.+)$/.exec(lines[i + 1] ?? "");
    out.push({
      id: entry[1]!,
      title: plain(entry[2]!),
      area,
      status:
        statusLine && anchorLine === `<a id="${entry[1]!.toLowerCase()}"></a>`
          ? plain(statusLine[1]!)
          : "(missing anchor or date · status line)",
    });
  });
  return out;
}

describe("docs/decisions.md is a decision log", () => {
  const log = read("docs/decisions.md");

  test("every entry has its anchor, a date and a status, and one index row that says the same", () => {
    const byId = new Map(indexRows(log).map((r) => [r.id, r]));
    const listed = entries(log);
    expect(listed.length).toBeGreaterThan(0);
    for (const entry of listed) expect({ ...entry, row: byId.get(entry.id) }).toEqual({ ...entry, row: entry });
    expect(indexRows(log).map((r) => r.id)).toEqual(listed.map((e) => e.id).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))));
  });

  test("ids are unique and a status is accepted or superseded by an existing entry", () => {
    const ids = entries(log).map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { id, status } of entries(log)) {
      const superseded = /^superseded by (D\d+)$/.exec(status);
      expect({
        id,
        status,
        ok: status === "accepted" || (superseded !== null && ids.includes(superseded[1]!) && superseded[1] !== id),
      }).toEqual({
        id,
        status,
        ok: true,
      });
    }
  });
});

// --- citations a maintainer cannot follow -----------------------------------------------------

/** Where citations are looked for. */
const CITING = ["README.md", "Dockerfile", "docs", "src", "cmd", "test", "bench", "k8s", ".ci"];
const TEXT_FILE = /\.(ts|md|sh|ya?ml)$|^\.ci\/|^Dockerfile$/;

const UNRESOLVABLE: { what: string; pattern: RegExp }[] = [
  { what: "a section of a design document outside the repository: cite docs/linkerd-compatibility.md#<anchor>", pattern: /\bSPEC\s*§/ },
  { what: "a tracker issue by number: name the behaviour it stands for", pattern: /\bissues?\s+#?\d+/i },
  { what: "a bare #number: write owner/repo#N (linkerd/linkerd2#N) or name the behaviour", pattern: /(?<![\w/.-])#\d{2,}\b/ },
];

/** A page of docs/ and an anchor on it, as code and docs cite them: `docs/decisions.md#d46`. */
const DOC_ANCHOR = /\bdocs\/([\w-]+\.md)#([\w-]+)/g;

function citations(rel: string): string[] {
  const found: string[] = [];
  read(rel)
    .split("\n")
    .forEach((line, i) => {
      const at = `${rel}:${i + 1}`;
      for (const { what, pattern } of UNRESOLVABLE) if (pattern.test(line)) found.push(`${at}: ${what}: ${line.trim().slice(0, 120)}`);
      for (const [cite, page, anchor] of line.matchAll(DOC_ANCHOR)) {
        const path = `docs/${page}`;
        if (!files.includes(path)) found.push(`${at}: ${cite}: no such page`);
        else if (!anchors(read(path)).has(anchor!)) found.push(`${at}: ${cite}: ${path} has no anchor #${anchor}`);
      }
    });
  return found;
}

describe("no citation points outside the repository", () => {
  const cited = files.filter((f) => CITING.some((root) => f === root || f.startsWith(`${root}/`)) && TEXT_FILE.test(f));

  test(`in ${CITING.join(", ")}, and every docs/ page and anchor cited there exists`, () => {
    expect(cited.length).toBeGreaterThan(10);
    expect(cited.flatMap(citations)).toEqual([]);
  });

  test("each kind of unresolvable citation is caught, and so is a cited anchor that does not exist", () => {
    // Assembled, so that this file does not cite what it forbids.
    const samples = [
      ["(SPEC", "§5.5)"],
      ["see issue", "16 item 4"],
      ["Issue", "13's benchmarks"],
      ["as in", "#1" + "3783"],
      ["(issues", "10 and 11)"],
    ].map((p) => p.join(" "));
    for (const sample of samples) expect(UNRESOLVABLE.some(({ pattern }) => pattern.test(sample))).toBe(true);
    for (const fine of ["linkerd/linkerd2#13783", "oven-sh/bun#14097", "r broken #1", "docs/linkerd-compatibility.md#mirror-objects"]) {
      expect(UNRESOLVABLE.some(({ pattern }) => pattern.test(fine))).toBe(false);
    }
    const cited = [...`see docs/decisions.md#d1 and docs/linkerd-compatibility.md${"#"}no-such-anchor`.matchAll(DOC_ANCHOR)];
    expect(cited.map(([, page, anchor]) => anchors(read(`docs/${page}`)).has(anchor!))).toEqual([true, false]);
  });
});
