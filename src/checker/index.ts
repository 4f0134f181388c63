// `mc check`: the multicluster checks in the order they run (docs/linkerd-compatibility.md#check,
// stable-2.9's order: what a later check builds on comes first), and one call that connects and
// runs them.
import { connect } from "../kube/index.ts";
import { createCheckContext, type CheckContext } from "./context.ts";
import { linkCrdExists, linksAreValid, linksSelectServices, linksTargetOwnClusters } from "./checks/links.ts";
import { controllerRbac, controllerRunning, gatewaysAlive, probeTimeouts } from "./checks/controller.ts";
import { federatedMembers, mirrorEndpoints, mirrorNameConflicts, mirrorOrphans, mirrorsInSync } from "./checks/mirrors.ts";
import { mcsExports, mcsImports } from "./checks/mcs.ts";
import { remoteAccess, trustAnchors } from "./checks/remote.ts";
import { runChecks, type RunOptions } from "./runner.ts";
import type { Check, CheckReport, CheckResult } from "./types.ts";

export const multiclusterChecks: readonly Check<CheckContext>[] = [
  linkCrdExists,
  linksAreValid,
  linksTargetOwnClusters,
  remoteAccess,
  trustAnchors,
  controllerRbac,
  controllerRunning,
  gatewaysAlive,
  probeTimeouts,
  mirrorEndpoints,
  mirrorOrphans,
  mirrorsInSync,
  mirrorNameConflicts,
  federatedMembers,
  linksSelectServices,
  mcsImports,
  mcsExports,
];

export interface CheckOptions {
  kubeconfig?: string;
  context?: string;
  linkerdNamespace: string;
  /** Per-request timeout, source and targets. */
  timeoutMs: number;
  /** How long failing retryable checks are retried; 0 = no retries. */
  waitMs: number;
  onResult?: (result: CheckResult) => void;
  onRetry?: RunOptions["onRetry"];
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export async function checkMulticluster(o: CheckOptions): Promise<CheckReport> {
  const local = await connect({ kubeconfig: o.kubeconfig, context: o.context, timeoutMs: o.timeoutMs });
  const now = o.now ?? Date.now;
  const ctx = createCheckContext({ local, linkerdNamespace: o.linkerdNamespace, timeoutMs: o.timeoutMs, now });
  return runChecks(multiclusterChecks, ctx, {
    onResult: o.onResult,
    onRetry: o.onRetry,
    ...(o.waitMs > 0 && { deadline: now() + o.waitMs }),
    now,
    sleep: o.sleep,
  });
}

export type { CheckContext } from "./context.ts";
export type { Check, CheckReport } from "./types.ts";
export { renderHeader, renderJson, renderResult, renderSummary } from "./render.ts";
