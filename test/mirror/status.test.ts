// The Link's status.mirrorServices entries, the queue keys of local objects, and gateway address resolution.
import { describe, expect, test } from "bun:test";
import { GatewayAddresses, hostPort, resolveGatewayAddresses } from "../../src/mirror/gateway.ts";
import { MirrorNameClaims } from "../../src/mirror/sources/claims.ts";
import { keyOfLocal, keysOfLocal } from "../../src/mirror/sources/keys.ts";
import {
  keepTransitionTimes,
  MAX_STATUS_ENTRIES,
  mirrorServicesStatus,
  sameMirrorServices,
  type MirrorFailure,
} from "../../src/mirror/status/status.ts";
import { recordingLog } from "../kube/helpers.ts";
import { fakeResolver } from "./fixtures.ts";

const failure = (name: string, o: Partial<MirrorFailure> = {}): MirrorFailure => ({
  namespace: "ns1",
  name,
  reason: "MissingNamespace",
  message: "namespace ns1 does not exist in the source cluster",
  since: "2026-12-02T10:00:00.000Z",
  ...o,
});

describe("Link status.mirrorServices", () => {
  test("lists only failures, in Linkerd's entry shape, sorted by namespace and name", () => {
    const entries = mirrorServicesStatus([
      failure("b"),
      failure("a", { reason: "Error", message: "boom", localRef: { namespace: "ns1", name: "a-east" } }),
    ]);
    expect(entries).toEqual([
      {
        controllerName: "linkerd.io/service-mirror",
        remoteRef: { group: "", kind: "Service", name: "a", namespace: "ns1" },
        conditions: [
          {
            type: "Mirrored",
            status: "False",
            reason: "Error",
            message: "boom",
            lastTransitionTime: "2026-12-02T10:00:00.000Z",
            localRef: { group: "", kind: "Service", name: "a-east", namespace: "ns1" },
          },
        ],
      },
      expect.objectContaining({ remoteRef: { group: "", kind: "Service", name: "b", namespace: "ns1" } }),
    ]);
  });

  test("10,000 failing services still make a small status: the list is capped and messages are cut", () => {
    const many = Array.from({ length: 10_000 }, (_, i) => failure(`svc-${String(i).padStart(5, "0")}`, { message: "x".repeat(5000) }));
    const entries = mirrorServicesStatus(many);
    expect(entries.length).toBe(MAX_STATUS_ENTRIES);
    expect(JSON.stringify(entries).length).toBeLessThan(60_000);
    expect(entries[0]!.conditions[0]!.message.length).toBe(256);
  });

  test("a restart with the same failures keeps their transition times, so nothing is rewritten", () => {
    const current = mirrorServicesStatus([failure("a")]);
    const next = keepTransitionTimes(current, mirrorServicesStatus([failure("a", { since: "2026-12-02T11:00:00.000Z" })]));
    expect(sameMirrorServices(current, next)).toBe(true);
    const changed = keepTransitionTimes(current, mirrorServicesStatus([failure("a", { reason: "Error", message: "other" })]));
    expect(changed[0]!.conditions[0]!.lastTransitionTime).toBe("2026-12-02T10:00:00.000Z");
    expect(sameMirrorServices(current, changed)).toBe(false);
  });

  test("an absent list and an empty one are the same", () => {
    expect(sameMirrorServices(undefined, [])).toBe(true);
    expect(sameMirrorServices([], [])).toBe(true);
  });
});

