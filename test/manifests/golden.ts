// Golden files under test/golden/: compared byte for byte; rewritten only with UPDATE_GOLDEN=1.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "bun:test";

export const GOLDEN_DIR = join(import.meta.dir, "..", "golden");

export function expectGolden(name: string, actual: string): void {
  const path = join(GOLDEN_DIR, name);
  if (process.env.UPDATE_GOLDEN === "1") {
    writeFileSync(path, actual);
    return;
  }
  if (!existsSync(path)) throw new Error(`golden file test/golden/${name} is missing; create it with UPDATE_GOLDEN=1 bun test`);
  expect(actual).toBe(readFileSync(path, "utf8"));
}
