// What the compiled binary and the image carry of k8s/: every k8s/ file the code reads at run time is an import (with { type: "text" } or
// JSON), which `bun build --compile` embeds; nothing builds a path to k8s/ or to the code's own directory, which the binary does not have
// beside it. image.test.ts runs the binary from a directory without k8s/ to prove the embedding holds.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const files = ["src", "cmd"].flatMap((dir) => [...new Bun.Glob("**/*.ts").scanSync(join(ROOT, dir))].map((f) => join(dir, f))).sort();
const transpiler = new Bun.Transpiler({ loader: "ts" });
/** The source of a file, without its `#!` line (the transpiler refuses it). */
const source = (file: string) => readFileSync(join(ROOT, file), "utf8").replace(/^#!.*\n/, "\n");

interface K8sImport {
  file: string;
  path: string;
  /** The import's `with { type }`, if any. */
  type: string | undefined;
}

const imports: K8sImport[] = files.flatMap((file) => {
  const code = source(file);
  return transpiler
    .scanImports(code)
    .filter((i) => /(^|\/)k8s\//.test(i.path))
    .map((i) => {
      const statement = new RegExp(
        `from\\s+["']${i.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}["']\\s*(?:with\\s*\\{\\s*type:\\s*["'](\\w+)["']\\s*\\})?`,
      ).exec(code);
      return { file, path: i.path, type: statement?.[1] };
    });
});

describe("k8s/ files reach the binary only as imports", () => {
  test("src/ and cmd/ import k8s/ files (the CRD, the sandbox's schemas and Linkerd CRDs)", () => {
    const targets = new Set(imports.map((i) => relative(ROOT, resolve(ROOT, i.file, "..", i.path))));
    expect(targets.has("k8s/link-crd.yaml")).toBe(true);
    expect(targets.has("k8s/sandbox/linkerd-policy-crds.yaml")).toBe(true);
    expect([...targets].filter((t) => t.startsWith("k8s/proto/")).length).toBeGreaterThan(10);
  });

  test("every k8s/ import names a file that exists and is loaded as text or JSON (embedded, not executed)", () => {
    for (const i of imports) {
      const target = resolve(ROOT, i.file, "..", i.path);
      // A .json import is JSON by default; anything else must say text (a .ts under k8s/ would run).
      const embedded = i.type === "text" || i.type === "json" || (i.type === undefined && target.endsWith(".json"));
      expect({ ...i, exists: existsSync(target), embedded }).toEqual({ ...i, exists: true, embedded: true });
    }
  });

  test("no code outside imports names a k8s/ path or the code's own location", () => {
    for (const file of files) {
      // Transpiled: comments and types are gone; what is left runs.
      const code = transpiler.transformSync(source(file));
      const runtime = code
        .split("\n")
        .filter((line) => !/^\s*import\b/.test(line))
        .join("\n");
      const found = [
        /["'`][^"'`\n]*\bk8s\/[^"'`\n]*["'`]/,
        /import\.meta\.(dir|dirname|path|url|filename)\b/,
        /\b__dirname\b|\b__filename\b/,
      ]
        .map((re) => re.exec(runtime)?.[0])
        .filter((m) => m !== undefined);
      expect({ file, found }).toEqual({ file, found: [] });
    }
  });
});
