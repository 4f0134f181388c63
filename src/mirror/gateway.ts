// Gateway addresses: `spec.gatewayAddress` entries are IPs or hostnames; hostnames resolve to all their addresses
// (docs/linkerd-compatibility.md#gateway-resolution), and the result is sorted so that a re-resolution that finds the same set changes
// nothing. The resolver is injected (tests change addresses at will).
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { formatError } from "../errors.ts";
import type { Logger } from "../log.ts";

/** All addresses of a hostname (A and AAAA). */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true })).map((a) => a.address);

export interface Resolution {
  /** Distinct IPs, sorted by their string form (Linkerd's order). */
  addresses: string[];
  /** Entries that did not resolve, with why. */
  failures: Array<{ entry: string; error: string }>;
}

export async function resolveGatewayAddresses(entries: readonly string[], resolve: Resolver): Promise<Resolution> {
  const failures: Resolution["failures"] = [];
  const found = await Promise.all(
    entries.map(async (entry) => {
      if (isIP(entry)) return [entry];
      try {
        const ips = (await resolve(entry)).filter((ip) => isIP(ip) !== 0);
        if (ips.length === 0) failures.push({ entry, error: "no addresses" });
        return ips;
      } catch (err) {
        failures.push({ entry, error: formatError(err) });
        return [];
      }
    }),
  );
  return { addresses: [...new Set(found.flat())].sort(), failures };
}

/** `host:port`, IPv6 hosts bracketed. */
export function hostPort(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The gateway's current addresses, re-resolved on demand. Logs transitions only (a lookup
 * starts failing, resolves again, the address set changes); when nothing resolves it keeps the
 * last addresses that did, so a DNS hiccup does not empty every mirror's Endpoints.
 */
export class GatewayAddresses {
  private ips: string[] = [];
  private failing = false;
  private resolvedOnce = false;

  constructor(
    private readonly entries: readonly string[],
    private readonly resolve: Resolver,
    private readonly cluster: string,
    private readonly log: Logger,
  ) {}

  get addresses(): string[] {
    return this.ips;
  }

  /** Whether the last resolution had failures (the caller retries sooner). */
  get isFailing(): boolean {
    return this.failing;
  }

  /** Resolves again; true when the addresses changed. */
  async refresh(): Promise<boolean> {
    const r = await resolveGatewayAddresses(this.entries, this.resolve);
    const failing = r.failures.length > 0;
    if (failing && !this.failing)
      for (const f of r.failures) this.log.warn(`cannot resolve gateway address ${f.entry} of ${this.cluster}: ${f.error}`);
    if (!failing && this.failing) this.log.info(`gateway addresses of ${this.cluster} resolve again`);
    this.failing = failing;
    if (r.addresses.length === 0 && this.ips.length > 0) return false;
    if (r.addresses.join(",") === this.ips.join(",")) return false;
    if (this.resolvedOnce) this.log.info(`gateway of ${this.cluster} is now at ${r.addresses.join(", ") || "no address"}`);
    this.resolvedOnce = true;
    this.ips = r.addresses;
    return true;
  }
}
