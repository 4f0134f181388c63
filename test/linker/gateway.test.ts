// What mc link takes from the gateway Service, and the one-line errors when it cannot.
import { describe, expect, test } from "bun:test";
import { gatewayFromService, ingressAddresses, type GatewayServiceLike } from "../../src/linker/gateway.ts";

const WHERE = "gateway Service linkerd-multicluster/linkerd-gateway on east";

function gatewayService(
  o: {
    type?: string;
    annotations?: Record<string, string>;
    ingress?: Array<{ ip?: string; hostname?: string }>;
    ports?: Array<{ name: string; port: number; nodePort?: number }>;
  } = {},
): GatewayServiceLike {
  return {
    metadata: {
      name: "linkerd-gateway",
      namespace: "linkerd-multicluster",
      annotations: o.annotations ?? {
        "mirror.linkerd.io/gateway-identity": "linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.cluster.local",
        "mirror.linkerd.io/probe-path": "/ready",
        "mirror.linkerd.io/probe-period": "3",
      },
    },
    spec: {
      type: o.type ?? "LoadBalancer",
      ports: o.ports ?? [
        { name: "mc-gateway", port: 4143, nodePort: 30143 },
        { name: "mc-probe", port: 4191, nodePort: 30191 },
      ],
    },
    status: { loadBalancer: { ingress: o.ingress ?? [{ ip: "203.0.113.10" }] } },
  };
}

describe("gatewayFromService", () => {
  test("a LoadBalancer gateway gives its ingress IPs, Service ports, identity and probe", () => {
    expect(gatewayFromService(gatewayService(), {}, WHERE)).toEqual({
      addresses: ["203.0.113.10"],
      port: 4143,
      identity: "linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.cluster.local",
      probe: { path: "/ready", port: 4191, periodMs: 3000 },
    });
  });

  test("hostnames are used where the load balancer reports no IP (EKS), duplicates dropped", () => {
    const svc = gatewayService({ ingress: [{ hostname: "gw.elb.example.com" }, { ip: "203.0.113.10" }, { ip: "203.0.113.10" }] });
    expect(ingressAddresses(svc)).toEqual(["gw.elb.example.com", "203.0.113.10"]);
  });

  test("a NodePort gateway gives its nodePorts", () => {
    const gw = gatewayFromService(gatewayService({ type: "NodePort", ingress: [] }), { addresses: ["192.0.2.11"] }, WHERE);
    expect([gw.addresses, gw.port, gw.probe.port]).toEqual([["192.0.2.11"], 30143, 30191]);
  });

  test("--gateway-addresses and --gateway-port win over the Service", () => {
    const gw = gatewayFromService(gatewayService(), { addresses: ["gw.example.com"], port: 443 }, WHERE);
    expect([gw.addresses, gw.port]).toEqual([["gw.example.com"], 443]);
  });

  test("a duration probe period is accepted as well as seconds", () => {
    const svc = gatewayService({
      annotations: {
        "mirror.linkerd.io/gateway-identity": "x",
        "mirror.linkerd.io/probe-path": "/ready",
        "mirror.linkerd.io/probe-period": "1m",
      },
    });
    expect(gatewayFromService(svc, {}, WHERE).probe.periodMs).toBe(60_000);
  });
});

