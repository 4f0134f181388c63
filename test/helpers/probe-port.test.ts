// The probe port's lock across test worker processes: one holder at a time, another process waits for the release, a dead
// holder's lock is taken over.
import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { holdProbePort } from "./probe-port.ts";

// A lock of its own, so that a test holding the real one in the other worker is never disturbed.
const LOCK = join(mkdtempSync(join(tmpdir(), "mc-lock-test-")), "probe.lock");

test("a second process waits until the holder releases; a dead holder's lock is taken over", async () => {
  const release = await holdProbePort(5_000, LOCK);
  expect(readFileSync(LOCK, "utf8")).toBe(String(process.pid));
  // Another process (as a second test worker is) asks for it and reports when it has it.
  const other = Bun.spawn(
    [
      "bun",
      "-e",
      `const { holdProbePort } = await import(${JSON.stringify(join(import.meta.dir, "probe-port.ts"))}); const r = await holdProbePort(5000, ${JSON.stringify(LOCK)}); console.log("held"); r();`,
    ],
    { stdout: "pipe", stderr: "inherit" },
  );
  const out = new Response(other.stdout).text();
  const early = await Promise.race([out.then(() => "held early"), Bun.sleep(300).then(() => "waiting")]);
  expect(early).toBe("waiting");
  release();
  expect((await out).trim()).toBe("held");
  expect(await other.exited).toBe(0);
  expect(existsSync(LOCK)).toBe(false);
  // A holder that died without releasing: its pid is gone, so the lock is free.
  const dead = Bun.spawn(["true"]);
  await dead.exited;
  writeFileSync(LOCK, String(dead.pid));
  const again = await holdProbePort(2_000, LOCK);
  expect(readFileSync(LOCK, "utf8")).toBe(String(process.pid));
  again();
}, 20_000);
