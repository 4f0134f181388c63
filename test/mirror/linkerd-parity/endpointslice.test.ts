// Linkerd's cluster_watcher_endpointslice_test.go: its enableEndpointSlices mode, one test per case.
import { afterEach, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../../src/kube/index.ts";
import { desiredMirror, hasReadyEndpoints } from "../../../src/mirror/reconcile/desired.ts";
import { endpointsFromSlices, sliceService, type EndpointSliceObject } from "../../../src/mirror/sources/remote-slices.ts";
import { link, remoteService as serviceFixture } from "../fixtures.ts";
import type { Pair } from "../../helpers/clusters.ts";
import { cached, read } from "../harness.ts";
import {
  EXPORTED,
  localEndpoints,
  localMirror,
  mirrorNames,
  ports,
  remoteEndpointsOf,
  remoteService,
  runEnvironment,
  endpointMirrorService,
  headlessMirrorService,
  headlessMirrorEndpoints,
  endpointMirrorEndpoints,
  endpointPorts,
  GATEWAY_IP,
  IDENTITY,
} from "./linkerd.ts";

// Linkerd's helpers (getEndpointSliceServiceID, isEmptyEndpointSlice, isEmptyServiceES,
// shouldExportAsHeadlessServiceFromSlice, isHeadlessEndpointSlice) map to mc's sliceService and to the
// decisions mc makes from RemoteSlices' view (hasReadyEndpoints, the headless kind); the mirroring
// cases run the controller with --enable-endpoint-slices against two sandboxes.

let pair: Pair | undefined;
afterEach(async () => {
  await pair?.stop();
  pair = undefined;
});

const meta = (labels?: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  name: "test-slice",
  namespace: "test-ns",
  ...(labels && { labels }),
  ...extra,
});
const slice = (
  endpoints: EndpointSliceObject["endpoints"],
  labels: Record<string, string> = { "kubernetes.io/service-name": "test-svc" },
): EndpointSliceObject => ({ metadata: meta(labels), endpoints, ports: [{ name: "port1", port: 8080, protocol: "TCP" }] });
const isEmpty = (...slices: EndpointSliceObject[]) => !hasReadyEndpoints(endpointsFromSlices("test-ns", "test-svc", slices));
/** What mc decides for an exported Service whose target has these slices (headless support on). */
const decide = (service: ReturnType<typeof serviceFixture>, slices: EndpointSliceObject[]) =>
  desiredMirror({
    link: link(),
    key: { namespace: "ns1", name: "service-one" },
    remote: { service, endpoints: endpointsFromSlices("ns1", "service-one", slices) },
    gateway: { addresses: ["192.0.2.127"], port: 888, identity: "" },
    alive: true,
    enableHeadlessServices: true,
    enableNamespaceCreation: false,
    namespaceExists: true,
  });
/** Whether mc mirrors a headless export with these slices as headless (Linkerd's shouldExportAsHeadlessServiceFromSlice). */
const mirroredHeadless = (...slices: EndpointSliceObject[]) => {
  const d = decide(serviceFixture({ headless: true }), slices);
  return d.service?.spec?.clusterIP === "None";
};
const ready = (value: boolean | null, address = "10.0.0.1", hostname?: string) => ({
  addresses: [address],
  conditions: { ready: value },
  ...(hostname !== undefined && { hostname }),
});

describe("TestEndpointSliceHelperFunctions", () => {
  test("getEndpointSliceServiceID extracts service name from labels", () => {
    expect(
      sliceService({ metadata: { name: "service-abc123", namespace: "test-ns", labels: { "kubernetes.io/service-name": "my-service" } } }),
    ).toBe("test-ns/my-service");
  });

  test("getEndpointSliceServiceID extracts service name from ownerReferences", () => {
    expect(
      sliceService({
        metadata: { name: "service-abc123", namespace: "test-ns", ownerReferences: [{ kind: "Service", name: "owner-service" }] },
      }),
    ).toBe("test-ns/owner-service");
  });

  test("getEndpointSliceServiceID returns error when no service reference", () => {
    expect(sliceService({ metadata: { name: "orphan-slice", namespace: "test-ns" } })).toBeUndefined();
  });

  // mc decides headlessness from the target Service (clusterIP None) whichever API it reads, as
  // its Endpoints path does; the label is what kube's controllers derive from that same field.
  test("isHeadlessEndpointSlice returns true for headless — mc: the Service's clusterIP None decides; a headless Service's slices are mirrored headless", () => {
    expect(
      mirroredHeadless({
        metadata: meta({ "service.kubernetes.io/headless": "", "kubernetes.io/service-name": "service-one" }),
        endpoints: [ready(true, "10.0.0.1", "pod-0")],
      }),
    ).toBe(true);
  });

  test("isHeadlessEndpointSlice returns false for non-headless — mc: the Service's clusterIP decides; a ClusterIP Service's slices never make a headless mirror", () => {
    const d = decide(serviceFixture(), [{ metadata: meta({}), endpoints: [ready(true, "10.0.0.1", "pod-0")] }]);
    expect(d.service?.spec?.clusterIP).toBeUndefined();
    expect(d.headless).toBeNull();
  });

  test("shouldExportAsHeadlessServiceFromSlice returns true with hostname", () => {
    expect(mirroredHeadless({ metadata: meta({ "kubernetes.io/service-name": "test-service" }), endpoints: [{ hostname: "pod-0" }] })).toBe(
      true,
    );
  });

  test("shouldExportAsHeadlessServiceFromSlice returns false without hostname", () => {
    expect(
      mirroredHeadless({ metadata: meta({ "kubernetes.io/service-name": "test-service" }), endpoints: [{ addresses: ["10.0.0.1"] }] }),
    ).toBe(false);
  });
});

