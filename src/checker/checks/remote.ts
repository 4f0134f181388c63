// Checks 3–4: each Link's credentials reach its target and may do there everything the
// controller and mc check need (src/model/access.ts), and both clusters' Linkerd control planes
// trust a common anchor.
import { formatError } from "../../errors.ts";
import { resources, type KubeClient, type KubeObject, type ResourceType } from "../../kube/index.ts";
import { readLinkerdConfig } from "../../linker/target.ts";
import { ENDPOINT_SLICES_FLAG, MIRROR_SETTINGS } from "../../model/mirror-settings.ts";
import { accessAttributes, TARGET_ACCESS, type AccessAttributes } from "../../model/access.ts";
import type { Link } from "../../model/link.ts";
import { serviceMirrorName, SHARED_CONTROLLER_NAME } from "../../model/names.ts";
import { compareAnchors } from "../anchors.ts";
import type { CheckContext } from "../context.ts";
import type { Check } from "../types.ts";

const selfSubjectAccessReview: ResourceType = {
  apiVersion: "authorization.k8s.io/v1",
  kind: "SelfSubjectAccessReview",
  plural: "selfsubjectaccessreviews",
  namespaced: false,
};

/** Every (verb, resource) `mc serve` and `mc check` need on the target: the table the remote-access ClusterRole is rendered from. */
const REMOTE_NEEDS: readonly AccessAttributes[] = accessAttributes([...TARGET_ACCESS.mirror, ...TARGET_ACCESS.check]);

interface Review extends KubeObject {
  status?: { allowed?: boolean; reason?: string };
}

/** `services`, `endpointslices.discovery.k8s.io`, `configmaps linkerd-config`. */
const what = (a: AccessAttributes) => `${a.group ? `${a.resource}.${a.group}` : a.resource}${a.name ? ` ${a.name}` : ""}`;

type DeploymentArgs = KubeObject & { spec?: { template?: { spec?: { containers?: { args?: string[] }[] } } } };

/**
 * The args of the Link's controller (its own Deployment, or the shared one): with
 * --enable-endpoint-slices it also needs the target's EndpointSlices, with --namespace-selector its
 * Namespaces. A Deployment that cannot be read (absent, or not ours to read) asks nothing more: the
 * controller check reports it.
 */
async function controllerArgs(local: KubeClient, link: Link): Promise<string[]> {
  const names = [serviceMirrorName(link.targetClusterName), SHARED_CONTROLLER_NAME];
  const deployments = await Promise.all(
    names.map((n) => local.get<DeploymentArgs>(resources.deployment, link.namespace, n).catch(() => undefined)),
  );
  return deployments.flatMap((d) => d?.spec?.template?.spec?.containers?.flatMap((c) => c.args ?? []) ?? []);
}

/** `--namespace-selector=…` in a controller's args: it also reads the target's Namespaces. */
const NAMESPACE_SELECTOR_ARG = `--${MIRROR_SETTINGS.namespaceSelector.flag}=`;

/** What the Multi-Cluster Services import reads on the target: optional (denied, the import is off), so a note. */
const MCS_NEEDS: readonly AccessAttributes[] = accessAttributes(TARGET_ACCESS.mcs);

/** "" when the target answers and allows everything the Link's controller and mc check need; else the one-line problem. */
async function accessProblem(remote: KubeClient, link: Link, local: KubeClient): Promise<{ problem: string; note: string }> {
  await remote.getPath("/version");
  const args = await controllerArgs(local, link);
  const needs = [
    ...REMOTE_NEEDS,
    ...(args.includes(ENDPOINT_SLICES_FLAG) ? accessAttributes(TARGET_ACCESS.endpointSlices) : []),
    ...(args.some((a) => a.startsWith(NAMESPACE_SELECTOR_ARG)) ? accessAttributes(TARGET_ACCESS.namespaces) : []),
  ];
  const denied = await denials(remote, link, needs);
  const mcsDenied = (await denials(remote, link, MCS_NEEDS)).size > 0;
  const note = mcsDenied
    ? `the credentials may not list, watch serviceexports.multicluster.x-k8s.io: the Multi-Cluster Services import is off (apply mc install or mc allow on the target)`
    : "";
  const list = [...denied].map(([on, verbs]) => `${verbs.join(", ")} ${on}`).join("; ");
  if (!list) return { problem: "", note };
  const slicesDenied = needs.some((n) => n.resource === "endpointslices" && denied.has(what(n)));
  const namespacesDenied = needs.some((n) => n.resource === "namespaces" && denied.has(what(n)));
  const extra = [...(slicesDenied ? ["--endpoint-slices-access"] : []), ...(namespacesDenied ? ["--namespaces-access"] : [])].join(" ");
  const fix = extra ? `apply mc install ${extra} (or mc allow ${extra}) on the target` : "apply mc install or mc allow on the target";
  return { problem: `the credentials may not ${list} (${fix}, then mc link again)`, note };
}

