// LinkStatus, the one writer of a Link's status: its parts (the controller's and the supervisor's)
// share one queue and one retry rule, a 404 is nothing to report on, and a controller that is
// replaced cannot take away its successor's part.
import { describe, expect, test } from "bun:test";
import { KubeError, type Writer } from "../../src/kube/index.ts";
import { LinkStatus, type StatusWrite } from "../../src/mirror/status/link-status.ts";
import { quiet } from "./harness.ts";

function fakeWriter(fail: () => KubeError | undefined = () => undefined) {
  const patches: unknown[] = [];
  let attempts = 0;
  const writer = {
    async patchStatus(_res: unknown, _ns: unknown, _name: unknown, status: unknown) {
      attempts++;
      const err = fail();
      if (err) throw err;
      patches.push(status);
      return {};
    },
  } as unknown as Writer;
  return { writer, patches, attempts: () => attempts };
}

const status = (writer: Writer, requeueLimit = 2) =>
  new LinkStatus({
    writer,
    namespace: "linkerd-multicluster",
    name: "east",
    log: quiet,
    requeueLimit,
    backoff: { initialMs: 1, maxMs: 2, jitter: 0 },
  });

/** A part that writes `{ [field]: value() }` until told it was written. */
function part(field: string, value: () => unknown) {
  let held: unknown;
  const written: unknown[] = [];
  const next = (): StatusWrite => {
    const v = value();
    if (v === held) return undefined;
    return { patch: { [field]: v }, written: () => void written.push((held = v)) };
  };
  return { next, written };
}

describe("LinkStatus", () => {
  test("the controller's parts and the supervisor's conditions are written by one writer, one field per patch, nothing when the Link holds it", async () => {
    const w = fakeWriter();
    const s = status(w.writer);
    let failures = "a";
    const mirrors = part("mirrorServices", () => failures);
    const conditions = part("conditions", () => "Ready");
    s.attach("mirrorServices", mirrors.next);
    s.attach("conditions", conditions.next);
    s.changed("mirrorServices");
    s.changed("conditions");
    await s.drain();
    expect(w.patches).toEqual([{ mirrorServices: "a" }, { conditions: "Ready" }]);
    s.retry(); // a refresh: every part is asked again, and none has anything new
    await s.drain();
    expect(w.patches).toHaveLength(2);
    failures = "b";
    s.changed("mirrorServices");
    await s.drain();
    expect(w.patches.at(-1)).toEqual({ mirrorServices: "b" });
    expect(mirrors.written).toEqual(["a", "b"]);
  });

  test("a write that keeps failing is retried up to the requeue limit, given up, and written at the next retry()", async () => {
    let down = true;
    const w = fakeWriter(() =>
      down
        ? new KubeError({
            verb: "patch",
            target: "links/status linkerd-multicluster/east on west",
            code: 503,
            reason: "ServiceUnavailable",
            detail: "down",
          })
        : undefined,
    );
    const s = status(w.writer, 2);
    const conditions = part("conditions", () => "Ready");
    s.attach("conditions", conditions.next);
    s.changed("conditions");
    await s.drain();
    expect(w.attempts()).toBe(3); // the first try and 2 retries
    expect(conditions.written).toEqual([]);
    down = false;
    s.retry();
    await s.drain();
    expect(w.patches).toEqual([{ conditions: "Ready" }]);
    expect(conditions.written).toEqual(["Ready"]);
  });

  test("a Link that is gone (404) is not retried and nothing counts as written", async () => {
    const w = fakeWriter(
      () =>
        new KubeError({
          verb: "patch",
          target: "links/status linkerd-multicluster/east on west",
          code: 404,
          reason: "NotFound",
          detail: 'links.multicluster.linkerd.io "east" not found',
        }),
    );
    const s = status(w.writer, 5);
    const mirrors = part("mirrorServices", () => "a");
    s.attach("mirrorServices", mirrors.next);
    s.changed("mirrorServices");
    await s.drain();
    expect(w.attempts()).toBe(1);
    expect(mirrors.written).toEqual([]);
    expect(await s.writeGateway({ alive: true, lastProbeTime: "2026-12-04T00:00:00Z", consecutiveFailures: 0 })).toBe(false);
  });

  test("a replaced controller's detach leaves its successor's part; a part nobody holds is not written", async () => {
    const w = fakeWriter();
    const s = status(w.writer);
    const old = part("mirrorServices", () => "old");
    const detachOld = s.attach("mirrorServices", old.next);
    const successor = part("mirrorServices", () => "new");
    const detachNew = s.attach("mirrorServices", successor.next);
    detachOld();
    s.changed("mirrorServices");
    await s.drain();
    expect(w.patches).toEqual([{ mirrorServices: "new" }]);
    detachNew();
    s.changed("mirrorServices");
    s.retry();
    await s.drain();
    expect(w.patches).toHaveLength(1);
  });
});