describe("TestEndpointSliceEmptinessCheck", () => {
  test("isEmptyEndpointSlice returns true for empty endpoints", () => {
    expect(isEmpty(slice([]))).toBe(true);
  });
  test("isEmptyEndpointSlice returns true when all endpoints not ready", () => {
    expect(isEmpty(slice([ready(false)]))).toBe(true);
  });
  test("isEmptyEndpointSlice returns false when endpoint is ready", () => {
    expect(isEmpty(slice([ready(true)]))).toBe(false);
  });
});

const servicePorts = ports(["port1", 555], ["port2", 666]);
const sliceOf = (
  name: string,
  service: string,
  namespace: string,
  hostnames: string[],
  extra: Record<string, string> = {},
): KubeObject => ({
  apiVersion: "discovery.k8s.io/v1",
  kind: "EndpointSlice",
  metadata: {
    name,
    namespace,
    labels: { "kubernetes.io/service-name": service, "service.kubernetes.io/headless": "", ...EXPORTED, ...extra },
  },
  addressType: "IPv4",
  endpoints: hostnames.map((h) => ({
    addresses: ["192.0.0.1"],
    hostname: h,
    conditions: { ready: true },
    targetRef: { kind: "Pod", name: h, namespace },
  })),
  ports: servicePorts.map((p) => ({ name: p.name, protocol: p.protocol, port: p.port })),
});

describe("TestEndpointSliceHeadlessServiceMirroring", () => {
  test("create headless service from EndpointSlice", async () => {
    const env = await runEnvironment({
      localNamespaces: ["ns1"],
      remote: [
        remoteService("service-one", "ns1", EXPORTED, servicePorts, true),
        sliceOf("service-one-abc", "service-one", "ns1", ["pod-0"]),
      ],
      link: { gatewayAddress: "192.0.2.129", gatewayPort: "889" },
      options: { settings: { enableEndpointSlices: true } },
    });
    pair = env.pair;
    expect((read(pair.west, "services", "ns1", "service-one-remote")!.spec as { clusterIP?: string }).clusterIP).toBe("None");
  });
});

describe("TestEndpointSliceUpdateEvent", () => {
  test("update headless service from EndpointSlice with new host", async () => {
    const env = await runEnvironment({
      local: [
        localMirror(headlessMirrorService("service-one-remote", "ns1", "111"), servicePorts, true),
        localMirror(endpointMirrorService("pod-0", "service-one-remote", "ns1", "112"), servicePorts),
        localEndpoints(headlessMirrorEndpoints("service-one-remote", "ns1", {}, ["pod-0"], IDENTITY, [], () => "10.96.100.1")),
        localEndpoints(endpointMirrorEndpoints("service-one-remote", "ns1", {}, "pod-0", GATEWAY_IP, IDENTITY, [])),
      ],
      remote: [
        remoteService("service-one", "ns1", EXPORTED, servicePorts, true),
        sliceOf("service-one-abc", "service-one", "ns1", ["pod-0", "pod-1"]),
      ],
      options: { settings: { enableEndpointSlices: true } },
    });
    pair = env.pair;
    expect(mirrorNames(pair, "ns1")).toEqual(["ns1/pod-0-remote", "ns1/pod-1-remote", "ns1/service-one-remote"]);
    expect(read(pair.west, "endpoints", "ns1", "pod-1-remote")).toMatchObject({
      subsets: [{ addresses: [{ ip: GATEWAY_IP }], ports: endpointPorts(["port1", 888], ["port2", 888]) }],
    });
  });
});

describe("TestIsEmptyServiceES", () => {
  test("returns true when no EndpointSlices exist", () => {
    expect(isEmpty()).toBe(true);
  });
  test("returns true when EndpointSlice has no endpoints", () => {
    expect(isEmpty(slice([]))).toBe(true);
  });
  test("returns false when EndpointSlice has ready endpoints", () => {
    expect(isEmpty(slice([ready(true)]))).toBe(false);
  });
  test("returns false when any EndpointSlice has ready endpoints (multiple slices)", () => {
    expect(isEmpty(slice([]), slice([ready(true)]))).toBe(false);
  });
});

