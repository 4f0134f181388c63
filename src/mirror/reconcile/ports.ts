// Ports and subsets of mirrors: a mirror Service keeps each port's name, protocol, port and
// targetPort; its Endpoints carry the same names and protocols with the gateway's port. Pure.
import type { EndpointPort, EndpointSubset, ResolvedGateway, ServicePort } from "../types.ts";

/** A mirror's ports: name, protocol, port and targetPort only (nodePort, appProtocol dropped). */
export function mirrorPorts(ports: readonly ServicePort[] | undefined): ServicePort[] {
  return (ports ?? []).map((p) => ({
    ...(p.name && { name: p.name }),
    protocol: p.protocol ?? "TCP",
    port: p.port,
    ...(p.targetPort !== undefined && { targetPort: p.targetPort }),
  }));
}

/** One Endpoints port per service port: same name and protocol, the gateway's port number. */
export function gatewayPorts(ports: readonly ServicePort[] | undefined, gatewayPort: number): EndpointPort[] {
  return (ports ?? []).map((p) => ({ ...(p.name && { name: p.name }), protocol: p.protocol ?? "TCP", port: gatewayPort }));
}

/** The gateway subset: its addresses, ready or (gateway not alive) not ready; none without addresses. */
export function gatewaySubsets(gateway: ResolvedGateway, ports: EndpointPort[], alive: boolean): EndpointSubset[] {
  if (gateway.addresses.length === 0) return [];
  const addresses = gateway.addresses.map((ip) => ({ ip }));
  return [{ [alive ? "addresses" : "notReadyAddresses"]: addresses, ports }];
}
