// Checks 1–2: the Link CRD is served, and every Link parses (field path and fix when not); and
// (a warning, last) no Link selects nothing while its mirrors existed, as its controller reports
// in the Link's ServicesSelected condition.
import { isNotFound, type KubeObject } from "../../kube/index.ts";
import { findCondition, readConditions } from "../../model/conditions.ts";
import { linkResource, LinkError, parseLink, type Link } from "../../model/link.ts";
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
    return { ok: false, message: `${LINK_GROUP}/Link CRD is missing: ${ctx.local.cluster} does not serve ${version} ${linkResource.plural} (apply mc install's output there)` };
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

export const linksSelectServices: Check<CheckContext> = {
  id: "links-select",
  title: "every Link selects services",
  hint: "mc-multicluster-links-select-services",
  severity: "warning",
  needs: ["links-valid"],
  async run(ctx) {
    const empty = ctx.links.flatMap((link) => {
      const c = findCondition(readConditions(link.status), "ServicesSelected");
      return c?.status === "False" && c.reason === "SelectsNothing" ? [`${link.targetClusterName}: ${c.message} (since ${c.lastTransitionTime})`] : [];
    });
    if (empty.length > 0) return { ok: false, message: "Links that select nothing though their mirrors existed:", details: empty };
    return { ok: true };
  },
};
