// Checks 8–12: mirrors have endpoints, belong to a Link, exist on the server for every exported target and match its resourceVersion, no
// foreign Service holds a name a mirror needs, and federated Services list only members of linked clusters.
import * as v from "valibot";
import { KubeError, resources, type KubeClient, type KubeObject } from "../../kube/index.ts";
import { CLUSTER_NAME, MC_SLICE_MANAGER, MIRRORED_SERVICE, SLICE_MANAGED_BY } from "../../model/labels.ts";
import type { CheckContext } from "../context.ts";
import type { Link } from "../../model/link.ts";
import { DEFAULT_MIRROR_NAME_TEMPLATE } from "../../model/mirror-names.ts";
import { MIRROR_SETTINGS } from "../../model/mirror-settings.ts";
import { namespaceMap } from "../../model/values.ts";
import { installControllerName, serviceMirrorName, SHARED_CONTROLLER_NAME } from "../../model/names.ts";
import {
  blockedMirrorNames,
  danglingMembers,
  listFew,
  missingMirrors,
  mirrorsWithoutEndpoints,
  needsEndpoints,
  orphanMirrors,
  outOfSync,
  type EndpointsLike,
  type Naming,
  type SliceLike,
  type TargetLike,
} from "../mirrors.ts";
import type { Check } from "../types.ts";

const MIRRORS = `${MIRRORED_SERVICE}=true`;

const mirrorServices = (client: KubeClient, extra = "") =>
  client.list<KubeObject>(resources.service, { labelSelector: MIRRORS + extra }).then((l) => l.items);

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

type DeploymentArgs = KubeObject & { spec?: { template?: { spec?: { containers?: { args?: string[] }[] } } } };
const TEMPLATE_FLAG = `--${MIRROR_SETTINGS.mirrorNameTemplate.flag}=`;
const NAMESPACE_MAP_FLAG = `--${MIRROR_SETTINGS.namespaceMap.flag}=`;

/**
 * The mirror name template and namespace map the Link's controller runs with
 * (`--mirror-name-template`, `--namespace-map` in its Deployment's args: mc link's, the install's,
 * or the shared one); Linkerd's (and none) when none says.
 */
async function namingOf(local: KubeClient, link: Link): Promise<Naming> {
  const c = link.targetClusterName;
  for (const name of [serviceMirrorName(c), installControllerName(c), SHARED_CONTROLLER_NAME]) {
    const d = await local.get<DeploymentArgs>(resources.deployment, link.namespace, name).catch(() => undefined);
    if (!d) continue;
    const args = d.spec?.template?.spec?.containers?.flatMap((x) => x.args ?? []) ?? [];
    const template = args.find((a) => a.startsWith(TEMPLATE_FLAG))?.slice(TEMPLATE_FLAG.length) ?? DEFAULT_MIRROR_NAME_TEMPLATE;
    const map = v.safeParse(namespaceMap, args.find((a) => a.startsWith(NAMESPACE_MAP_FLAG))?.slice(NAMESPACE_MAP_FLAG.length) ?? "");
    return { template, namespaceMap: map.success ? map.output : {} };
  }
  return { template: DEFAULT_MIRROR_NAME_TEMPLATE, namespaceMap: {} };
}

export const mirrorEndpoints: Check<CheckContext> = {
  id: "mirror-endpoints",
  title: "all mirror services have endpoints",
  hint: "l5d-multicluster-services-endpoints",
  severity: "error",
  retry: true,
  async run(ctx) {
    const [services, endpoints, slices] = await Promise.all([
      mirrorServices(ctx.local),
      ctx.local.list<EndpointsLike & KubeObject>(resources.endpoints, { labelSelector: MIRRORS }).then((l) => l.items),
      // Mirrors of a controller run with --mirror-endpoint-slices have these instead (none readable: none counted).
      ctx.local
        .list<SliceLike & KubeObject>(resources.endpointSlice, { labelSelector: `${SLICE_MANAGED_BY}=${MC_SLICE_MANAGER}` })
        .then((l) => l.items)
        .catch((err: unknown) => {
          if (err instanceof KubeError && (err.code === 403 || err.code === 404)) return [] as Array<SliceLike & KubeObject>;
          throw err;
        }),
    ]);
    const empty = mirrorsWithoutEndpoints(services, endpoints, slices);
    const total = services.filter(needsEndpoints).length;
    if (empty.length)
      return {
        ok: false,
        message: `${empty.length} of ${plural(total, "mirror service")} ${empty.length === 1 ? "has" : "have"} no endpoints: ${listFew(empty)}`,
      };
    return { ok: true, message: `${plural(total, "mirror service")} checked` };
  },
};

