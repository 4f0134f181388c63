// Golden files for `mc gateways` output under test/golden/gateways/; UPDATE_GOLDEN=1 rewrites them.
import { expect } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const DIR = join(import.meta.dir, "..", "golden", "gateways");

export function expectGolden(name: string, actual: string): void {
  const path = join(DIR, name);
  if (process.env.UPDATE_GOLDEN === "1") {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  if (!existsSync(path)) throw new Error(`golden file ${path} is missing: run UPDATE_GOLDEN=1 bun test ${process.argv.at(-1) ?? ""}`);
  expect(actual).toBe(readFileSync(path, "utf8"));
}
