// kube-apiserver's validation of the addresses in Endpoints (core/validation validateEndpointAddress) and EndpointSlices
// (discovery/validation validateEndpoints): a valid IP, and not one of the addresses ValidateEndpointIP refuses (unspecified, loopback,
// link-local, link-local multicast), each problem a 422 field error with kube's own words. Other fields are the schema's business.
import { endpointIpProblems, ipBytes } from "../../lib/endpoint-ip.ts";
import type { KubeObject } from "../types.ts";
import { formatValue, invalidError, type FieldProblem } from "./errors.ts";

const invalid = (field: string, value: string, detail: string): FieldProblem => ({
  field,
  reason: "FieldValueInvalid",
  message: `Invalid value: ${formatValue(value)}: ${detail}`,
});

interface Subset {
  addresses?: { ip?: string }[] | null;
  notReadyAddresses?: { ip?: string }[] | null;
}

/** An Endpoints address: IsValidIPForLegacyField (strict), then ValidateEndpointIP (v1.37.2 names a non-IP twice). */
function endpointsAddress(field: string, ip: string): FieldProblem[] {
  if (!ipBytes(ip))
    return [
      invalid(field, ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"),
      invalid(field, ip, "must be a valid IP address"),
    ];
  if (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(ip)) return [invalid(field, ip, "must not be an IPv4-mapped IPv6 address")];
  return endpointIpProblems(ip).map((m) => invalid(field, ip, m));
}

function endpointsProblems(obj: KubeObject): FieldProblem[] {
  const subsets = ((obj as { subsets?: Subset[] | null }).subsets ?? []) as Subset[];
  return subsets.flatMap((ss, i) =>
    (["addresses", "notReadyAddresses"] as const).flatMap((list) =>
      (ss?.[list] ?? []).flatMap((a, j) => endpointsAddress(`subsets[${i}].${list}[${j}].ip`, a?.ip ?? "")),
    ),
  );
}

/** An EndpointSlice address of type IPv4 or IPv6: IsValidIPv4Address / IsValidIPv6Address, then ValidateEndpointIP (FQDN is left to its own rules). */
function endpointSliceProblems(obj: KubeObject): FieldProblem[] {
  const slice = obj as { addressType?: string; endpoints?: { addresses?: string[] | null }[] | null };
  const type = slice.addressType;
  if (type !== "IPv4" && type !== "IPv6") return [];
  return (slice.endpoints ?? []).flatMap((ep, i) =>
    (ep?.addresses ?? []).flatMap((address, j) => {
      const field = `endpoints[${i}].addresses[${j}]`;
      const b = ipBytes(address);
      const v4 = b !== undefined && /^\d+\.\d+\.\d+\.\d+$/.test(address);
      // v1.37.2: an IP of the other family is named on the list (no index), and is otherwise not checked.
      if (b && v4 !== (type === "IPv4")) return [invalid(`endpoints[${i}].addresses`, address, `must be an ${type} address`)];
      const family = b ? [] : [invalid(field, address, `must be a valid ${type} address`)];
      return [...family, ...endpointIpProblems(address).map((m) => invalid(field, address, m))];
    }),
  );
}

/** Throws kube's 422 for an Endpoints or EndpointSlice with addresses kube refuses. */
export function validateEndpointAddresses(obj: KubeObject): void {
  const problems = obj.kind === "Endpoints" ? endpointsProblems(obj) : obj.kind === "EndpointSlice" ? endpointSliceProblems(obj) : [];
  if (problems.length > 0) throw invalidError(obj, problems);
}