describe("queue keys of local objects", () => {
  const gw = { namespace: "linkerd-multicluster", name: "probe-gateway-east" };

  test("a mirror, an endpoint mirror and the gateway mirror map to their target's key by their annotation, never their name", () => {
    const ours = (name: string, fq: string, extra: Record<string, string> = {}) => ({
      namespace: "ns1",
      name,
      labels: { "mirror.linkerd.io/cluster-name": "east", ...extra },
      annotations: { "mirror.linkerd.io/remote-svc-fq-name": fq },
    });
    expect(keyOfLocal(ours("web-east", "web.ns1.svc.cluster.local"), "east", gw)).toBe("ns1/web");
    // A name a template chose, or one that looks like another target's mirror: the annotation decides.
    expect(keyOfLocal(ours("east-web", "web.ns1.svc.cluster.local"), "east", gw)).toBe("ns1/web");
    expect(keyOfLocal(ours("web-east-east", "web-east.ns1.svc.cluster.local"), "east", gw)).toBe("ns1/web-east");
    expect(
      keyOfLocal(
        ours("pod-0-east", "pod-0.db.ns1.svc.cluster.local", { "mirror.linkerd.io/headless-mirror-svc-name": "db-east" }),
        "east",
        gw,
      ),
    ).toBe("ns1/db");
    expect(keyOfLocal({ namespace: "linkerd-multicluster", name: "probe-gateway-east" }, "east", gw)).toBe("@gateway");
    // Not ours (another cluster's, or a plain Service): no key unless a target's mirror wants the name.
    expect(
      keyOfLocal({ ...ours("web-east", "web.ns1.svc.cluster.local"), labels: { "mirror.linkerd.io/cluster-name": "west" } }, "east", gw),
    ).toBeUndefined();
    expect(keyOfLocal({ namespace: "ns1", name: "web-east" }, "east", gw)).toBeUndefined();
    const claims = new MirrorNameClaims();
    claims.claim("ns1/web", "ns1", "web-east");
    claims.claim("ns1/api", "ns1", "web-east");
    expect(keysOfLocal({ namespace: "ns1", name: "web-east" }, "east", gw, claims)).toEqual(["ns1/api", "ns1/web"]);
    expect(keysOfLocal(ours("web-east", "web.ns1.svc.cluster.local"), "east", gw, claims)).toEqual(["ns1/web", "ns1/api"]);
    claims.claim("ns1/api", "ns1", "api-east");
    claims.release("ns1/web");
    expect(keysOfLocal({ namespace: "ns1", name: "web-east" }, "east", gw, claims)).toEqual([]);
  });
});

describe("gateway address resolution", () => {
  test("IPs pass through, hostnames yield all their addresses, the result is sorted and distinct", async () => {
    const r = await resolveGatewayAddresses(
      ["192.0.2.9", "gw.example.com", "192.0.2.1"],
      fakeResolver({ "gw.example.com": ["192.0.2.5", "192.0.2.1", "2001:db8::1"] }),
    );
    expect(r).toEqual({ addresses: ["192.0.2.1", "192.0.2.5", "192.0.2.9", "2001:db8::1"], failures: [] });
  });

  test("an unresolvable entry is reported and the others still count", async () => {
    const r = await resolveGatewayAddresses(["nope.example.com", "192.0.2.1"], fakeResolver({}));
    expect(r.addresses).toEqual(["192.0.2.1"]);
    expect(r.failures).toEqual([{ entry: "nope.example.com", error: "getaddrinfo ENOTFOUND nope.example.com" }]);
  });

  test("when nothing resolves the last good addresses are kept, and each change is logged once", async () => {
    const resolver = fakeResolver({ "gw.example.com": ["192.0.2.1"] });
    const log = recordingLog();
    const g = new GatewayAddresses(["gw.example.com"], resolver, "east", log);
    expect(await g.refresh()).toBe(true);
    expect(await g.refresh()).toBe(false);
    resolver.table = {};
    expect(await g.refresh()).toBe(false);
    expect(await g.refresh()).toBe(false);
    expect(g.addresses).toEqual(["192.0.2.1"]);
    expect(g.isFailing).toBe(true);
    resolver.table = { "gw.example.com": ["192.0.2.2"] };
    expect(await g.refresh()).toBe(true);
    expect(g.addresses).toEqual(["192.0.2.2"]);
    expect(log.lines.map((l) => `${l.level} ${l.message}`)).toEqual([
      "warn cannot resolve gateway address gw.example.com of east: getaddrinfo ENOTFOUND gw.example.com",
      "info gateway addresses of east resolve again",
      "info gateway of east is now at 192.0.2.2",
    ]);
  });

  test("IPv6 hosts are bracketed in host:port", () => {
    expect(hostPort("2001:db8::1", 4191)).toBe("[2001:db8::1]:4191");
    expect(hostPort("probe-gateway-east", 4191)).toBe("probe-gateway-east:4191");
  });
});
