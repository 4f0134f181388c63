// The slices of a mirror (--mirror-endpoint-slices), pure: what a mirror's Endpoints would hold
// becomes slices (one per subset and family, the first named as the Service), and the plan writes
// only what differs, deleting after every write.
import { describe, expect, test } from "bun:test";
import { desiredSlices, MAX_SLICE_ENDPOINTS, planSlices, type MirrorSlice } from "../../src/mirror/reconcile/slices.ts";
import type { EndpointsObject } from "../../src/mirror/types.ts";

const ports = [{ name: "http", protocol: "TCP", port: 4143 }];
const ep = (subsets: EndpointsObject["subsets"]): EndpointsObject => ({
  apiVersion: "v1",
  kind: "Endpoints",
  metadata: { name: "web-east", namespace: "ns1", labels: { "mirror.linkerd.io/cluster-name": "east" }, annotations: { a: "1" } },
  subsets,
});
const stored = (s: MirrorSlice, uid = `uid-${s.metadata.name}`): MirrorSlice => ({
  ...structuredClone(s),
  metadata: { ...s.metadata, uid, resourceVersion: "7" },
});

describe("desiredSlices", () => {
  test("ready addresses are ready and serving, not-ready ones neither; IPv6 addresses get their own slice, named <mirror>.2", () => {
    const slices = desiredSlices(
      ep([{ addresses: [{ ip: "10.0.0.1" }, { ip: "fd00::1" }], notReadyAddresses: [{ ip: "10.0.0.2" }], ports }]),
    );
    expect(
      slices.map((s) => [
        s.metadata.name,
        s.addressType,
        s.endpoints.map((e) => `${e.addresses[0]} ${e.conditions.ready}/${e.conditions.serving}`),
      ]),
    ).toEqual([
      ["web-east", "IPv4", ["10.0.0.1 true/true", "10.0.0.2 false/false"]],
      ["web-east.2", "IPv6", ["fd00::1 true/true"]],
    ]);
    expect(slices[0]!.metadata.labels).toEqual({
      "mirror.linkerd.io/cluster-name": "east",
      "kubernetes.io/service-name": "web-east",
      "endpointslice.kubernetes.io/managed-by": "service-mirror.mc-project.io",
    });
    expect(slices[0]!.metadata.annotations).toEqual({ a: "1" });
    expect(slices[0]!.ports).toEqual(ports);
  });

  test("no endpoints is still one slice, named as the mirror; more than the API allows in one slice is split", () => {
    expect(desiredSlices(ep([])).map((s) => [s.metadata.name, s.endpoints.length])).toEqual([["web-east", 0]]);
    const many = Array.from({ length: MAX_SLICE_ENDPOINTS + 1 }, (_, i) => ({ ip: `10.0.${i >> 8}.${i & 255}`, hostname: `pod-${i}` }));
    expect(desiredSlices(ep([{ addresses: many, ports }])).map((s) => [s.metadata.name, s.endpoints.length])).toEqual([
      ["web-east", MAX_SLICE_ENDPOINTS],
      ["web-east.2", 1],
    ]);
  });
});

describe("planSlices", () => {
  const ready = desiredSlices(ep([{ addresses: [{ ip: "10.0.0.1" }], ports }]));
  const notReady = desiredSlices(ep([{ notReadyAddresses: [{ ip: "10.0.0.1" }], ports }]));

  test("nothing to write when the slices are as desired (the Link uid alone is no reason); a liveness change is one update", () => {
    const have = ready.map((s) => stored(s));
    have[0]!.metadata.labels = { ...have[0]!.metadata.labels, "mirror.linkerd.io/link-uid": "old" };
    expect(planSlices(ready, have)).toEqual([]);
    const ops = planSlices(notReady, have);
    expect(ops.map((op) => (op.verb === "update" ? [op.verb, op.object.metadata.resourceVersion, op.changed] : [op.verb]))).toEqual([
      ["update", "7", ["endpoints"]],
    ]);
  });

  test("slices no longer wanted go after every write; a family change replaces the slice; slices not mc's are never touched", () => {
    const two = desiredSlices(ep([{ addresses: [{ ip: "10.0.0.1" }, { ip: "fd00::1" }], ports }])).map((s) => stored(s));
    const foreign = {
      ...stored(ready[0]!),
      metadata: { ...ready[0]!.metadata, name: "web-east-abcde", labels: { "kubernetes.io/service-name": "web-east" } },
    };
    const ops = planSlices(notReady, [...two, foreign]);
    expect(ops.map((op) => `${op.verb} ${op.verb === "delete" ? op.name : op.object.metadata.name}`)).toEqual([
      "update web-east",
      "delete web-east.2",
    ]);
    const v6 = desiredSlices(ep([{ addresses: [{ ip: "fd00::2" }], ports }]));
    expect(
      planSlices(v6, two.slice(0, 1)).map((op) => `${op.verb} ${op.verb === "delete" ? `${op.name} ${op.uid}` : op.object.metadata.name}`),
    ).toEqual(["delete web-east uid-web-east", "create web-east"]);
  });
});
