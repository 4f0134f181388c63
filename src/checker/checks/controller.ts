// Checks 5–7: each link's controller has its RBAC, holds a fresh Lease, and reports its gateway alive in the Link's status; and (a warning)
// a gateway that hangs is noticed in time.
import { formatError } from "../../errors.ts";
import { resources, type KubeObject } from "../../kube/index.ts";
import { describeRef, linkObjects, refOf, resourceOf } from "../../linker/owned.ts";
import type { Manifest } from "../../manifests/meta.ts";
import { renderInstallControllers } from "../../manifests/install-controllers.ts";
import { renderSharedController } from "../../manifests/shared-controller.ts";
import { LOCAL_MCS_RULES } from "../../manifests/service-mirror.ts";
import type { Link } from "../../model/link.ts";
import { formatDuration } from "../../model/duration.ts";
import { FAST_FAILURE_DETECTION_FLAG, MIRROR_ENDPOINT_SLICES_FLAG, NAMESPACE_CREATION_FLAG } from "../../model/mirror-settings.ts";
import { installControllerName, leaseName, serviceMirrorName, SHARED_CONTROLLER_NAME } from "../../model/names.ts";
import { getOrUndefined, rereadLinks, type CheckContext } from "../context.ts";
import type { Check } from "../types.ts";
import {
  bindingProblem,
  deploymentDetail,
  gatewayVerdict,
  leaseVerdict,
  missingPermissions,
  type BindingLike,
  type DeploymentLike,
  type LeaseLike,
  type PolicyRule,
} from "../verdicts.ts";

// A controller is of one of three kinds, and the checks say which: made by `mc link`
// (linkerd-service-mirror-<c>), rendered by the install as Linkerd 2.18's chart does (`mc install
// --controllers`, controller-<c>), or the shared one (`--shared-controller`).

