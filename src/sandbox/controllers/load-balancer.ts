// The cloud's service controller (k3s's servicelb, say): a LoadBalancer Service with no ingress address gets one, 192.0.2.1 (TEST-NET-1,
// RFC 5737: documentation only, routed nowhere). Data, never dialled: a real API server refuses loopback addresses in Endpoints, so a
// gateway at
import type { KubeObject } from "../types.ts";
import type { Controller } from "./controller.ts";

// 127.0.0.1 could not be mirrored; whoever stands in for the gateway answers on loopback and is
// reached through an explicit probe address (`mc serve --probe-address`). Only when it has none:
// a client's later status write (a hostname, as AWS gives) stays, and so does any address already there.

const LOAD_BALANCER_INGRESS = { ip: "192.0.2.1", ipMode: "VIP" } as const;

interface ServiceStatus {
  loadBalancer?: { ingress?: unknown[] };
  [k: string]: unknown;
}

/** Gives a LoadBalancer Service its ingress address when it has none. Mutates `svc`. */
function assignIngress(svc: KubeObject): void {
  if ((svc.spec as { type?: string } | undefined)?.type !== "LoadBalancer") return;
  const status = (svc.status as ServiceStatus | undefined) ?? {};
  if ((status.loadBalancer?.ingress ?? []).length > 0) return;
  svc.status = { ...status, loadBalancer: { ...status.loadBalancer, ingress: [{ ...LOAD_BALANCER_INGRESS }] } };
}

export function loadBalancers(): Controller {
  return {
    admit(type, svc) {
      if (type.group === "" && type.kind === "Service") assignIngress(svc);
    },
  };
}
