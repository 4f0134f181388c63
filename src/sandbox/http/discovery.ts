// Discovery documents: /version, /api, /apis, /apis/<group>, and each group-version's
// APIResourceList, built from the live registry (so CRDs appear as soon as they are created).
import type { Registry } from "../resources.ts";
import type { ResourceType } from "../types.ts";

export const SERVER_VERSION = {
  major: "1",
  minor: "32",
  gitVersion: "v1.32.4-mc-sandbox",
  gitCommit: "0000000000000000000000000000000000000000",
  gitTreeState: "clean",
  buildDate: "2026-12-01T00:00:00Z",
  goVersion: "go1.23.0",
  compiler: "gc",
  platform: "linux/amd64",
};

export function apiVersions(serverAddress: string): object {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

function groupDoc(g: { name: string; versions: string[]; preferred: string }): object {
  return {
    name: g.name,
    versions: g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v })),
    preferredVersion: { groupVersion: `${g.name}/${g.preferred}`, version: g.preferred },
  };
}

export function apiGroupList(registry: Registry): object {
  return { kind: "APIGroupList", apiVersion: "v1", groups: registry.groups().map(groupDoc) };
}

export function apiGroup(registry: Registry, name: string): object | undefined {
  const g = registry.groups().find((x) => x.name === name);
  return g ? { kind: "APIGroup", apiVersion: "v1", ...groupDoc(g) } : undefined;
}

function resourceEntries(t: ResourceType): object[] {
  const main = {
    name: t.plural,
    singularName: t.singular,
    namespaced: t.namespaced,
    kind: t.kind,
    verbs: t.verbs,
    ...(t.shortNames?.length ? { shortNames: t.shortNames } : {}),
    ...(t.categories?.length ? { categories: t.categories } : {}),
  };
  const out: object[] = [main];
  if (t.subresources.status) {
    out.push({ name: `${t.plural}/status`, singularName: "", namespaced: t.namespaced, kind: t.kind, verbs: ["get", "patch", "update"] });
  }
  return out;
}

export function apiResourceList(registry: Registry, groupVersion: string): object | undefined {
  const types = registry.typesIn(groupVersion);
  if (types.length === 0) return undefined;
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion,
    resources: types.sort((a, b) => a.plural.localeCompare(b.plural)).flatMap(resourceEntries),
  };
}
