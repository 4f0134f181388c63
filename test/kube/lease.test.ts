// LeaderElector against the sandbox: acquire, renew, lose and release a Lease.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { KubeClient } from "../../src/kube/client.ts";
import { defaultIdentity, LeaderElector, LEASE_DEFAULTS, type LeaderElectorOptions, type LeaseObject } from "../../src/kube/lease.ts";
import { resources } from "../../src/kube/resources.ts";
import type { Sandbox } from "../../src/sandbox/index.ts";
import { freshNamespace, recordingLog, sandboxWithClient, within } from "./helpers.ts";

let sb: Sandbox;
let client: KubeClient;
beforeAll(async () => {
  ({ sb, client } = await sandboxWithClient());
});
afterAll(() => sb.stop());

// The Lease API counts whole seconds, so 1 s is the shortest lease there is.
const timings = { leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 100 };

interface Candidate {
  elector: LeaderElector;
  /** Resolves (with performance.now(): sub-millisecond, so a start right after a stop still orders after it) the nth time it starts leading (1-based). */
  leading(n?: number): Promise<number>;
  /** Resolves (with performance.now()) the first time it stops leading. */
  stoppedLeading: Promise<number>;
  /** Resolves after n more acquire/renew attempts: a wait on its own activity, not on the clock. */
  moreAttempts(n: number): Promise<void>;
}

function candidate(identity: string, namespace: string, extra: Partial<LeaderElectorOptions> = {}): Candidate {
  const starts: number[] = [];
  const startWaiters: Array<() => void> = [];
  let onStop!: (t: number) => void;
  const stoppedLeading = new Promise<number>((r) => (onStop = r));
  let attempts = 0;
  const attemptWaiters: Array<{ at: number; resolve: () => void }> = [];
  const elector = new LeaderElector({
    client,
    namespace,
    name: "service-mirror-write-east",
    identity,
    log: recordingLog(),
    ...timings,
    onStartedLeading: () => {
      starts.push(performance.now());
      for (const w of startWaiters.splice(0)) w();
    },
    onStoppedLeading: () => onStop(performance.now()),
    onAttempt: () => {
      attempts++;
      for (const w of attemptWaiters.filter((w) => w.at <= attempts)) w.resolve();
    },
    ...extra,
  });
  const leading = (n = 1): Promise<number> =>
    within(
      new Promise<number>((resolve) => {
        const check = () => (starts.length >= n ? resolve(starts[n - 1]!) : startWaiters.push(check));
        check();
      }),
      `${identity} leading (${n})`,
      4000,
    );
  const moreAttempts = (n: number) =>
    within(new Promise<void>((resolve) => attemptWaiters.push({ at: attempts + n, resolve })), `${n} more attempts of ${identity}`);
  return { elector, leading, stoppedLeading, moreAttempts };
}

