// The sandbox's OpenAPI v3 index and documents, as kubectl reads them.
import { describe, expect, test } from "bun:test";
import { openapiDocument, openapiIndex } from "../../../src/sandbox/openapi/v3.ts";
import { apiVersionOf, deepCopy, type JSONSchemaProps, type ResourceType } from "../../../src/sandbox/types.ts";

const ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

function resourceType(t: Partial<ResourceType> & Pick<ResourceType, "kind" | "plural">): ResourceType {
  return {
    group: "",
    version: "v1",
    listKind: `${t.kind}List`,
    singular: t.kind.toLowerCase(),
    namespaced: true,
    verbs: ALL_VERBS,
    subresources: { status: false },
    ...t,
  };
}

const linkSchema: JSONSchemaProps = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        targetClusterName: { type: "string" },
        selector: { type: "object", properties: { matchLabels: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } },
        probeSpec: { type: "object", properties: { timeout: { type: "string", format: "duration", default: "30s" } } },
      },
    },
    status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
  },
};

const services = resourceType({ kind: "Service", plural: "services", shortNames: ["svc"], subresources: { status: true } });
const namespaces = resourceType({ kind: "Namespace", plural: "namespaces", namespaced: false, subresources: { status: true } });
const configmaps = resourceType({ kind: "ConfigMap", plural: "configmaps" });
const deployments = resourceType({ group: "apps", kind: "Deployment", plural: "deployments", subresources: { status: true } });
const reviews = resourceType({
  group: "authorization.k8s.io",
  kind: "SelfSubjectAccessReview",
  plural: "selfsubjectaccessreviews",
  namespaced: false,
  verbs: ["create"],
});
const crds = resourceType({
  group: "apiextensions.k8s.io",
  kind: "CustomResourceDefinition",
  plural: "customresourcedefinitions",
  namespaced: false,
  subresources: { status: true },
});
/** The Link kind at v1alpha3 with `schema`, or at v1alpha1 (PR4710's CRD had no schema at all). */
const links = (schema: JSONSchemaProps | "none" = linkSchema): ResourceType => {
  const version = schema === "none" ? "v1alpha1" : "v1alpha3";
  return resourceType({
    group: "multicluster.linkerd.io",
    version,
    kind: "Link",
    plural: "links",
    subresources: { status: true },
    crd: {
      name: "links.multicluster.linkerd.io",
      schema: schema === "none" ? undefined : schema,
      printerColumns: [],
      storage: version === "v1alpha3",
    },
  });
};

const types = (): ResourceType[] => [services, namespaces, configmaps, deployments, reviews, crds, links(), links("none")];

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, any> };
};

const doc = (gv: string, ts = types()): Doc => {
  const d = openapiDocument(gv, ts);
  if (!d) throw new Error(`no document for ${gv}`);
  return JSON.parse(JSON.stringify(d)) as Doc;
};

const METHODS = ["get", "put", "post", "patch", "delete"];

/** kubectl's supportsQueryParamV3: the first PATCH operation for the GVK must take the query parameter. */
function kubectlSeesFieldValidation(d: Doc, gvk: { group: string; version: string; kind: string }): boolean | "no patch" {
  for (const item of Object.values(d.paths)) {
    const op = item.patch;
    const ext = op?.["x-kubernetes-group-version-kind"];
    if (!ext || ext.group !== gvk.group || ext.version !== gvk.version || ext.kind !== gvk.kind) continue;
    return (op.parameters ?? []).some((p: any) => p.name === "fieldValidation" && p.in === "query");
  }
  return "no patch";
}

/** kubectl apply's gvkSupportsPatchOpenAPIV3: true would make it build strategic merge patches from our schemas. */
function kubectlBuildsSmpFromSchema(d: Doc, gvk: { group: string; version: string; kind: string }): boolean {
  for (const item of Object.values(d.paths)) {
    const ext = item.patch?.["x-kubernetes-group-version-kind"];
    if (ext?.kind !== gvk.kind || ext.group !== gvk.group) continue;
    return "application/strategic-merge-patch+json" in (item.patch.requestBody?.content ?? {});
  }
  return false;
}

