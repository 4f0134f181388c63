// The decisions behind the checks that look at the controller and the gateway: is a Lease
// fresh, is a gateway status alive and recent, do RBAC objects grant what `mc link` renders.
// Pure: plain objects and the time in, a verdict line out.
import type { Link } from "../model/link.ts";
import { formatDuration } from "../model/duration.ts";
import { isStale, staleAfterMs } from "../model/staleness.ts";

export interface Verdict {
  ok: boolean;
  line: string;
}

export interface LeaseLike {
  spec?: { holderIdentity?: string | null; renewTime?: string | null; leaseDurationSeconds?: number | null };
}

/**
 * The controller is running when its Lease has a holder that renewed it within the lease
 * duration (docs/linkerd-compatibility.md#differences: true wherever the controller runs, in the
 * cluster or not).
 */
export function leaseVerdict(lease: LeaseLike | undefined, where: string, nowMs: number): Verdict {
  if (!lease) return { ok: false, line: `${where} not found: no controller has ever run for this link` };
  const holder = lease.spec?.holderIdentity ?? "";
  if (!holder) return { ok: false, line: `${where} has no holder: the controller stopped (it releases the Lease on exit)` };
  const durationMs = (lease.spec?.leaseDurationSeconds ?? 0) * 1000;
  const renewedMs = Date.parse(lease.spec?.renewTime ?? "");
  if (!Number.isFinite(renewedMs)) return { ok: false, line: `${where} held by ${holder} has no renewTime` };
  const ageMs = nowMs - renewedMs;
  if (ageMs > durationMs) {
    return {
      ok: false,
      line: `${where} held by ${holder} was last renewed ${formatDuration(roundSeconds(ageMs))} ago, longer than its ${formatDuration(durationMs)} duration: the controller is stuck or gone`,
    };
  }
  return { ok: true, line: `${where} held by ${holder}` };
}

export interface DeploymentLike {
  spec?: { replicas?: number };
  status?: { availableReplicas?: number };
}

/** A detail, never a failure: in-cluster controllers show up here, others (mc serve elsewhere) do not. */
export function deploymentDetail(dep: DeploymentLike | undefined, where: string): string {
  if (!dep) return `${where} not found (the controller runs elsewhere, or the link was made with --controller=false)`;
  return `${where}: ${dep.status?.availableReplicas ?? 0}/${dep.spec?.replicas ?? 1} replicas available`;
}

/** Whether the gateway behind a Link is alive according to the status its controller wrote. */
export function gatewayVerdict(link: Link, nowMs: number): Verdict & { probed: boolean } {
  const c = link.targetClusterName;
  if (!link.gateway || !link.probe) return { ok: true, probed: false, line: `${c}: no gateway to probe (a gateway-less link)` };
  const gw = link.status.gateway;
  if (!gw?.lastProbeTime)
    return { ok: false, probed: true, line: `${c}: no gateway status yet (the controller writes it after its first probe)` };
  // The same rule as `mc gateways`: older than max(3 × probe period, 30 s) says nothing about now.
  if (isStale(gw, link.probe.periodMs, nowMs)) {
    const probedMs = Date.parse(gw.lastProbeTime);
    const limit = staleAfterMs(link.probe.periodMs);
    const age = Number.isFinite(probedMs)
      ? `${formatDuration(roundSeconds(nowMs - probedMs))} ago`
      : `at ${JSON.stringify(gw.lastProbeTime)}`;
    return {
      ok: false,
      probed: true,
      line: `${c}: gateway status is stale: last probe ${age}, more than ${formatDuration(limit)} (is the controller running?)`,
    };
  }
  if (gw.alive !== true) {
    const failures = gw.consecutiveFailures ?? 0;
    const since = gw.lastTransitionTime ? ` since ${gw.lastTransitionTime}` : "";
    return {
      ok: false,
      probed: true,
      line: `${c}: gateway ${link.gateway.addresses.join(",")} is not alive${since} (${failures} failed probes in a row)`,
    };
  }
  return { ok: true, probed: true, line: `${c}: gateway alive` };
}

const roundSeconds = (ms: number) => Math.round(ms / 1000) * 1000;

// --- RBAC --------------------------------------------------------------------------------------

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
}

/** The permissions of `want` that no rule of `have` grants, as `verb group/resource[/name]`. */
export function missingPermissions(want: readonly PolicyRule[], have: readonly PolicyRule[]): string[] {
  const missing: string[] = [];
  for (const rule of want) {
    for (const group of rule.apiGroups ?? [""]) {
      for (const resource of rule.resources ?? []) {
        for (const verb of rule.verbs ?? []) {
          const names = rule.resourceNames?.length ? rule.resourceNames : [undefined];
          for (const name of names) {
            if (!have.some((h) => grants(h, group, resource, verb, name))) {
              missing.push(`${verb} ${group ? `${group}/` : ""}${resource}${name ? `/${name}` : ""}`);
            }
          }
        }
      }
    }
  }
  return missing;
}

function grants(rule: PolicyRule, group: string, resource: string, verb: string, name: string | undefined): boolean {
  const has = (list: string[] | undefined, x: string) => (list ?? []).includes("*") || (list ?? []).includes(x);
  if (!has(rule.apiGroups, group) || !has(rule.resources, resource) || !has(rule.verbs, verb)) return false;
  if (!rule.resourceNames?.length) return true;
  return name !== undefined && rule.resourceNames.includes(name);
}

export interface BindingLike {
  roleRef?: { kind?: string; name?: string };
  subjects?: { kind?: string; name?: string; namespace?: string }[];
}

/** What is wrong with a binding compared to the one `mc link` renders; "" when nothing. */
export function bindingProblem(want: BindingLike, have: BindingLike): string {
  if (have.roleRef?.kind !== want.roleRef?.kind || have.roleRef?.name !== want.roleRef?.name) {
    const bound = have.roleRef?.name ? `${have.roleRef.kind ?? ""} ${have.roleRef.name}` : "nothing";
    return `binds ${bound}, want ${want.roleRef?.kind} ${want.roleRef?.name}`;
  }
  for (const s of want.subjects ?? []) {
    const found = (have.subjects ?? []).some((h) => h.kind === s.kind && h.name === s.name && (h.namespace ?? "") === (s.namespace ?? ""));
    if (!found) return `does not bind ${s.kind} ${s.namespace}/${s.name}`;
  }
  return "";
}
