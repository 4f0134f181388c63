// Which IP addresses kube-apiserver takes in Endpoints and EndpointSlices: its ValidateEndpointIP (k8s.io/kubernetes
// pkg/apis/core/validation) refuses the unspecified address, loopback, link-local unicast and link-local multicast, with these exact
// messages. Both sides use it: the sandbox to answer 422 as kube does, mc to refuse such a gateway address where it enters. Pure.

/** Dotted-quad IPv4 (no leading zeros, as Go's net.ParseIP) as 4 bytes. */
function ipv4Bytes(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
}

/** IPv6 (with `::` and a trailing dotted quad) as 16 bytes. */
function ipv6Bytes(text: string): number[] | undefined {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const words = (part: string): number[] | undefined => {
    if (part === "") return [];
    const out: number[] = [];
    const groups = part.split(":");
    for (const [i, g] of groups.entries()) {
      if (i === groups.length - 1 && g.includes(".")) {
        const v4 = ipv4Bytes(g);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(g)) out.push(parseInt(g, 16));
      else return undefined;
    }
    return out;
  };
  const left = words(halves[0]!);
  const right = halves.length === 2 ? words(halves[1]!) : [];
  if (!left || !right) return undefined;
  const fill = 8 - left.length - right.length;
  if (halves.length === 2 ? fill < 1 : fill !== 0) return undefined;
  return [...left, ...Array<number>(fill).fill(0), ...right].flatMap((w) => [w >> 8, w & 0xff]);
}

/** The address as 16 bytes (IPv4 as IPv4-mapped IPv6, as Go's net.IP holds it), or undefined when it is no IP. */
export function ipBytes(text: string): number[] | undefined {
  const v4 = ipv4Bytes(text);
  if (v4) return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4];
  return text.includes(":") ? ipv6Bytes(text) : undefined;
}

const isV4Mapped = (b: number[]) => b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;

/**
 * kube's problems with `text` as an endpoint address (none for an address it takes), in its order:
 * not an IP; unspecified; loopback; link-local; link-local multicast.
 */
export function endpointIpProblems(text: string): string[] {
  const b = ipBytes(text);
  if (!b) return ["must be a valid IP address"];
  const problems: string[] = [];
  const v4 = isV4Mapped(b);
  const [a0 = 0, a1 = 0, a2 = 0] = v4 ? b.slice(12) : [];
  if (v4 ? b.slice(12).every((x) => x === 0) : b.every((x) => x === 0)) problems.push(`may not be unspecified (${text})`);
  if (v4 ? a0 === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1)
    problems.push("may not be in the loopback range (127.0.0.0/8, ::1/128)");
  if (v4 ? a0 === 169 && a1 === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80)
    problems.push("may not be in the link-local range (169.254.0.0/16, fe80::/10)");
  if (v4 ? a0 === 224 && a1 === 0 && a2 === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02)
    problems.push("may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)");
  return problems;
}