describe("openapiIndex", () => {
  test("lists every group-version under kube's keys with a hashed serverRelativeURL", () => {
    const index = openapiIndex(types());
    expect(Object.keys(index.paths)).toEqual([
      "api/v1",
      "apis/apiextensions.k8s.io/v1",
      "apis/apps/v1",
      "apis/authorization.k8s.io/v1",
      "apis/multicluster.linkerd.io/v1alpha1",
      "apis/multicluster.linkerd.io/v1alpha3",
    ]);
    for (const [key, entry] of Object.entries(index.paths)) {
      expect(entry.serverRelativeURL).toMatch(new RegExp(`^/openapi/v3/${key.replace(/\./g, "\\.")}\\?hash=[0-9A-F]{128}$`));
    }
  });

  test("the hash is stable, independent of type order, and changes when a CRD's schema does", () => {
    const a = openapiIndex(types());
    expect(openapiIndex([...types()].reverse())).toEqual(a);
    const changed = deepCopy(linkSchema);
    changed.properties!.spec!.properties!.gatewayPort = { type: "string" };
    const b = openapiIndex([services, namespaces, configmaps, deployments, reviews, crds, links(changed), links("none")]);
    expect(b.paths["apis/multicluster.linkerd.io/v1alpha3"]).not.toEqual(a.paths["apis/multicluster.linkerd.io/v1alpha3"]);
    expect(b.paths["api/v1"]).toEqual(a.paths["api/v1"]);
  });

  test("an empty registry has an empty index", () => {
    expect(openapiIndex([])).toEqual({ paths: {} });
  });
});

