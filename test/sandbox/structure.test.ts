// The sandbox's layout holds (docs/decisions.md#d74): it imports nothing of mc — only its own files, packages, node: built-ins, the data
// under k8s/ and src/lib/ (libraries of Kubernetes conventions that import nothing themselves) — and its files import each other without a
// cycle (type-only imports included), so printers and controllers are listed, not registered by side effect.
import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const SANDBOX = join(ROOT, "src/sandbox");
const LIB = join(ROOT, "src/lib");
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g;

/** Every .ts file under a folder (src/sandbox by default) with the relative imports it makes, as absolute paths. */
async function importGraph(root = SANDBOX): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for (const rel of new Glob("**/*.ts").scanSync(root)) {
    if (rel.endsWith(".d.ts")) continue;
    const file = join(root, rel);
    const text = await Bun.file(file).text();
    const deps = [...text.matchAll(SPECIFIER)].map((m) => m[1]!).filter((s) => s.startsWith("."));
    graph.set(
      file,
      deps.map((s) => resolve(dirname(file), s)),
    );
  }
  return graph;
}

/** The import cycles of a graph (Tarjan's strongly connected components of more than one file, or a self-import). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(relative(SANDBOX, w));
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe("the sandbox's layout", () => {
  test("imports nothing of mc: only its own files, packages, node: built-ins, k8s/ data and src/lib/", async () => {
    const outside: string[] = [];
    for (const [file, deps] of await importGraph()) {
      for (const dep of deps) {
        const inSandbox = !relative(SANDBOX, dep).startsWith("..");
        const data = !relative(join(ROOT, "k8s"), dep).startsWith("..");
        const lib = !relative(LIB, dep).startsWith("..");
        if (!inSandbox && !data && !lib) outside.push(`${relative(SANDBOX, file)} → ${relative(ROOT, dep)}`);
      }
    }
    expect(outside).toEqual([]);
  });

  test("src/lib/, which both mc and the sandbox import, imports nothing but itself", async () => {
    const outside: string[] = [];
    for (const [file, deps] of await importGraph(LIB)) {
      for (const dep of deps) if (relative(LIB, dep).startsWith("..")) outside.push(`${relative(ROOT, file)} → ${relative(ROOT, dep)}`);
      const text = await Bun.file(file).text();
      for (const m of text.matchAll(SPECIFIER)) if (!m[1]!.startsWith(".")) outside.push(`${relative(ROOT, file)} → ${m[1]}`);
    }
    expect(outside).toEqual([]);
  });

  test("no import cycle among its files", async () => {
    expect(cycles(await importGraph())).toEqual([]);
  });

  test("the cycle check finds a cycle when there is one", () => {
    const a = join(SANDBOX, "a.ts");
    const b = join(SANDBOX, "b.ts");
    const c = join(SANDBOX, "c.ts");
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, [a, c]],
          [c, []],
        ]),
      ),
    ).toEqual([["a.ts", "b.ts"]]);
  });
});
