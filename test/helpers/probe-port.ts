// The stand-in gateway's probe port, 127.0.0.1:4191, taken by the first `mc sandbox` a gateway is installed in: test files that
// make one answer there hold this lock, so that `bun run test`'s two workers (D179) never run two of them at once.
import { openSync, readFileSync, unlinkSync, watch, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { alive } from "./pid.ts";

const LOCK = join(tmpdir(), "mc-test-probe-port-4191.lock");

function tryTake(lock: string): boolean {
  try {
    const fd = openSync(lock, "wx");
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (err) {
    if ((err as { code?: string }).code !== "EEXIST") throw err;
    let holder = Number.NaN;
    try {
      holder = Number(readFileSync(lock, "utf8"));
    } catch {
      return false; // released between the two calls: the next turn takes it
    }
    if (Number.isInteger(holder) && holder > 0 && (holder === process.pid || !alive(holder))) {
      // Left by a worker that died holding it, or by an earlier file of this process (files run one after another in a process).
      unlinkSync(lock);
      return tryTake(lock);
    }
    return false;
  }
}

/** Waits (up to `timeoutMs`) until no other process holds the probe port's lock, takes it, and returns its release. */
export async function holdProbePort(timeoutMs = 240_000, lock = LOCK): Promise<() => void> {
  const deadline = Date.now() + timeoutMs;
  while (!tryTake(lock)) {
    if (Date.now() > deadline) throw new Error(`the probe port's lock ${lock} was held for over ${timeoutMs} ms`);
    // Woken by the holder's unlink; the timeout re-checks a holder that died without one.
    await new Promise<void>((resolve) => {
      const w = watch(dirname(lock), (_e, name) => {
        if (name === basename(lock)) done();
      });
      const t = setTimeout(done, 1000);
      function done() {
        clearTimeout(t);
        w.close();
        resolve();
      }
    });
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    try {
      unlinkSync(lock);
    } catch {
      // already gone
    }
  };
}