describe("openapiDocument", () => {
  test("is an OpenAPI 3.0 document; the group-version may be named as in the index or as an apiVersion", () => {
    const d = doc("v1");
    expect(d.openapi).toBe("3.0.0");
    expect(doc("api/v1")).toEqual(d);
    expect(doc("apis/apps/v1")).toEqual(doc("apps/v1"));
    expect(openapiDocument("batch/v1", types())).toBeUndefined();
  });

  test("only the group-version's own types are described", () => {
    const kinds = Object.values(doc("v1").components.schemas).flatMap((s) =>
      (s["x-kubernetes-group-version-kind"] ?? []).map((g: any) => g.kind),
    );
    expect(kinds.sort()).toEqual(["ConfigMap", "ConfigMapList", "Namespace", "NamespaceList", "Service", "ServiceList", "Status"]);
  });

  test("namespaced types: collection, item and status paths under /namespaces/{namespace}, plus the all-namespaces list", () => {
    const paths = doc("v1").paths;
    const col = paths["/api/v1/namespaces/{namespace}/services"]!;
    const item = paths["/api/v1/namespaces/{namespace}/services/{name}"]!;
    const status = paths["/api/v1/namespaces/{namespace}/services/{name}/status"]!;
    expect(METHODS.filter((m) => m in col)).toEqual(["get", "post", "delete"]);
    expect(METHODS.filter((m) => m in item)).toEqual(["get", "put", "patch", "delete"]);
    expect(METHODS.filter((m) => m in status)).toEqual(["get", "put", "patch"]);
    expect(col.get.operationId).toBe("listCoreV1NamespacedService");
    expect(col.get["x-kubernetes-action"]).toBe("list");
    expect(item.patch.operationId).toBe("patchCoreV1NamespacedService");
    expect(status.get.operationId).toBe("readCoreV1NamespacedServiceStatus");
    expect(item.parameters.map((p: any) => `${p.in}:${p.name}`)).toEqual(["path:name", "path:namespace", "query:pretty"]);
    expect(paths["/api/v1/services"]?.get.operationId).toBe("listCoreV1ServiceForAllNamespaces");
    expect(paths["/api/v1/namespaces/{namespace}/configmaps/{name}/status"]).toBeUndefined();
  });

  test("cluster-scoped types have no namespace segment", () => {
    const paths = Object.keys(doc("v1").paths).filter((p) => p.includes("namespaces") && !p.includes("{namespace}"));
    expect(paths).toEqual(["/api/v1/namespaces", "/api/v1/namespaces/{name}", "/api/v1/namespaces/{name}/status"]);
    expect(Object.keys(doc("apiextensions.k8s.io/v1").paths)).toEqual([
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}/status",
    ]);
  });

  test("operations follow the type's verbs", () => {
    const paths = doc("authorization.k8s.io/v1").paths;
    expect(Object.keys(paths)).toEqual(["/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"]);
    expect(Object.keys(paths["/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"]!)).toEqual(["post", "parameters"]);
  });

  test("every operation carries its group-version-kind, every write takes fieldValidation, dryRun and fieldManager", () => {
    for (const gv of ["v1", "apps/v1", "apiextensions.k8s.io/v1", "authorization.k8s.io/v1", "multicluster.linkerd.io/v1alpha3"]) {
      const d = doc(gv);
      for (const [path, item] of Object.entries(d.paths)) {
        for (const method of METHODS.filter((m) => m in item)) {
          const op = item[method];
          expect(op["x-kubernetes-group-version-kind"], `${method} ${path}`).toMatchObject({ version: gv.split("/").pop() });
          if (["put", "post", "patch"].includes(method)) {
            expect(
              op.parameters.map((p: any) => p.name),
              `${method} ${path}`,
            ).toEqual(expect.arrayContaining(["fieldValidation", "dryRun", "fieldManager"]));
          }
        }
      }
    }
  });

  test("kubectl finds fieldValidation for every patchable kind, so it validates server-side", () => {
    for (const t of types()) {
      const expected = t.verbs.includes("patch") ? true : "no patch";
      expect(kubectlSeesFieldValidation(doc(apiVersionOf(t)), { group: t.group, version: t.version, kind: t.kind }), t.kind).toBe(expected);
    }
  });

  test("kubectl is never led to build strategic merge patches from these schemas", () => {
    for (const t of types()) expect(kubectlBuildsSmpFromSchema(doc(apiVersionOf(t)), t), t.kind).toBe(false);
    const patch = doc("apps/v1").paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]!.patch;
    expect(Object.keys(patch.requestBody.content)).toEqual([
      "application/apply-patch+yaml",
      "application/json-patch+json",
      "application/merge-patch+json",
    ]);
  });

  test("built-in kinds get permissive schemas with their group-version-kind", () => {
    const s = doc("apps/v1").components.schemas["io.k8s.api.apps.v1.Deployment"];
    expect(s["x-kubernetes-group-version-kind"]).toEqual([{ group: "apps", kind: "Deployment", version: "v1" }]);
    expect(s["x-kubernetes-preserve-unknown-fields"]).toBe(true);
    expect(doc("v1").components.schemas["io.k8s.api.core.v1.Service"]["x-kubernetes-group-version-kind"]).toEqual([
      { group: "", kind: "Service", version: "v1" },
    ]);
    expect(doc("apiextensions.k8s.io/v1").components.schemas).toHaveProperty([
      "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
    ]);
  });

  test("custom resources get their CRD version's schema, with apiVersion, kind and metadata added", () => {
    const s = doc("multicluster.linkerd.io/v1alpha3").components.schemas["io.linkerd.multicluster.v1alpha3.Link"];
    expect(s["x-kubernetes-group-version-kind"]).toEqual([{ group: "multicluster.linkerd.io", kind: "Link", version: "v1alpha3" }]);
    expect(s.properties.spec).toEqual(linkSchema.properties!.spec);
    expect(Object.keys(s.properties).sort()).toEqual(["apiVersion", "kind", "metadata", "spec", "status"]);
    expect(s.properties.metadata.allOf).toEqual([{ $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" }]);
    const list = doc("multicluster.linkerd.io/v1alpha3").components.schemas["io.linkerd.multicluster.v1alpha3.LinkList"];
    expect(list.properties.items.items).toEqual({ $ref: "#/components/schemas/io.linkerd.multicluster.v1alpha3.Link" });
    const paths = Object.keys(doc("multicluster.linkerd.io/v1alpha3").paths);
    expect(paths).toEqual([
      "/apis/multicluster.linkerd.io/v1alpha3/namespaces/{namespace}/links",
      "/apis/multicluster.linkerd.io/v1alpha3/namespaces/{namespace}/links/{name}",
      "/apis/multicluster.linkerd.io/v1alpha3/namespaces/{namespace}/links/{name}/status",
      "/apis/multicluster.linkerd.io/v1alpha3/links",
    ]);
  });

  test("a CRD version without a schema is described as preserving unknown fields", () => {
    const s = doc("multicluster.linkerd.io/v1alpha1").components.schemas["io.linkerd.multicluster.v1alpha1.Link"];
    expect(s.type).toBe("object");
    expect(s["x-kubernetes-preserve-unknown-fields"]).toBe(true);
  });

  test("describing a CRD does not alter its schema", () => {
    const schema = deepCopy(linkSchema);
    openapiDocument("multicluster.linkerd.io/v1alpha3", [links(schema)]);
    expect(schema).toEqual(linkSchema);
  });

  test("every $ref resolves to a component", () => {
    for (const gv of ["v1", "apps/v1", "multicluster.linkerd.io/v1alpha3", "authorization.k8s.io/v1"]) {
      const d = doc(gv);
      const refs = [...JSON.stringify(d).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
      expect(refs.length).toBeGreaterThan(0);
      for (const r of refs) expect(d.components.schemas, r).toHaveProperty([r]);
    }
  });
});
