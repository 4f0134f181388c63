// Checks 5–7: each link's controller has the RBAC `mc link` renders (or the shared controller,
// `mc install --shared-controller`, has its own), holds a fresh Lease, and reports its gateway
// alive in the Link's status.
import { formatError } from "../../errors.ts";
import { resources, type KubeObject } from "../../kube/index.ts";
import { describeRef, linkObjects, refOf, resourceOf } from "../../linker/owned.ts";
import type { Manifest } from "../../manifests/meta.ts";
import { renderSharedController } from "../../manifests/shared-controller.ts";
import type { Link } from "../../model/link.ts";
import { leaseName, serviceMirrorName, SHARED_CONTROLLER_NAME } from "../../model/names.ts";
import { getOrUndefined, rereadLinks, type CheckContext } from "../context.ts";
import type { Check } from "../types.ts";
import { bindingProblem, deploymentDetail, gatewayVerdict, leaseVerdict, missingPermissions, type BindingLike, type DeploymentLike, type LeaseLike, type PolicyRule } from "../verdicts.ts";

const RBAC_KINDS = new Set(["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "ServiceAccount"]);

/** The RBAC objects `mc link` renders for this link, compared with what the cluster has. */
async function rbacProblems(ctx: CheckContext, link: Link): Promise<string[]> {
  const wanted = linkObjects({ clusterName: link.targetClusterName, namespace: link.namespace, linkerdNamespace: ctx.linkerdNamespace }).map((o) => o.manifest);
  return problemsOf(ctx, wanted);
}

/** The RBAC objects of the shared controller in the Link's namespace, compared with what the cluster has. */
function sharedRbacProblems(ctx: CheckContext, link: Link): Promise<string[]> {
  return problemsOf(ctx, renderSharedController({ controller: { image: "", logLevel: "info", logFormat: "plain", retryLimit: 3, ha: false }, namespace: link.namespace, version: "0" }));
}

async function problemsOf(ctx: CheckContext, rendered: Manifest[]): Promise<string[]> {
  const wanted = rendered.filter((m) => RBAC_KINDS.has(m.kind));
  const problems = await Promise.all(
    wanted.map(async (want) => {
      const ref = refOf(want);
      const have = await getOrUndefined(ctx.local.get<KubeObject>(resourceOf({ ...ref, namespaced: ref.namespace !== undefined }), ref.namespace, ref.name));
      return have ? objectProblem(want, have) : `${describeRef(ref)} is missing`;
    }),
  );
  return problems.filter((p) => p !== "");
}

function objectProblem(want: Manifest, have: KubeObject): string {
  const what = describeRef(refOf(want));
  if (want.kind === "ClusterRole" || want.kind === "Role") {
    const missing = missingPermissions((want.rules as PolicyRule[] | undefined) ?? [], (have.rules as PolicyRule[] | undefined) ?? []);
    return missing.length ? `${what} does not grant ${missing.join(", ")}` : "";
  }
  if (want.kind.endsWith("Binding")) {
    const problem = bindingProblem(want as BindingLike, have as BindingLike);
    return problem ? `${what} ${problem}` : "";
  }
  return "";
}

export const controllerRbac: Check<CheckContext> = {
  id: "controller-rbac",
  title: "service mirror controller has required permissions",
  hint: "l5d-multicluster-source-rbac-correct",
  severity: "error",
  async run(ctx) {
    const lines = await Promise.all(
      ctx.links.map(async (link) => {
        const problems = await rbacProblems(ctx, link);
        if (problems.length > 0 && (await sharedRbacProblems(ctx, link)).length === 0) {
          return { ok: true, lines: [`${link.targetClusterName}: served by the shared controller ${SHARED_CONTROLLER_NAME}`] };
        }
        return { ok: problems.length === 0, lines: problems.length ? problems.map((p) => `${link.targetClusterName}: ${p}`) : [link.targetClusterName] };
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
        const [lease, dep, shared] = await Promise.all([
          getOrUndefined(ctx.local.get<KubeObject & LeaseLike>(resources.lease, link.namespace, leaseName(c))),
          getOrUndefined(ctx.local.get<KubeObject & DeploymentLike>(resources.deployment, link.namespace, serviceMirrorName(c))),
          getOrUndefined(ctx.local.get<KubeObject & DeploymentLike>(resources.deployment, link.namespace, SHARED_CONTROLLER_NAME)),
        ]);
        const verdict = leaseVerdict(lease, `Lease ${link.namespace}/${leaseName(c)}`, now);
        const deployment = !dep && shared ? deploymentDetail(shared, `Deployment ${link.namespace}/${SHARED_CONTROLLER_NAME} (shared)`) : deploymentDetail(dep, `Deployment ${link.namespace}/${serviceMirrorName(c)}`);
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