describe("LeaderElector", () => {
  test("of two electors exactly one leads, and the lease names it", async () => {
    const ns = await freshNamespace(client);
    const a = candidate("a", ns);
    const b = candidate("b", ns);
    a.elector.start();
    b.elector.start();
    try {
      await Promise.race([a.leading(), b.leading()]);
      const [leader, follower] = a.elector.isLeader ? [a, b] : [b, a];
      await follower.moreAttempts(5); // it keeps trying, and keeps failing
      expect(leader.elector.isLeader).toBe(true);
      expect(follower.elector.isLeader).toBe(false);
      expect(follower.elector.leader).toBe(leader.elector.identity);
      const lease = await client.get<LeaseObject>(resources.lease, ns, "service-mirror-write-east");
      expect(lease.spec).toMatchObject({ holderIdentity: leader.elector.identity, leaseDurationSeconds: 1 });
    } finally {
      await a.elector.stop();
      await b.elector.stop();
    }
  });

  test("when the leader stops renewing, the other takes over within the lease duration", async () => {
    const ns = await freshNamespace(client);
    const a = candidate("a", ns);
    a.elector.start();
    await a.leading();
    const b = candidate("b", ns);
    b.elector.start();
    await b.moreAttempts(2);
    expect(b.elector.isLeader).toBe(false);
    await a.elector.stop({ release: false }); // a crash: the lease is left as it was
    const crashedAt = performance.now();
    try {
      const tookOver = await b.leading();
      const after = tookOver - crashedAt;
      // The lease was renewed at most one retry period before the crash, and b checks every ~retry period.
      expect(after).toBeGreaterThanOrEqual(timings.leaseDurationMs - 2 * timings.retryPeriodMs);
      expect(after).toBeLessThanOrEqual(timings.leaseDurationMs + 3 * timings.retryPeriodMs);
      const lease = await client.get<LeaseObject>(resources.lease, ns, "service-mirror-write-east");
      expect(lease.spec).toMatchObject({ holderIdentity: "b", leaseTransitions: 1 });
    } finally {
      await b.elector.stop();
    }
  });

  test("stop releases the lease and hands over at once", async () => {
    const ns = await freshNamespace(client);
    const slow = { leaseDurationMs: 20_000, renewDeadlineMs: 10_000, retryPeriodMs: 100 };
    const a = candidate("a", ns, slow);
    a.elector.start();
    await a.leading();
    const b = candidate("b", ns, slow);
    b.elector.start();
    await b.moreAttempts(2);
    const stoppedAt = performance.now();
    await a.elector.stop();
    expect(await a.stoppedLeading).toBeGreaterThanOrEqual(stoppedAt);
    expect(a.elector.isLeader).toBe(false);
    try {
      const tookOver = await b.leading();
      expect(tookOver - stoppedAt).toBeLessThan(1000); // far inside the 20 s lease
    } finally {
      await b.elector.stop();
    }
  });

  test("two processes on one host with the same HOSTNAME get different identities", async () => {
    const script = `import { defaultIdentity } from ${JSON.stringify(`${import.meta.dir}/../../src/kube/lease.ts`)}; process.stdout.write(defaultIdentity());`;
    const run = async () => {
      const proc = Bun.spawn(["bun", "-e", script], { env: { ...process.env, HOSTNAME: "same-host" }, stdout: "pipe" });
      return (await new Response(proc.stdout).text()).trim();
    };
    const [one, two] = await Promise.all([run(), run()]);
    expect(one).toMatch(/^same-host_[0-9a-f]{8}$/);
    expect(two).toMatch(/^same-host_[0-9a-f]{8}$/);
    expect(one).not.toBe(two);
  });

  test("a candidate that cannot reach the Lease says so once at warn, and once at info when it recovers", async () => {
    const ns = await freshNamespace(client);
    const log = recordingLog();
    sb.control.faults.failWith = [503];
    sb.control.faults.failRate = 1;
    const a = candidate("a", ns, { log });
    try {
      a.elector.start();
      await a.moreAttempts(4);
      const warns = log.at("warn").filter((m) => m.includes("cannot take or renew the lease"));
      expect(warns).toHaveLength(1);
      expect(warns[0]).toContain("503");
      expect(warns[0]).toEndWith("; retrying every 100ms");
      sb.control.faults.failRate = 0;
      await a.leading();
      expect(log.at("info")).toContain(`lease ${ns}/service-mirror-write-east on east: lease requests succeed again`);
    } finally {
      sb.control.faults.failRate = 0;
      await a.elector.stop();
    }
  });

  test("a leader that cannot renew within the deadline stops leading, then leads again when it can", async () => {
    const ns = await freshNamespace(client);
    const a = candidate("a", ns);
    a.elector.start();
    await a.leading();
    sb.control.faults.failWith = [503];
    sb.control.faults.failRate = 1; // every request answered 503
    try {
      const lostAt = await within(a.stoppedLeading, "a losing the lease", 3000);
      expect(a.elector.isLeader).toBe(false);
      sb.control.faults.failRate = 0;
      expect(await a.leading(2)).toBeGreaterThan(lostAt);
      expect(a.elector.isLeader).toBe(true);
    } finally {
      sb.control.faults.failRate = 0;
      await a.elector.stop();
    }
  });

  test("defaults are Linkerd's: lease 30 s, renew deadline 10 s, retry 2 s; identity is HOSTNAME plus a per-process suffix", () => {
    expect(LEASE_DEFAULTS).toEqual({ leaseDurationMs: 30_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
    expect(defaultIdentity({ HOSTNAME: "linkerd-service-mirror-east-abc" }, "1a2b")).toBe("linkerd-service-mirror-east-abc_1a2b");
    expect(defaultIdentity({ HOSTNAME: "pod-x" })).toMatch(/^pod-x_[0-9a-f]{8}$/);
    expect(defaultIdentity({ HOSTNAME: "pod-x" })).toBe(defaultIdentity({ HOSTNAME: "pod-x" })); // stable within a process
    expect(defaultIdentity({})).toBeString();
    expect(() => new LeaderElector({ client, namespace: "x", name: "y", leaseDurationMs: 5, renewDeadlineMs: 10 })).toThrow(
      "leaseDuration > renewDeadline > retryPeriod",
    );
  });
});