const RBAC_KINDS = new Set(["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "ServiceAccount"]);

/** What differs between the rendered RBAC and the cluster's: problems fail the check; notes (optional grants missing) do not. */
interface RbacReview {
  problems: string[];
  notes: string[];
}

type DeploymentArgs = KubeObject & { spec?: { template?: { spec?: { containers?: { args?: string[] }[] } } } };

/** What the controller Deployment `name` runs with that widens its ClusterRole (a Deployment that cannot be read asks nothing more: the running check reports it). */
interface Grants {
  /** `--enable-namespace-creation`: namespaces create. */
  namespaceCreation: boolean;
  /** `--mirror-endpoint-slices`: endpointslices, as its Endpoints. */
  endpointSlices: boolean;
}

async function grantsOf(ctx: CheckContext, namespace: string, name: string): Promise<Grants> {
  const d = await ctx.local.get<DeploymentArgs>(resources.deployment, namespace, name).catch(() => undefined);
  const args = d?.spec?.template?.spec?.containers?.flatMap((c) => c.args ?? []) ?? [];
  return { namespaceCreation: args.includes(NAMESPACE_CREATION_FLAG), endpointSlices: args.includes(MIRROR_ENDPOINT_SLICES_FLAG) };
}

/** The RBAC objects `mc link` renders for this link (as its Deployment runs), compared with what the cluster has. */
async function rbacReview(ctx: CheckContext, link: Link): Promise<RbacReview> {
  const grants = await grantsOf(ctx, link.namespace, serviceMirrorName(link.targetClusterName));
  const wanted = linkObjects({
    clusterName: link.targetClusterName,
    namespace: link.namespace,
    linkerdNamespace: ctx.linkerdNamespace,
    ...grants,
  }).map((o) => o.manifest);
  return review(ctx, wanted);
}

const anyController = (g: Grants) => ({
  image: "",
  logLevel: "info",
  logFormat: "plain" as const,
  ha: false,
  settings: { enableNamespaceCreation: g.namespaceCreation, mirrorEndpointSlices: g.endpointSlices },
});

/** The RBAC objects `mc install --controllers <c>` renders for this link, compared with what the cluster has. */
async function installRbacReview(ctx: CheckContext, link: Link): Promise<RbacReview> {
  const controller = anyController(await grantsOf(ctx, link.namespace, installControllerName(link.targetClusterName)));
  return review(
    ctx,
    renderInstallControllers({
      controllers: [{ clusterName: link.targetClusterName, controller, probePort: null }],
      namespace: link.namespace,
      version: "0",
    }),
  );
}

/** How each kind of controller is named in check lines. */
const KIND = {
  link: (c: string) => `${serviceMirrorName(c)}, made by mc link`,
  install: (c: string) => `${installControllerName(c)}, rendered by the install (mc install --controllers)`,
  shared: () => `served by the shared controller ${SHARED_CONTROLLER_NAME}`,
};

/** The RBAC objects of the shared controller in the Link's namespace, compared with what the cluster has. */
async function sharedRbacReview(ctx: CheckContext, link: Link): Promise<RbacReview> {
  const controller = anyController(await grantsOf(ctx, link.namespace, SHARED_CONTROLLER_NAME));
  return review(ctx, renderSharedController({ controller, namespace: link.namespace, version: "0" }));
}

async function review(ctx: CheckContext, rendered: Manifest[]): Promise<RbacReview> {
  const wanted = rendered.filter((m) => RBAC_KINDS.has(m.kind));
  const found = await Promise.all(
    wanted.map(async (want) => {
      const ref = refOf(want);
      const have = await getOrUndefined(
        ctx.local.get<KubeObject>(resourceOf({ ...ref, namespaced: ref.namespace !== undefined }), ref.namespace, ref.name),
      );
      return have ? objectReview(want, have) : { problem: `${describeRef(ref)} is missing`, note: "" };
    }),
  );
  return { problems: found.map((f) => f.problem).filter((p) => p !== ""), notes: found.map((f) => f.note).filter((n) => n !== "") };
}

/**
 * A rule the controller can do without: Events, which it records best effort (a denied one is
 * logged at debug and mirroring goes on). Linkerd's link chart grants none, and `mc serve` under
 * it is never stopped by a 403, so a missing one is a note, not a failure.
 */
const isEvents = (rule: PolicyRule) => (rule.resources ?? []).length > 0 && (rule.resources ?? []).every((r) => r === "events");
/** The Multi-Cluster Services import's rules: without them the import is off and mirroring goes on. */
const isMcs = (rule: PolicyRule) =>
  LOCAL_MCS_RULES.some(
    (m) =>
      JSON.stringify(m.apiGroups) === JSON.stringify(rule.apiGroups) &&
      JSON.stringify(m.resources) === JSON.stringify(rule.resources) &&
      JSON.stringify(m.verbs) === JSON.stringify(rule.verbs),
  );
const isOptional = (rule: PolicyRule) => isEvents(rule) || isMcs(rule);

function objectReview(want: Manifest, have: KubeObject): { problem: string; note: string } {
  const what = describeRef(refOf(want));
  if (want.kind === "ClusterRole" || want.kind === "Role") {
    const rules = (want.rules as PolicyRule[] | undefined) ?? [];
    const granted = (have.rules as PolicyRule[] | undefined) ?? [];
    const missing = missingPermissions(
      rules.filter((r) => !isOptional(r)),
      granted,
    );
    const events = missingPermissions(rules.filter(isEvents), granted);
    const mcs = missingPermissions(rules.filter(isMcs), granted);
    const notes = [
      events.length ? `${what} does not grant ${events.join(", ")}: mirroring works, but the controller records no Events` : "",
      mcs.length
        ? `${what} does not grant what the Multi-Cluster Services import writes (serviceimports, endpointslices): mirroring works, but the import is off`
        : "",
    ].filter((n) => n !== "");
    return {
      problem: missing.length ? `${what} does not grant ${missing.join(", ")}` : "",
      note: notes.join("; "),
    };
  }
  if (want.kind.endsWith("Binding")) {
    const problem = bindingProblem(want as BindingLike, have as BindingLike);
    return { problem: problem ? `${what} ${problem}` : "", note: "" };
  }
  return { problem: "", note: "" };
}

export const controllerRbac: Check<CheckContext> = {
  id: "controller-rbac",
  title: "service mirror controller has required permissions",
  hint: "l5d-multicluster-source-rbac-correct",
  severity: "error",
  async run(ctx) {
    const lines = await Promise.all(
      ctx.links.map(async (link) => {
        const c = link.targetClusterName;
        const ok = (kind: string, r: RbacReview) => ({ ok: true, lines: [`${c}: ${kind}`, ...r.notes.map((n) => `${c}: ${n}`)] });
        const own = await rbacReview(ctx, link);
        if (own.problems.length === 0) return ok(KIND.link(c), own);
        // Not mc link's: the install's (as Linkerd 2.18's chart), or the shared controller's; else mc link's problems.
        const install = await installRbacReview(ctx, link);
        if (install.problems.length === 0) return ok(KIND.install(c), install);
        const shared = await sharedRbacReview(ctx, link);
        if (shared.problems.length === 0) return ok(KIND.shared(), shared);
        return { ok: false, lines: own.problems.map((p) => `${c}: ${p}`) };
      }),
    );
    const failed = lines.filter((l) => !l.ok);
    if (failed.length) return { ok: false, message: "Problematic clusters:", details: failed.flatMap((l) => l.lines) };
    return { ok: true, details: lines.flatMap((l) => l.lines) };
  },
};

export const controllerRunning: Check<CheckContext> = {
  id: "controller-running",
  title: "service mirror controllers are running",
  hint: "l5d-multicluster-service-mirror-running",
  severity: "error",
  retry: true,
  async run(ctx) {
    const now = ctx.now();
    const lines = await Promise.all(
      ctx.links.map(async (link) => {
        const c = link.targetClusterName;
        const dep = (name: string) =>
          getOrUndefined(ctx.local.get<KubeObject & DeploymentLike>(resources.deployment, link.namespace, name));
        const [lease, byLink, byInstall, shared] = await Promise.all([
          getOrUndefined(ctx.local.get<KubeObject & LeaseLike>(resources.lease, link.namespace, leaseName(c))),
          dep(serviceMirrorName(c)),
          dep(installControllerName(c)),
          dep(SHARED_CONTROLLER_NAME),
        ]);
        const verdict = leaseVerdict(lease, `Lease ${link.namespace}/${leaseName(c)}`, now);
        const where = (name: string, kind: string) => `Deployment ${link.namespace}/${name} (${kind})`;
        if (byLink && byInstall) {
          // Linkerd's check fails on two controller Deployments for one Link: the migration to the install's is half done.
          const fix = `delete mc link's with mc unlink --cluster-name ${c} --only-controller | kubectl delete -f -`;
          return {
            ok: false,
            lines: [
              `${c}: two controllers, ${serviceMirrorName(c)} (mc link) and ${installControllerName(c)} (mc install --controllers): ${fix}`,
            ],
          };
        }
        const deployment = byInstall
          ? deploymentDetail(byInstall, where(installControllerName(c), "mc install --controllers"))
          : !byLink && shared
            ? deploymentDetail(shared, where(SHARED_CONTROLLER_NAME, "shared"))
            : deploymentDetail(byLink, where(serviceMirrorName(c), "mc link"));
        return { ok: verdict.ok, lines: [`${c}: ${verdict.line}`, `${c}: ${deployment}`] };
      }),
    );
    const failed = lines.filter((l) => !l.ok);
    if (failed.length) return { ok: false, message: "Problematic clusters:", details: failed.flatMap((l) => l.lines) };
    return { ok: true, details: lines.flatMap((l) => l.lines) };
  },
};

export const gatewaysAlive: Check<CheckContext> = {
  id: "gateways-alive",
  title: "all gateways are alive",
  hint: "l5d-multicluster-gateways-endpoints",
  severity: "error",
  retry: true,
  // The gateway is probed by the controller, which runs only with usable credentials.
  needs: ["remote-access"],
  async run(ctx) {
    let links: Link[];
    try {
      links = await rereadLinks(ctx);
    } catch (err) {
      return { ok: false, message: formatError(err) };
    }
    const now = ctx.now();
    const verdicts = links.map((link) => gatewayVerdict(link, now));
    const failed = verdicts.filter((v) => !v.ok);
    if (failed.length) return { ok: false, message: "Problematic clusters:", details: failed.map((v) => v.line) };
    return { ok: true, details: verdicts.map((v) => v.line) };
  },
};

/**
 * Whether the controller of `link` (whichever kind runs: mc link's, the install's or the shared
 * one) runs `mc serve --fast-failure-detection`. A Deployment that cannot be read says no.
 */
async function detectsHangsFast(ctx: CheckContext, link: Link): Promise<boolean> {
  const c = link.targetClusterName;
  const names = [serviceMirrorName(c), installControllerName(c), SHARED_CONTROLLER_NAME];
  const found = await Promise.all(
    names.map((name) => ctx.local.get<DeploymentArgs>(resources.deployment, link.namespace, name).catch(() => undefined)),
  );
  const fast = (a: string) => a === FAST_FAILURE_DETECTION_FLAG || a === `${FAST_FAILURE_DETECTION_FLAG}=true`;
  return found.some((d) => d?.spec?.template?.spec?.containers?.some((x) => x.args?.some(fast)) ?? false);
}

export const probeTimeouts: Check<CheckContext> = {
  id: "probe-timeouts",
  title: "a hung gateway is noticed within its probe period",
  hint: "mc-multicluster-probe-timeouts",
  severity: "warning",
  needs: ["links-valid"],
  async run(ctx) {
    const late: string[] = [];
    for (const link of ctx.links) {
      const p = link.probe;
      if (!p || p.timeoutMs <= p.periodMs || (await detectsHangsFast(ctx, link))) continue;
      const [timeout, period] = [formatDuration(p.timeoutMs), formatDuration(p.periodMs)];
      late.push(
        `${link.targetClusterName}: probeSpec.timeout ${timeout} exceeds probeSpec.period ${period}: a gateway that accepts connections and never answers ` +
          `is noticed after ${p.failureThreshold} probe${p.failureThreshold === 1 ? "" : "s"} of ${timeout} (set the timeout to at most ${period}, or run the controller with --fast-failure-detection)`,
      );
    }
    if (late.length > 0) return { ok: false, message: "Links whose probe timeout exceeds their period:", details: late };
    return { ok: true };
  },
};