export const mirrorOrphans: Check<CheckContext> = {
  id: "mirror-orphans",
  title: "all mirror services are part of a Link",
  hint: "l5d-multicluster-orphaned-services",
  severity: "warning",
  async run(ctx) {
    const orphans = orphanMirrors(await mirrorServices(ctx.local), new Set(ctx.links.map((l) => l.targetClusterName)));
    if (orphans.size === 0) return { ok: true };
    const details = [...orphans.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([c, keys]) => `cluster "${c}" has no Link: ${listFew(keys)}`);
    return { ok: false, message: "mirror services without a Link:", details };
  },
};

export const mirrorsInSync: Check<CheckContext> = {
  id: "mirror-sync",
  title: "all mirror services are in sync with their targets",
  hint: "mc-multicluster-mirrors-in-sync",
  severity: "warning",
  retry: true,
  needs: ["remote-access"],
  async run(ctx) {
    const details: string[] = [];
    for (const link of ctx.links) {
      const c = link.targetClusterName;
      const remote = ctx.remotes.get(c);
      if (!remote) continue;
      const [mirrors, targets] = await Promise.all([
        mirrorServices(ctx.local, `,${CLUSTER_NAME}=${c}`),
        remote.list<KubeObject & TargetLike>(resources.service).then((l) => l.items),
      ]);
      // Both read from the servers now, never from a controller's view.
      const missing = missingMirrors(link, mirrors, targets, undefined, await namingOf(ctx.local, link));
      if (missing.length) details.push(`${c}: ${plural(missing.length, "exported Service")} without a mirror: ${listFew(missing)}`);
      const findings = outOfSync(mirrors, c, targets);
      const gone = findings.filter((f) => f.problem === "target-gone").map((f) => f.mirror);
      const stale = findings.filter((f) => f.problem === "stale").map((f) => f.mirror);
      if (stale.length) details.push(`${c}: ${plural(stale.length, "mirror")} behind the target's resourceVersion: ${listFew(stale)}`);
      if (gone.length) details.push(`${c}: ${plural(gone.length, "mirror")} whose target is gone: ${listFew(gone)}`);
    }
    if (details.length) return { ok: false, message: "mirrors out of sync:", details };
    return { ok: true };
  },
};

export const mirrorNameConflicts: Check<CheckContext> = {
  id: "mirror-name-conflicts",
  title: "no foreign service blocks a mirror name",
  hint: "mc-multicluster-mirror-name-conflicts",
  severity: "warning",
  needs: ["remote-access"],
  async run(ctx) {
    const linked = ctx.links.filter((l) => ctx.remotes.has(l.targetClusterName));
    if (linked.length === 0) return { ok: true };
    const local = (await ctx.local.list<KubeObject>(resources.service)).items;
    const details: string[] = [];
    for (const link of linked) {
      const targets = (await ctx.remotes.get(link.targetClusterName)!.list<KubeObject>(resources.service)).items;
      const blocked = blockedMirrorNames(link, targets, local, await namingOf(ctx.local, link));
      if (blocked.length)
        details.push(`${link.targetClusterName}: ${plural(blocked.length, "export")} not mirrored, the name is taken: ${listFew(blocked)}`);
    }
    if (details.length) return { ok: false, message: "Services that are not mirrors hold mirror names:", details };
    return { ok: true };
  },
};

export const federatedMembers: Check<CheckContext> = {
  id: "federated-members",
  title: "all federated service members are part of a Link",
  hint: "mc-multicluster-federated-members",
  severity: "warning",
  async run(ctx) {
    const dangling = danglingMembers(await mirrorServices(ctx.local), new Set(ctx.links.map((l) => l.targetClusterName)));
    if (dangling.size === 0) return { ok: true };
    const details = [...dangling.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([svc, members]) => `${svc}: ${members.join(", ")} ${members.length === 1 ? "has" : "have"} no Link`);
    return { ok: false, message: "federated services with members whose Link is gone:", details };
  },
};
