// docs/architecture.md's folder table holds to the code: each file of cmd/ and src/ imports only its
// own folder and what its row lists; every listed import is used; every folder of src/ has a row.
import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g;

interface Row {
  folder: string;
  /** Areas it may import (`src/model/`, `src/errors.ts`, `k8s/`, `package.json`); undefined: anything. */
  allowed: string[] | undefined;
}

/** The table's rows, in order: folder → the areas its "may import" cell names. */
function parseTable(markdown: string): Row[] {
  const rows: Row[] = [];
  for (const line of markdown.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 5 || !cells[1]!.startsWith("`")) continue;
    const folders = [...cells[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    const cell = cells[3]!;
    let allowed: string[] | undefined = [...cell.matchAll(/`([^`]+)`/g)].map((m) => area(m[1]!));
    if (/\banything\b/.test(cell)) allowed = undefined;
    else if (/everything above/.test(cell)) allowed = [...new Set([...allowed, ...rows.map((r) => r.folder)])];
    for (const folder of folders) rows.push({ folder, allowed });
  }
  return rows;
}

/** A name as the table writes it (`model/`, `errors.ts`, `src/`, `k8s/`) as a path from the root. */
function area(name: string): string {
  if (name === "src/" || name === "package.json" || name.startsWith("k8s/")) return name;
  return `src/${name}`;
}

/** The area (a row's folder) a file belongs to: `src/x/` for a file under src/x/, `src/*.ts` for src's own files. */
function areaOf(rows: Row[], rel: string): string | undefined {
  if (/^src\/[^/]+\.ts$/.test(rel)) return "src/*.ts";
  return rows
    .map((r) => r.folder)
    .filter((f) => f.endsWith("/") && rel.startsWith(f))
    .sort((a, b) => b.length - a.length)[0];
}

/** Whether `target` (a path from the root) is inside the area `name`. */
function covers(name: string, target: string): boolean {
  if (name === "src/*.ts") return /^src\/[^/]+\.ts$/.test(target);
  return name.endsWith("/") ? target.startsWith(name) : target === name;
}

async function imports(): Promise<{ file: string; target: string; specifier: string }[]> {
  const out: { file: string; target: string; specifier: string }[] = [];
  for (const dir of ["src", "cmd"]) {
    for (const rel of new Glob("**/*.ts").scanSync(join(ROOT, dir))) {
      const file = join(ROOT, dir, rel);
      for (const m of (await Bun.file(file).text()).matchAll(SPECIFIER)) {
        const specifier = m[1]!;
        const target = specifier.startsWith(".") ? relative(ROOT, resolve(dirname(file), specifier)) : "";
        out.push({ file: relative(ROOT, file), target, specifier });
      }
    }
  }
  return out;
}

describe("docs/architecture.md's folder table", async () => {
  const rows = parseTable(await Bun.file(join(ROOT, "docs/architecture.md")).text());
  const all = await imports();

  test("is read: a row for each folder the code has", () => {
    expect(rows.map((r) => r.folder)).toContain("src/mirror/");
    const folders = new Set<string>();
    for (const rel of new Glob("src/*/**/*.ts").scanSync(ROOT)) folders.add(`src/${rel.split("/")[1]}/`);
    expect([...folders].filter((f) => !rows.some((r) => r.folder === f)).sort()).toEqual([]);
  });

  test("each import of cmd/ and src/ goes to its own folder or to one its row lists", () => {
    const bad: string[] = [];
    for (const { file, target, specifier } of all) {
      if (!target) continue;
      const from = areaOf(rows, file);
      const row = rows.find((r) => r.folder === from);
      if (!row) {
        bad.push(`${file}: no row`);
        continue;
      }
      if (row.allowed === undefined || areaOf(rows, target) === from || (from === "src/*.ts" && target === file)) continue;
      if (!row.allowed.some((a) => covers(a, target))) bad.push(`${file} → ${specifier} (${from} may not import ${target})`);
    }
    expect(bad).toEqual([]);
  });

  test("each import a row lists is made by some file of its folder", () => {
    const unused: string[] = [];
    for (const row of rows) {
      if (!row.allowed || row.folder.startsWith("test") || row.folder.startsWith("bench")) continue;
      if (row.folder === "src/demo/") continue; // "everything above": a licence, not a list
      for (const a of row.allowed) {
        const used = all.some(({ file, target }) => target && areaOf(rows, file) === row.folder && covers(a, target));
        if (!used) unused.push(`${row.folder} lists ${a}, which none of its files imports`);
      }
    }
    expect(unused).toEqual([]);
  });

  test("src/mirror/ never imports src/serve/ (the process shell around it)", () => {
    const bad = all.filter(({ file, target }) => file.startsWith("src/mirror/") && target.startsWith("src/serve/"));
    expect(bad).toEqual([]);
  });

  test("src/kube/ is the only importer of @kubernetes/client-node", () => {
    const bad = all.filter(({ file, specifier }) => specifier.startsWith("@kubernetes/client-node") && !file.startsWith("src/kube/"));
    expect(bad.map((b) => b.file)).toEqual([]);
  });
});
