// decideLease: leader election's decision on a Lease record, pure.
import { describe, expect, test } from "bun:test";
import { decideLease, microTime, observe, releasedSpec, type LeaseSpec } from "../../src/kube/lease-record.ts";

const T0 = Date.parse("2026-12-02T12:00:00Z");
const held = (holder: string, renewAt = T0, transitions = 0): LeaseSpec => ({
  holderIdentity: holder,
  leaseDurationSeconds: 30,
  acquireTime: microTime(T0 - 60_000),
  renewTime: microTime(renewAt),
  leaseTransitions: transitions,
});

describe("decideLease", () => {
  test("a missing lease is created with us as holder", () => {
    const d = decideLease(undefined, observe(undefined, undefined, T0), T0, "a", 30_000);
    expect(d).toEqual({
      action: "create",
      spec: { holderIdentity: "a", leaseDurationSeconds: 30, acquireTime: microTime(T0), renewTime: microTime(T0), leaseTransitions: 0 },
    });
  });

  test("our own lease is renewed: only renewTime moves", () => {
    const spec = held("a", T0, 2);
    const d = decideLease(spec, observe(undefined, spec, T0), T0 + 2000, "a", 30_000);
    expect(d).toEqual({ action: "update", acquired: false, spec: { ...spec, renewTime: microTime(T0 + 2000) } });
  });

  test("another holder's lease is respected until it has not changed for the lease duration", () => {
    const spec = held("b");
    const seen = observe(undefined, spec, T0);
    expect(decideLease(spec, seen, T0 + 29_999, "a", 30_000)).toEqual({ action: "wait", holder: "b", expiresInMs: 1 });
    const d = decideLease(spec, seen, T0 + 30_000, "a", 30_000);
    expect(d).toMatchObject({ action: "update", acquired: true, spec: { holderIdentity: "a", leaseTransitions: 1 } });
  });

  test("expiry runs on our clock from when we saw the record change, not on the holder's renewTime", () => {
    // The holder's clock is an hour behind: by renewTime the lease looks long expired.
    const spec = held("b", T0 - 3_600_000);
    const seen = observe(undefined, spec, T0);
    expect(decideLease(spec, seen, T0 + 10_000, "a", 30_000)).toMatchObject({ action: "wait" });
  });

  test("a renewal seen by a follower restarts its wait", () => {
    const first = observe(undefined, held("b", T0), T0);
    const renewed = held("b", T0 + 20_000);
    const seen = observe(first, renewed, T0 + 25_000);
    expect(seen.atMs).toBe(T0 + 25_000);
    expect(observe(seen, renewed, T0 + 40_000)).toBe(seen); // unchanged record: same observation
    expect(decideLease(renewed, seen, T0 + 40_000, "a", 30_000)).toMatchObject({ action: "wait", expiresInMs: 15_000 });
  });

  test("a released lease (no holder) is taken at once", () => {
    const spec = releasedSpec(held("b", T0, 4), T0);
    expect(spec.holderIdentity).toBe("");
    const d = decideLease(spec, observe(undefined, spec, T0), T0, "a", 30_000);
    expect(d).toMatchObject({ action: "update", acquired: true, spec: { holderIdentity: "a", leaseTransitions: 5 } });
  });
});

test("microTime has microseconds, as Kubernetes MicroTime does", () => {
  expect(microTime(Date.parse("2026-12-02T12:00:00.123Z"))).toBe("2026-12-02T12:00:00.123000Z");
});
