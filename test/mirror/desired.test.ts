// desiredMirror and desiredGatewayMirror: what a mirror should be for a target Service, pure.
import { describe, expect, test } from "bun:test";
import { desiredGatewayMirror, desiredMirror, type DesiredOptions } from "../../src/mirror/reconcile/desired.ts";
import { headlessEndpoints } from "../../src/mirror/reconcile/headless.ts";
import { isExcludedKey, mirrorAnnotations, mirrorLabels } from "../../src/mirror/reconcile/metadata.ts";
import type { ResolvedGateway } from "../../src/mirror/types.ts";
import { EXPORT, link, remoteEndpoints, remoteService } from "./fixtures.ts";

const gateway: ResolvedGateway = { addresses: ["192.0.2.127"], port: 888, identity: "gateway-identity" };
const opts: DesiredOptions = { enableHeadlessServices: true, enableNamespaceCreation: false, namespaceExists: true };
const key = { namespace: "ns1", name: "service-one" };

describe("desiredMirror for a gateway-mode target Service", () => {
  test("an exported Service gets a ClusterIP mirror with its ports and gateway Endpoints with the gateway port (Linkerd: create service and endpoints when gateway can be resolved)", () => {
    const svc = remoteService({ labels: { ...EXPORT, lk: "lv" }, resourceVersion: "7" });
    const d = desiredMirror({
      link: link({ cluster: "remote" }),
      remote: { service: svc, endpoints: remoteEndpoints() },
      gateway,
      alive: true,
      ...opts,
      key,
    });
    expect(d.mirrorName).toBe("service-one-remote");
    expect(d.service).toEqual({
      apiVersion: "v1",
      kind: "Service",
      metadata: {
        name: "service-one-remote",
        namespace: "ns1",
        labels: { lk: "lv", "mirror.linkerd.io/mirrored-service": "true", "mirror.linkerd.io/cluster-name": "remote" },
        annotations: {
          "mirror.linkerd.io/remote-svc-fq-name": "service-one.ns1.svc.cluster.local",
          "mirror.linkerd.io/remote-resource-version": "7",
        },
      },
      spec: {
        ports: [
          { name: "port1", protocol: "TCP", port: 555 },
          { name: "port2", protocol: "TCP", port: 666 },
        ],
      },
    });
    expect(d.endpoints?.metadata.annotations).toEqual({
      "mirror.linkerd.io/remote-svc-fq-name": "service-one.ns1.svc.cluster.local",
      "mirror.linkerd.io/remote-gateway-identity": "gateway-identity",
    });
    expect(d.endpoints?.metadata.labels).toEqual(d.service?.metadata.labels);
    expect(d.endpoints?.subsets).toEqual([
      {
        addresses: [{ ip: "192.0.2.127" }],
        ports: [
          { name: "port1", protocol: "TCP", port: 888 },
          { name: "port2", protocol: "TCP", port: 888 },
        ],
      },
    ]);
    expect(d.problem).toBeNull();
  });

  test("only name, protocol, port and targetPort are copied; nodePort, appProtocol, type and selector are not", () => {
    const svc = remoteService({
      ports: [{ name: "http", protocol: "TCP", port: 80, targetPort: "web", nodePort: 30080, appProtocol: "http" }],
    });
    svc.spec = { ...svc.spec, type: "LoadBalancer", selector: { app: "web" } };
    const d = desiredMirror({ link: link(), remote: { service: svc, endpoints: remoteEndpoints() }, gateway, alive: true, ...opts, key });
    expect(d.service?.spec).toEqual({ ports: [{ name: "http", protocol: "TCP", port: 80, targetPort: "web" }] });
  });

  test("a gateway that is not alive puts every address in notReadyAddresses (Linkerd: TestServiceCreatedGatewayDown)", () => {
    const d = desiredMirror({
      link: link(),
      remote: { service: remoteService(), endpoints: remoteEndpoints() },
      gateway,
      alive: false,
      ...opts,
      key,
    });
    expect(d.endpoints?.subsets).toEqual([expect.objectContaining({ notReadyAddresses: [{ ip: "192.0.2.127" }] })]);
    expect(d.endpoints?.subsets?.[0]?.addresses).toBeUndefined();
  });

  test("a target with no ready endpoints gets mirror Endpoints with no subsets, so traffic fails fast", () => {
    for (const endpoints of [undefined, remoteEndpoints({ ready: [] }), remoteEndpoints({ ready: [], notReady: ["10.0.0.9"] })]) {
      const d = desiredMirror({ link: link(), remote: { service: remoteService(), endpoints }, gateway, alive: true, ...opts, key });
      expect(d.endpoints?.subsets).toEqual([]);
    }
  });

  test("a gateway with several addresses lists them all, in the order given (already sorted by resolution)", () => {
    const g = { ...gateway, addresses: ["192.0.2.1", "192.0.2.2"] };
    const d = desiredMirror({
      link: link(),
      remote: { service: remoteService(), endpoints: remoteEndpoints() },
      gateway: g,
      alive: true,
      ...opts,
      key,
    });
    expect(d.endpoints?.subsets?.[0]?.addresses).toEqual([{ ip: "192.0.2.1" }, { ip: "192.0.2.2" }]);
  });

  test("a Link without an identity writes no identity annotation", () => {
    const d = desiredMirror({
      link: link(),
      remote: { service: remoteService(), endpoints: remoteEndpoints() },
      gateway: { ...gateway, identity: "" },
      alive: true,
      ...opts,
      key,
    });
    expect(Object.keys(d.endpoints?.metadata.annotations ?? {})).toEqual(["mirror.linkerd.io/remote-svc-fq-name"]);
  });

  test("a Service the selector does not match, or one that is gone, has no mirror (Linkerd: RemoteServiceUnexported)", () => {
    for (const service of [undefined, remoteService({ labels: { other: "x" } })]) {
      const d = desiredMirror({ link: link(), remote: { service, endpoints: undefined }, gateway, alive: true, ...opts, key });
      expect([d.service, d.endpoints, d.problem]).toEqual([null, null, null]);
    }
  });

  test("an empty or missing selector exports nothing (Linkerd: TestEmptyRemoteSelectors)", () => {
    for (const selector of [null, {}, { matchLabels: {} }]) {
      const d = desiredMirror({
        link: link({ selector }),
        remote: { service: remoteService(), endpoints: remoteEndpoints() },
        gateway,
        alive: true,
        ...opts,
        key,
      });
      expect(d.service).toBeNull();
    }
  });

  test("a Link without a gateway mirrors nothing in gateway mode (Linkerd PR4710: gateway address is missing)", () => {
    const d = desiredMirror({
      link: link({ gatewayAddress: "" }),
      remote: { service: remoteService(), endpoints: remoteEndpoints() },
      gateway: null,
      alive: true,
      ...opts,
      key,
    });
    expect(d.service).toBeNull();
  });

  test("a missing local namespace is a MissingNamespace problem with a skip Event, unless namespaces may be created", () => {
    const input = { service: remoteService(), endpoints: remoteEndpoints() };
    const skipped = desiredMirror({ link: link(), remote: input, gateway, alive: true, ...opts, namespaceExists: false, key });
    expect(skipped.service).toBeNull();
    expect(skipped.problem?.reason).toBe("MissingNamespace");
    expect(skipped.remoteEvent).toEqual({
      reason: "ServiceMirroringSkipped",
      message: "Skipped mirroring service: namespace does not exist",
    });
    const created = desiredMirror({
      link: link(),
      remote: input,
      gateway,
      alive: true,
      ...opts,
      namespaceExists: false,
      enableNamespaceCreation: true,
      key,
    });
    expect(created.createNamespace).toEqual({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "ns1", labels: { "mirror.linkerd.io/mirrored-service": "true", "mirror.linkerd.io/cluster-name": "east" } },
    });
    expect(created.service).not.toBeNull();
  });

  test("a Service without ports is an InvalidService problem", () => {
    const d = desiredMirror({
      link: link(),
      remote: { service: remoteService({ ports: [] }), endpoints: undefined },
      gateway,
      alive: true,
      ...opts,
      key,
    });
    expect(d.problem).toEqual({ reason: "InvalidService", message: "object spec has no exposed ports" });
    expect(d.remoteEvent?.message).toBe("Skipped mirroring service: object spec has no exposed ports");
  });

  test("a headless target is mirrored as a regular ClusterIP Service when headless support is off", () => {
    const svc = remoteService({ headless: true });
    const eps = remoteEndpoints({ ready: [{ ip: "10.0.0.1", hostname: "pod-0" }] });
    const d = desiredMirror({
      link: link(),
      remote: { service: svc, endpoints: eps },
      gateway,
      alive: true,
      ...opts,
      enableHeadlessServices: false,
      key,
    });
    expect(d.service?.spec?.clusterIP).toBeUndefined();
    expect(d.headless).toBeNull();
    expect(d.endpoints?.subsets?.[0]?.ports?.[0]?.port).toBe(888);
  });
});