describe("gatewayFromService errors name the Service and the fix", () => {
  const annotations = (drop: string, extra: Record<string, string> = {}) => {
    const all: Record<string, string> = {
      "mirror.linkerd.io/gateway-identity": "id",
      "mirror.linkerd.io/probe-path": "/ready",
      "mirror.linkerd.io/probe-period": "3",
      ...extra,
    };
    delete all[drop];
    return all;
  };
  test.each<[string, GatewayServiceLike, string]>([
    [
      "no ingress yet",
      gatewayService({ ingress: [] }),
      `${WHERE} has no load-balancer ingress address yet: wait for the load balancer, or pass --gateway-addresses`,
    ],
    [
      "NodePort without addresses",
      gatewayService({ type: "NodePort", ingress: [] }),
      `${WHERE} is of type NodePort, which has no ingress address: pass --gateway-addresses with addresses the source can reach (node IPs)`,
    ],
    [
      "ClusterIP without addresses",
      gatewayService({ type: "ClusterIP", ingress: [] }),
      `${WHERE} is of type ClusterIP, which has no ingress address: pass --gateway-addresses with addresses the source can reach`,
    ],
    [
      "a loopback load-balancer address (a real API server refuses it in Endpoints)",
      gatewayService({ ingress: [{ ip: "127.0.0.1" }] }),
      `${WHERE}: its load-balancer address "127.0.0.1" may not be in the loopback range (127.0.0.0/8, ::1/128): Kubernetes refuses it in Endpoints, so no mirror could point at it; give an address other clusters reach the gateway at (pass --gateway-addresses)`,
    ],
    [
      "no identity",
      gatewayService({ annotations: annotations("mirror.linkerd.io/gateway-identity") }),
      `${WHERE} has no mirror.linkerd.io/gateway-identity annotation: re-run mc install on the target`,
    ],
    [
      "no probe path",
      gatewayService({ annotations: annotations("mirror.linkerd.io/probe-path") }),
      `${WHERE} has no mirror.linkerd.io/probe-path annotation: re-run mc install on the target`,
    ],
    [
      "no probe period",
      gatewayService({ annotations: annotations("mirror.linkerd.io/probe-period") }),
      `${WHERE} has no mirror.linkerd.io/probe-period annotation: re-run mc install on the target`,
    ],
    [
      "bad probe period",
      gatewayService({ annotations: annotations("", { "mirror.linkerd.io/probe-period": "often" }) }),
      `${WHERE} annotation mirror.linkerd.io/probe-period is "often": want seconds ("3") or a Go duration ("3s") of at least 1s and at most 1h; fix the annotation or re-run mc install --gateway-probe-seconds`,
    ],
    [
      "a probe period under 1s",
      gatewayService({ annotations: annotations("", { "mirror.linkerd.io/probe-period": "10ms" }) }),
      `${WHERE} annotation mirror.linkerd.io/probe-period is "10ms": want seconds ("3") or a Go duration ("3s") of at least 1s and at most 1h; fix the annotation or re-run mc install --gateway-probe-seconds`,
    ],
    [
      "a probe period over 1h (a timer would overflow)",
      gatewayService({ annotations: annotations("", { "mirror.linkerd.io/probe-period": "3601" }) }),
      `${WHERE} annotation mirror.linkerd.io/probe-period is "3601": want seconds ("3") or a Go duration ("3s") of at least 1s and at most 1h; fix the annotation or re-run mc install --gateway-probe-seconds`,
    ],
    [
      "no mc-gateway port",
      gatewayService({ ports: [{ name: "mc-probe", port: 4191 }] }),
      `${WHERE} has no port named mc-gateway: re-run mc install on the target`,
    ],
    [
      "no mc-probe port",
      gatewayService({ ports: [{ name: "mc-gateway", port: 4143 }] }),
      `${WHERE} has no port named mc-probe: re-run mc install on the target`,
    ],
    [
      "NodePort without nodePort",
      gatewayService({
        type: "NodePort",
        ports: [
          { name: "mc-gateway", port: 4143 },
          { name: "mc-probe", port: 4191 },
        ],
      }),
      `${WHERE} is a NodePort Service but port mc-gateway has no nodePort yet: retry, or pass --gateway-port`,
    ],
  ])("%s", (_, svc, message) => {
    const overrides = svc.spec?.type === "NodePort" && message.includes("nodePort yet") ? { addresses: ["192.0.2.1"] } : {};
    expect(() => gatewayFromService(svc, overrides, WHERE)).toThrow(message);
  });
});
