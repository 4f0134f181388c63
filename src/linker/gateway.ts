// What `mc link` takes from the target's gateway Service (docs/linkerd-compatibility.md#link-reads): addresses (load balancer ingress, or
import { UserError } from "../errors.ts";
import { DurationError, formatDuration, parseDuration, shortDuration } from "../model/duration.ts";
import { MAX_PROBE_PERIOD_MS, MIN_PROBE_PERIOD_MS } from "../model/limits.ts";
import { unusableGatewayAddress } from "../model/address.ts";
import { GATEWAY_IDENTITY, PROBE_PATH, PROBE_PERIOD } from "../model/labels.ts";
import { GATEWAY_PORT_NAME, PROBE_PORT_NAME } from "../model/names.ts";
import type { LinkGateway } from "../manifests/link-bundle.ts";

// --gateway-addresses), the mc-gateway and mc-probe ports (their nodePorts for a NodePort Service),
// the identity, probe path and period annotations. Pure.

export interface GatewayServiceLike {
  metadata: { name?: string; namespace?: string; annotations?: Record<string, string> };
  spec?: { type?: string; ports?: Array<{ name?: string; port?: number; nodePort?: number }> };
  status?: { loadBalancer?: { ingress?: Array<{ ip?: string; hostname?: string }> } };
}

export interface GatewayOverrides {
  /** `--gateway-addresses`: wins over the load balancer's. */
  addresses?: string[];
  /** `--gateway-port`: wins over the Service's. */
  port?: number;
}

/** `where` names the Service in errors: `gateway Service linkerd-multicluster/linkerd-gateway on east`. */
export function gatewayFromService(svc: GatewayServiceLike, overrides: GatewayOverrides, where: string): LinkGateway {
  const type = svc.spec?.type ?? "ClusterIP";
  const annotations = svc.metadata.annotations ?? {};
  const addresses = overrides.addresses?.length ? overrides.addresses : ingressAddresses(svc);
  if (addresses.length === 0) {
    const why =
      type === "LoadBalancer"
        ? "has no load-balancer ingress address yet: wait for the load balancer, or pass --gateway-addresses"
        : `is of type ${type}, which has no ingress address: pass --gateway-addresses with addresses the source can reach${type === "NodePort" ? " (node IPs)" : ""}`;
    throw new UserError(`${where} ${why}`);
  }
  const unusable = overrides.addresses?.length ? undefined : addresses.map(unusableGatewayAddress).find((m) => m !== undefined);
  if (unusable) throw new UserError(`${where}: its load-balancer address ${unusable} (pass --gateway-addresses)`);
  const identity = annotations[GATEWAY_IDENTITY] ?? "";
  if (identity === "") throw new UserError(`${where} has no ${GATEWAY_IDENTITY} annotation: re-run mc install on the target`);
  const path = annotations[PROBE_PATH] ?? "";
  if (path === "") throw new UserError(`${where} has no ${PROBE_PATH} annotation: re-run mc install on the target`);
  return {
    addresses,
    port: overrides.port ?? portOf(svc, GATEWAY_PORT_NAME, type, where),
    identity,
    probe: { path, port: portOf(svc, PROBE_PORT_NAME, type, where), periodMs: probePeriodMs(annotations[PROBE_PERIOD], where) },
  };
}

/** IPs, else hostnames, of the load balancer, in the order reported; duplicates dropped. */
export function ingressAddresses(svc: GatewayServiceLike): string[] {
  const out: string[] = [];
  for (const ingress of svc.status?.loadBalancer?.ingress ?? []) {
    const address = ingress.ip || ingress.hostname || "";
    if (address && !out.includes(address)) out.push(address);
  }
  return out;
}

function portOf(svc: GatewayServiceLike, name: string, type: string, where: string): number {
  const port = svc.spec?.ports?.find((p) => p.name === name);
  if (!port) throw new UserError(`${where} has no port named ${name}: re-run mc install on the target`);
  const n = type === "NodePort" ? port.nodePort : port.port;
  if (!n) throw new UserError(`${where} is a NodePort Service but port ${name} has no nodePort yet: retry, or pass --gateway-port`);
  return n;
}

/** The probe-period annotation: whole seconds (`"3"`, what mc install writes) or a Go duration, 1s to 1h. */
function probePeriodMs(value: string | undefined, where: string): number {
  const fix = `want seconds ("3") or a Go duration ("3s") of at least ${formatDuration(MIN_PROBE_PERIOD_MS)} and at most ${shortDuration(MAX_PROBE_PERIOD_MS)}; fix the annotation or re-run mc install --gateway-probe-seconds`;
  if (value === undefined || value === "")
    throw new UserError(`${where} has no ${PROBE_PERIOD} annotation: re-run mc install on the target`);
  const within = (ms: number) => ms >= MIN_PROBE_PERIOD_MS && ms <= MAX_PROBE_PERIOD_MS;
  if (/^\d+$/.test(value) && within(Number(value) * 1000)) return Number(value) * 1000;
  try {
    const ms = parseDuration(value);
    if (within(ms)) return ms;
  } catch (err) {
    if (!(err instanceof DurationError)) throw err;
  }
  throw new UserError(`${where} annotation ${PROBE_PERIOD} is ${JSON.stringify(value)}: ${fix}`);
}