describe("labels and annotations copied to mirrors", () => {
  test("labels under mirror.linkerd.io and excluded labels (exact or prefix/*) are not copied", () => {
    const labels = mirrorLabels(
      {
        "mirror.linkerd.io/exported": "true",
        "mirror.linkerd.io/federated": "member",
        app: "web",
        "argocd.argoproj.io/instance": "x",
        team: "a",
        "team.io/x": "y",
      },
      ["team", "argocd.argoproj.io/*"],
      "east",
    );
    expect(labels).toEqual({
      app: "web",
      "team.io/x": "y",
      "mirror.linkerd.io/mirrored-service": "true",
      "mirror.linkerd.io/cluster-name": "east",
    });
  });

  test("topology hints and excluded annotations are dropped, opaque ports always kept, the mirror's own added", () => {
    const a = mirrorAnnotations(
      {
        "service.kubernetes.io/topology-aware-hints": "auto",
        "service.kubernetes.io/topology-mode": "Auto",
        "config.linkerd.io/opaque-ports": "3306",
        "example.com/owner": "me",
        keep: "yes",
      },
      ["example.com/*", "config.linkerd.io/*"],
      { fqName: "web.ns.svc.cluster.local", resourceVersion: "42" },
    );
    expect(a).toEqual({
      "config.linkerd.io/opaque-ports": "3306",
      keep: "yes",
      "mirror.linkerd.io/remote-svc-fq-name": "web.ns.svc.cluster.local",
      "mirror.linkerd.io/remote-resource-version": "42",
    });
  });

  test("a wildcard matches only keys under its prefix", () => {
    expect(isExcludedKey("a.io/x", ["a.io/*"])).toBe(true);
    expect(isExcludedKey("a.iox", ["a.io/*"])).toBe(false);
    expect(isExcludedKey("a.io", ["a.io/*"])).toBe(false);
  });
});

