// Gateway addresses and ports as users and Links write them. Pure.
import { isIP } from "node:net";
import { endpointIpProblems } from "../lib/endpoint-ip.ts";
import { isDns1123Subdomain } from "./names.ts";

/** An IPv4/IPv6 literal or a DNS hostname (what a load balancer reports, e.g. EKS). */
export function isAddress(text: string): boolean {
  return isIP(text) !== 0 || isDns1123Subdomain(text.toLowerCase());
}

/** Splits `a,b , c` into trimmed entries; empty entries are kept (as "") so callers can reject them. */
export function splitList(text: string): string[] {
  return text.split(",").map((s) => s.trim());
}

/** A port number 1–65535 written as decimal digits; undefined otherwise. */
export function parsePort(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 && n <= 65535 ? n : undefined;
}

/**
 * Why a gateway address can never be a mirror's endpoint, or undefined when it can: an IP that
 * Kubernetes refuses in Endpoints and EndpointSlices (unspecified, loopback, link-local, link-local
 * multicast; its own words). Hostnames are resolved later and pass here.
 */
export function unusableGatewayAddress(address: string): string | undefined {
  if (isIP(address) === 0) return undefined;
  const [problem] = endpointIpProblems(address);
  return (
    problem &&
    `${JSON.stringify(address)} ${problem}: Kubernetes refuses it in Endpoints, so no mirror could point at it; give an address other clusters reach the gateway at`
  );
}