/** The needs the target's answers deny, as verbs by what they are on, in the table's order: `list, watch services; create events`. */
async function denials(remote: KubeClient, link: Link, needs: readonly AccessAttributes[]): Promise<Map<string, string[]>> {
  const denied = new Map<string, string[]>();
  for (const need of needs) {
    // A named object (linkerd-config) is asked for where it lives; everything else across all namespaces.
    const namespace = need.name ? link.targetClusterLinkerdNamespace : "";
    const review = await remote.create<Review>(selfSubjectAccessReview, {
      apiVersion: selfSubjectAccessReview.apiVersion,
      kind: selfSubjectAccessReview.kind,
      metadata: {},
      spec: {
        resourceAttributes: {
          verb: need.verb,
          group: need.group,
          resource: need.resource,
          namespace,
          ...(need.name && { name: need.name }),
        },
      },
    });
    if (review.status?.allowed === true) continue;
    const verbs = denied.get(what(need)) ?? [];
    verbs.push(`${need.verb}${review.status?.reason ? ` (${review.status.reason})` : ""}`);
    denied.set(what(need), verbs);
  }
  return denied;
}

export const remoteAccess: Check<CheckContext> = {
  id: "remote-access",
  title: "remote cluster access credentials are valid",
  hint: "l5d-smc-target-clusters-access",
  severity: "error",
  retry: true,
  async run(ctx) {
    ctx.remotes = new Map();
    const lines = await Promise.all(
      ctx.links.map(async (link): Promise<{ ok: boolean; line: string; note?: string }> => {
        const c = link.targetClusterName;
        let remote: KubeClient;
        try {
          remote = await ctx.connectRemote(link);
        } catch (err) {
          return { ok: false, line: `${c}: ${formatError(err)}` };
        }
        let note = "";
        try {
          const found = await accessProblem(remote, link, ctx.local);
          if (found.problem) return { ok: false, line: `${c}: ${found.problem}` };
          note = found.note;
        } catch (err) {
          return { ok: false, line: `${c}: ${formatError(err)}` };
        }
        ctx.remotes.set(c, remote);
        return { ok: true, line: c, ...(note ? { note: `${c}: ${note}` } : {}) };
      }),
    );
    const failed = lines.filter((l) => !l.ok);
    if (failed.length) return { ok: false, message: "Problematic clusters:", details: failed.map((l) => l.line) };
    return { ok: true, details: lines.flatMap((l) => [l.line, ...(l.note ? [l.note] : [])]) };
  },
};

export const trustAnchors: Check<CheckContext> = {
  id: "trust-anchors",
  title: "clusters share trust anchors",
  hint: "l5d-multicluster-clusters-share-anchors",
  severity: "error",
  needs: ["remote-access"],
  async run(ctx) {
    const linked = ctx.links.flatMap((link) => {
      const remote = ctx.remotes.get(link.targetClusterName);
      return remote ? [{ link, remote }] : [];
    });
    if (linked.length === 0) return { ok: true };
    const local = await readLinkerdConfig(ctx.local, ctx.linkerdNamespace);
    const lines = await Promise.all(linked.map(({ link, remote }) => anchorsLine(link, remote, local.trustAnchorsPem, ctx.local.cluster)));
    const failed = lines.filter((l) => !l.ok);
    if (failed.length) return { ok: false, message: "Problematic clusters:", details: failed.map((l) => l.line) };
    return { ok: true, details: lines.map((l) => l.line) };
  },
};

async function anchorsLine(link: Link, remote: KubeClient, localPem: string, localName: string): Promise<{ ok: boolean; line: string }> {
  const c = link.targetClusterName;
  let remotePem: string;
  try {
    remotePem = (await readLinkerdConfig(remote, link.targetClusterLinkerdNamespace)).trustAnchorsPem;
  } catch (err) {
    return { ok: false, line: `${c}: ${formatError(err)}` };
  }
  switch (compareAnchors(localPem, remotePem)) {
    case "same":
      return { ok: true, line: c };
    case "overlap":
      return { ok: true, line: `${c}: the bundles differ but share an anchor (a rotation in progress?)` };
    case "disjoint":
      return { ok: false, line: `${c}: no trust anchor in common with ${localName}` };
    case "remote-empty":
      return { ok: false, line: `${c}: its linkerd-config has no identityTrustAnchorsPEM` };
    case "local-empty":
      return { ok: false, line: `${c}: ${localName}'s linkerd-config has no identityTrustAnchorsPEM` };
  }
}