describe("TestIsEmptyServiceDispatch", () => {
  // A ready target read through the API the mode names: slices with the flag, Endpoints without.
  const subsetsOf = () =>
    (read(pair!.west, "endpoints", "test-ns", "test-svc-remote") as { subsets?: unknown[] } | undefined)?.subsets ?? [];

  test("uses EndpointSlice when enableEndpointSlices is true", async () => {
    const env = await runEnvironment({
      localNamespaces: ["test-ns"],
      remote: [
        remoteService("test-svc", "test-ns", EXPORTED, ports(["port1", 8080])),
        {
          ...sliceOf("test-svc-abc", "test-svc", "test-ns", []),
          endpoints: [{ addresses: ["10.0.0.1"], conditions: { ready: true } }],
        } as KubeObject,
      ],
      options: { settings: { enableEndpointSlices: true } },
    });
    pair = env.pair;
    expect(env.ctl.informers.remoteEndpoints).toBeUndefined();
    expect(subsetsOf()).toHaveLength(1);
  });

  test("uses Endpoints when enableEndpointSlices is false", async () => {
    const env = await runEnvironment({
      localNamespaces: ["test-ns"],
      remote: [
        remoteService("test-svc", "test-ns", EXPORTED, ports(["port1", 8080])),
        remoteEndpointsOf("test-svc", "test-ns", "10.0.0.1"),
      ],
      options: { settings: { enableEndpointSlices: false } },
    });
    pair = env.pair;
    expect(env.ctl.informers.remoteEndpointSlices).toBeUndefined();
    expect(subsetsOf()).toHaveLength(1);
  });
});

describe("TestEndpointSliceWithNotReadyEndpoints", () => {
  test("isEmptyEndpointSlice returns true when Ready is nil", () => {
    expect(isEmpty(slice([ready(null)]))).toBe(true);
    expect(isEmpty(slice([{ addresses: ["10.0.0.1"] }]))).toBe(true);
  });
  test("isEmptyEndpointSlice returns false with mixed ready states", () => {
    expect(isEmpty(slice([ready(false, "10.0.0.1"), ready(true, "10.0.0.2")]))).toBe(false);
  });
});

describe("TestEndpointSliceNonHeadlessService", () => {
  test("non-headless EndpointSlice triggers emptiness check", async () => {
    // A ClusterIP export read from a slice without the headless label: mirrored through the gateway, ready while its endpoint is.
    const env = await runEnvironment({
      localNamespaces: ["test-ns"],
      remote: [
        remoteService("svc", "test-ns", EXPORTED, ports(["http", 80])),
        {
          ...sliceOf("svc-abc", "svc", "test-ns", []),
          metadata: { name: "svc-abc", namespace: "test-ns", labels: { "kubernetes.io/service-name": "svc", ...EXPORTED } },
          endpoints: [ready(true)],
        } as KubeObject,
      ],
      options: { settings: { enableEndpointSlices: true } },
    });
    pair = env.pair;
    expect(read(pair.west, "endpoints", "test-ns", "svc-remote")).toMatchObject({ subsets: [{ addresses: [{ ip: GATEWAY_IP }] }] });
    const current = await pair.eastClient.get<KubeObject>(resources.endpointSlice, "test-ns", "svc-abc");
    const emptied = await pair.eastClient.update<KubeObject>(resources.endpointSlice, { ...current, endpoints: [ready(false)] });
    await cached(env.ctl.informers.remoteEndpointSlices, emptied);
    await env.ctl.drain();
    expect((read(pair.west, "endpoints", "test-ns", "svc-remote") as { subsets?: unknown[] }).subsets ?? []).toEqual([]);
  });
});

describe("TestEndpointSliceMultipleAddresses", () => {
  test("EndpointSlice with multiple addresses per endpoint", () => {
    expect(
      mirroredHeadless({
        metadata: meta({ "kubernetes.io/service-name": "test-svc" }),
        endpoints: [{ addresses: ["10.0.0.1", "10.0.0.2"], hostname: "pod-0", conditions: { ready: true } }],
      }),
    ).toBe(true);
  });
});

describe("TestEndpointSliceEmptyHostname", () => {
  test("shouldExportAsHeadlessServiceFromSlice returns false for empty string hostname", () => {
    expect(
      mirroredHeadless({
        metadata: meta({ "kubernetes.io/service-name": "test-service" }),
        endpoints: [{ addresses: ["10.0.0.1"], hostname: "" }],
      }),
    ).toBe(false);
  });
});

describe("TestWatcherEnableEndpointSlicesField", () => {
  test("watcher correctly stores enableEndpointSlices flag", async () => {
    const withSlices = await runEnvironment({ options: { settings: { enableEndpointSlices: true } } });
    pair = withSlices.pair;
    expect(withSlices.ctl.informers.remoteEndpointSlices).toBeDefined();
    expect(withSlices.ctl.informers.remoteEndpoints).toBeUndefined();
    await pair.stop();
    const without = await runEnvironment({ options: { settings: { enableEndpointSlices: false } } });
    pair = without.pair;
    expect(without.ctl.informers.remoteEndpointSlices).toBeUndefined();
    expect(without.ctl.informers.remoteEndpoints).toBeDefined();
  });
});