describe("desiredMirror for headless targets", () => {
  const svc = remoteService({ headless: true });

  test("a headless target whose pods have hostnames gets a headless mirror and one endpoint mirror per ready pod (Linkerd: create headless service and endpoints)", () => {
    const eps = remoteEndpoints({
      ready: [{ ip: "10.0.0.1", hostname: "pod-0" }],
      notReady: [{ ip: "10.0.0.2", hostname: "pod-1" }],
      headless: true,
      resourceVersion: "9",
    });
    const g = { addresses: ["192.0.2.129"], port: 889, identity: "gateway-identity" };
    const d = desiredMirror({
      link: link({ cluster: "remote" }),
      remote: { service: svc, endpoints: eps },
      gateway: g,
      alive: true,
      ...opts,
      key,
    });
    expect(d.service?.spec?.clusterIP).toBe("None");
    expect(d.endpoints).toBeNull();
    const mirrors = d.headless?.endpointMirrors ?? [];
    expect(mirrors.map((m) => m.service.metadata.name)).toEqual(["pod-0-remote"]);
    const m = mirrors[0]!;
    expect(m.service.metadata.labels).toEqual({
      "mirror.linkerd.io/mirrored-service": "true",
      "mirror.linkerd.io/cluster-name": "remote",
      "mirror.linkerd.io/headless-mirror-svc-name": "service-one-remote",
    });
    expect(m.service.metadata.annotations).toEqual({
      "mirror.linkerd.io/remote-resource-version": "9",
      "mirror.linkerd.io/remote-svc-fq-name": "pod-0.service-one.ns1.svc.cluster.local",
    });
    expect(m.service.spec?.clusterIP).toBeUndefined();
    expect(m.endpoints.subsets).toEqual([
      {
        addresses: [{ ip: "192.0.2.129" }],
        ports: [
          { name: "port1", protocol: "TCP", port: 889 },
          { name: "port2", protocol: "TCP", port: 889 },
        ],
      },
    ]);
    const ep = headlessEndpoints(d.headless!, new Map([["pod-0", "10.96.0.5"]]));
    expect(ep.metadata.name).toBe("service-one-remote");
    expect(ep.subsets).toEqual([
      {
        addresses: [{ hostname: "pod-0", ip: "10.96.0.5" }],
        ports: [
          { name: "port1", protocol: "TCP", port: 555 },
          { name: "port2", protocol: "TCP", port: 666 },
        ],
      },
    ]);
  });

  test("endpoint mirrors follow liveness; the headless Endpoints are always ready", () => {
    const eps = remoteEndpoints({ ready: [{ ip: "10.0.0.1", hostname: "pod-0" }] });
    const d = desiredMirror({ link: link(), remote: { service: svc, endpoints: eps }, gateway, alive: false, ...opts, key });
    expect(d.headless?.endpointMirrors[0]?.endpoints.subsets?.[0]?.notReadyAddresses).toEqual([{ ip: "192.0.2.127" }]);
    expect(headlessEndpoints(d.headless!, new Map([["pod-0", "10.96.0.5"]])).subsets?.[0]?.addresses).toEqual([
      { hostname: "pod-0", ip: "10.96.0.5" },
    ]);
  });

  test("pods without hostnames make a regular mirror; no endpoints yet means wait, or keep the mirror's kind", () => {
    const plain = desiredMirror({
      link: link(),
      remote: { service: svc, endpoints: remoteEndpoints({ ready: ["10.0.0.1"] }) },
      gateway,
      alive: true,
      ...opts,
      key,
    });
    expect(plain.service?.spec?.clusterIP).toBeUndefined();
    expect(plain.endpoints?.subsets?.[0]?.addresses).toEqual([{ ip: "192.0.2.127" }]);
    const none = remoteEndpoints({ ready: [] });
    expect(
      desiredMirror({ link: link(), remote: { service: svc, endpoints: none }, gateway, alive: true, ...opts, key }).service,
    ).toBeNull();
    const kept = desiredMirror({
      link: link(),
      remote: { service: svc, endpoints: none },
      gateway,
      alive: true,
      ...opts,
      currentMirror: "headless",
      key,
    });
    expect(kept.service?.spec?.clusterIP).toBe("None");
    expect(kept.headless?.endpointMirrors).toEqual([]);
    expect(headlessEndpoints(kept.headless!, new Map()).subsets).toEqual([]);
  });

  test("a pod whose endpoint mirror has no cluster IP yet is left out of the headless Endpoints", () => {
    const eps = remoteEndpoints({
      ready: [
        { ip: "10.0.0.1", hostname: "pod-0" },
        { ip: "10.0.0.2", hostname: "pod-1" },
      ],
    });
    const d = desiredMirror({ link: link(), remote: { service: svc, endpoints: eps }, gateway, alive: true, ...opts, key });
    expect(headlessEndpoints(d.headless!, new Map([["pod-1", "10.96.0.6"]])).subsets?.[0]?.addresses).toEqual([
      { hostname: "pod-1", ip: "10.96.0.6" },
    ]);
  });
});

