// Every TypeScript file opens with a header of one to three comment lines: what it is, and at most two lines of why.
import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..", "..");
const FOLDERS = ["cmd", "src", "test", "bench", "k8s"];

/** The comment lines a file opens with (after a `#!` line). */
function headerOf(text: string): string[] {
  const lines = text.split("\n");
  const header: string[] = [];
  for (const line of lines.slice(lines[0]?.startsWith("#!") ? 1 : 0)) {
    if (!line.startsWith("//")) break;
    header.push(line);
  }
  return header;
}

/** What is wrong with a file's header, or undefined. */
function headerProblem(text: string): string | undefined {
  const n = headerOf(text).length;
  if (n === 0) return "no header (one line of what it is)";
  if (n > 3) return `a header of ${n} lines (one of what, at most two of why; details go below the imports)`;
  return undefined;
}

describe("file headers", () => {
  test("every .ts file of cmd/, src/, test/, bench/ and k8s/ has one of 1 to 3 lines", () => {
    const problems: string[] = [];
    for (const folder of FOLDERS) {
      for (const file of new Glob(`${folder}/**/*.ts`).scanSync({ cwd: ROOT })) {
        const problem = headerProblem(readFileSync(resolve(ROOT, file), "utf8"));
        if (problem) problems.push(`${file}: ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("a file without a header, or with a long one, is caught; a shebang is not part of it", () => {
    expect(headerProblem('import { x } from "y";\n')).toBe("no header (one line of what it is)");
    expect(headerProblem("// a\n// b\n// c\n// d\nimport x;\n")).toContain("4 lines");
    expect(headerProblem("#!/usr/bin/env bun\n// what\nimport x;\n")).toBeUndefined();
    expect(headerProblem("// what\n// why\n\n// more, below\n")).toBeUndefined();
  });
});
