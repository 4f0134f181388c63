// Checks 1–2: the Link CRD is served, and every Link parses (field path and fix when not).
import { isNotFound, type KubeObject } from "../../kube/index.ts";
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