describe("desiredGatewayMirror", () => {
  test("the probe Service's Endpoints point at the gateway with the mc-probe port and are always ready", () => {
    const ep = desiredGatewayMirror(
      link(),
      { ...gateway, addresses: ["192.0.2.1", "192.0.2.2"] },
      "probe-gateway-east",
      "linkerd-multicluster",
    );
    expect(ep).toEqual({
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: {
        name: "probe-gateway-east",
        namespace: "linkerd-multicluster",
        labels: { "mirror.linkerd.io/cluster-name": "east" },
        annotations: { "mirror.linkerd.io/remote-gateway-identity": "gateway-identity" },
      },
      subsets: [{ addresses: [{ ip: "192.0.2.1" }, { ip: "192.0.2.2" }], ports: [{ name: "mc-probe", protocol: "TCP", port: 4191 }] }],
    });
  });

  test("a Link without a probe spec or a gateway has no gateway mirror", () => {
    expect(desiredGatewayMirror(link({ probe: null }), gateway, "p", "ns")).toBeNull();
    expect(desiredGatewayMirror(link(), null, "p", "ns")).toBeNull();
  });
});

describe("desiredMirror keeps what it derives from a cached target", () => {
  const freeze = <T>(v: T): T => {
    if (v && typeof v === "object") {
      for (const x of Object.values(v)) freeze(x);
      Object.freeze(v);
    }
    return v;
  };
  const make = (svc: ReturnType<typeof remoteService>, l = link()) =>
    desiredMirror({ link: l, remote: { service: svc, endpoints: remoteEndpoints() }, gateway, alive: true, ...opts, key });

  test("the same frozen target Service and Link give the same frozen labels, annotations and ports; a new target object or Link derives them again", () => {
    const l = link();
    const svc = freeze(remoteService({ labels: { ...EXPORT, lk: "lv" }, resourceVersion: "7" }));
    const a = make(svc, l);
    const b = make(svc, l);
    expect(b.service!.metadata.labels).toBe(a.service!.metadata.labels);
    expect(b.service!.spec!.ports).toBe(a.service!.spec!.ports);
    expect(Object.isFrozen(a.service!.metadata.annotations)).toBe(true);
    const changed = freeze(remoteService({ labels: { ...EXPORT, lk: "other" }, resourceVersion: "8" }));
    const c = make(changed, l);
    expect(c.service!.metadata.labels?.lk).toBe("other");
    expect(c.service!.metadata.annotations?.["mirror.linkerd.io/remote-resource-version"]).toBe("8");
    const d = make(svc, link({ cluster: "other" }));
    expect(d.service!.metadata.labels?.["mirror.linkerd.io/cluster-name"]).toBe("other");
    expect(d.service!.metadata.labels).not.toBe(a.service!.metadata.labels);
  });

  test("a target Service that is not frozen (it may change in place) is derived every time and nothing is frozen", () => {
    const svc = remoteService({ labels: { ...EXPORT, lk: "lv" } });
    const a = make(svc);
    svc.metadata.labels!.lk = "changed";
    const b = make(svc);
    expect(b.service!.metadata.labels?.lk).toBe("changed");
    expect(Object.isFrozen(a.service!.metadata.labels)).toBe(false);
  });
});
