// Checks 1–2: the Link CRD is served, and every Link parses (field path and fix when not); no two Links target one cluster (the newer is
// refused by its controller, or, across namespaces, both mirror into the same names); and (a warning, last) no Link selects nothing while
// its mirrors existed, as its controller reports in the Link's ServicesSelected condition.
import { isNotFound, type KubeObject } from "../../kube/index.ts";
import { findCondition, readConditions } from "../../model/conditions.ts";
import { linkResource, LinkError, oldestFirst, parseLink, type Link } from "../../model/link.ts";
import { LINK_GROUP } from "../../model/names.ts";
import type { CheckContext } from "../context.ts";
import type { Check } from "../types.ts";

export const linkCrdExists: Check<CheckContext> = {
  id: "link-crd",
  title: "Link CRD exists",
  hint: "l5d-multicluster-link-crd-exists",
  severity: "fatal",
  async run(ctx) {
    const version = linkResource.apiVersion;
    try {
      const discovery = await ctx.local.getPath<{ resources?: { name?: string }[] }>(`/apis/${version}`);
      if ((discovery.resources ?? []).some((r) => r.name === linkResource.plural)) return { ok: true };
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    return {
      ok: false,
      message: `${LINK_GROUP}/Link CRD is missing: ${ctx.local.cluster} does not serve ${version} ${linkResource.plural} (apply mc install's output there)`,
    };
  },
};

export const linksAreValid: Check<CheckContext> = {
  id: "links-valid",
  title: "Link resources are valid",
  hint: "l5d-multicluster-links-are-valid",
  severity: "fatal",
  async run(ctx) {
    const list = await ctx.local.list<KubeObject>(linkResource);
    const valid: Link[] = [];
    const invalid: string[] = [];
    for (const obj of list.items) {
      try {
        valid.push(parseLink(obj));
      } catch (err) {
        if (!(err instanceof LinkError)) throw err;
        invalid.push(err.message);
      }
    }
    ctx.links = valid.sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
    if (invalid.length > 0) {
      return { ok: false, message: `${invalid.length} of ${list.items.length} Links cannot be used:`, details: invalid.sort() };
    }
    if (valid.length === 0) return { ok: true, message: "no links detected" };
    return { ok: true, details: ctx.links.map((l) => l.targetClusterName) };
  },
};

export const linksTargetOwnClusters: Check<CheckContext> = {
  id: "links-unique",
  title: "every Link targets its own cluster",
  hint: "mc-multicluster-links-unique-targets",
  severity: "error",
  needs: ["links-valid"],
  async run(ctx) {
    const byCluster = new Map<string, Link[]>();
    for (const link of ctx.links) byCluster.set(link.targetClusterName, [...(byCluster.get(link.targetClusterName) ?? []), link]);
    const lines = [...byCluster].flatMap(([cluster, links]) => {
      if (links.length < 2) return [];
      const [owner, ...others] = oldestFirst(links);
      const name = (l: Link) => `${l.namespace}/${l.name}`;
      const newer = others.map(name).join(", ");
      if (others.every((l) => l.namespace === owner!.namespace)) {
        return [
          `${cluster}: Links ${name(owner!)} and ${newer} target it; ${newer}, created later, ${others.length > 1 ? "are" : "is"} not served (delete ${others.length > 1 ? "them" : "it"}, or give ${others.length > 1 ? "them" : "it"} another spec.targetClusterName)`,
        ];
      }
      return [
        `${cluster}: Links ${name(owner!)} and ${newer} in other namespaces target it and write the same mirrors (delete all but one, or give the others another spec.targetClusterName)`,
      ];
    });
    if (lines.length > 0) return { ok: false, message: "Clusters targeted by more than one Link:", details: lines };
    return { ok: true };
  },
};

export const linksSelectServices: Check<CheckContext> = {
  id: "links-select",
  title: "every Link selects services",
  hint: "mc-multicluster-links-select-services",
  severity: "warning",
  needs: ["links-valid"],
  async run(ctx) {
    const empty = ctx.links.flatMap((link) => {
      const c = findCondition(readConditions(link.status), "ServicesSelected");
      return c?.status === "False" && c.reason === "SelectsNothing"
        ? [`${link.targetClusterName}: ${c.message} (since ${c.lastTransitionTime})`]
        : [];
    });
    if (empty.length > 0) return { ok: false, message: "Links that select nothing though their mirrors existed:", details: empty };
    return { ok: true };
  },
};
