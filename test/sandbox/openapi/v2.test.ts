// GET /openapi/v2: the Swagger 2.0 document (gnostic protobuf or JSON) kubectl validates `kind: List` files with, client-side. Checked
// three ways: against what kube-openapi's parser demands of it, against kube-apiserver's published field names (kubernetes-models'
// generated types), and with the real kubectl applying Lists.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import protobuf from "protobufjs";
import { startSandbox, type Sandbox } from "../../../src/sandbox/index.ts";
import { crdSchemaV2, OPENAPI_V2_PROTOBUF, openapiV2Document, type Schema } from "../../../src/sandbox/openapi/v2.ts";
import { openapiV2Protobuf, serveOpenapiV2 } from "../../../src/sandbox/openapi/v2-serve.ts";
import { Registry } from "../../../src/sandbox/resources.ts";
import type { KubeObject } from "../../../src/sandbox/types.ts";
import { hasKubectl, needsKubectl, kubectlFor, type Kubectl } from "../../helpers/kubectl.ts";

const ROOT = join(import.meta.dir, "../../..");
const META = "io.k8s.apimachinery.pkg.apis.meta.v1";

const gadgetCrd = (extraVersion = false): KubeObject => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gadgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { kind: "Gadget", plural: "gadgets", singular: "gadget", listKind: "GadgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                required: ["size"],
                properties: {
                  size: { type: "string" },
                  port: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] },
                  extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true, properties: { known: { type: "string" } } },
                  note: { type: "string", nullable: true },
                  tags: { type: "array", items: { type: "string" } },
                  labels: { type: "object", additionalProperties: { type: "string" } },
                  template: { type: "object", "x-kubernetes-embedded-resource": true, properties: { spec: { type: "object" } } },
                },
              },
              status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            },
          },
        },
      },
      ...(extraVersion
        ? [
            {
              name: "v2",
              served: true,
              storage: false,
              schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
            },
          ]
        : []),
    ],
  },
});

// ---- what kubectl reads: gnostic's Document, parsed as kube-openapi's proto.NewOpenAPIData does --

const gnostic = (() => {
  const { nested } = JSON.parse(readFileSync(join(ROOT, "k8s/proto/gnostic/openapiv2.json"), "utf8")) as {
    nested: protobuf.INamespace["nested"];
  };
  const root = protobuf.Root.fromJSON({ nested });
  root.resolveAll();
  return root.lookupType("openapi.v2.Document");
})();

type G = Record<string, unknown>;

/** The decoded gnostic Schema back in Swagger JSON form (what our encoder must round-trip). */
function fromGnostic(g: G): Schema {
  const s: Schema = {};
  if (g._ref) s.$ref = g._ref;
  if (g.description) s.description = g.description;
  if ((g.type as G | undefined)?.value) s.type = ((g.type as G).value as string[])[0];
  if (g.format) s.format = g.format;
  if ((g.required as string[] | undefined)?.length) s.required = g.required;
  if (g.items) s.items = fromGnostic(((g.items as G).schema as G[])[0]!);
  if (g.properties)
    s.properties = Object.fromEntries(((g.properties as G).additional_properties as G[]).map((p) => [p.name, fromGnostic(p.value as G)]));
  const ap = g.additional_properties as G | undefined;
  if (ap) s.additionalProperties = ap.schema ? fromGnostic(ap.schema as G) : ap.boolean;
  for (const e of (g.vendor_extension as G[] | undefined) ?? []) s[e.name as string] = JSON.parse(((e.value as G).yaml as string).trim()); // JSON is the YAML we write
  return s;
}

const decode = (bytes: Uint8Array) => gnostic.toObject(gnostic.decode(bytes), { defaults: false }) as G;

/** What kube-openapi's ParseSchema rejects, for every definition of the decoded document. */
function parseProblems(doc: G): string[] {
  const defs = new Map(((doc.definitions as G).additional_properties as G[]).map((d) => [d.name as string, d.value as G]));
  const problems: string[] = [];
  const walk = (g: G, path: string) => {
    const types = ((g.type as G | undefined)?.value as string[] | undefined) ?? [];
    if (types.length > 1) problems.push(`${path}: definitions with multiple types aren't supported`);
    if (g._ref) {
      const r = g._ref as string;
      if (types.length) problems.push(`${path}: definition reference can't have a type`);
      if (g.properties) problems.push(`${path}: unallowed embedded type definition`);
      if (!r.startsWith("#/definitions/") || !defs.has(r.slice("#/definitions/".length)))
        problems.push(`${path}: unknown model in reference: ${r}`);
      return;
    }
    if (types[0] === "array") {
      const items = ((g.items as G | undefined)?.schema as G[] | undefined) ?? [];
      if (items.length !== 1) problems.push(`${path}: array should have exactly one sub-item`);
      else walk(items[0]!, `${path}[]`);
    }
    if (types.length && types[0] !== "object" && g.properties) problems.push(`${path}: invalid object type`);
    for (const p of ((g.properties as G | undefined)?.additional_properties as G[] | undefined) ?? [])
      walk(p.value as G, `${path}.${p.name}`);
    const ap = (g.additional_properties as G | undefined)?.schema as G | undefined;
    if (ap) walk(ap, `${path}{}`);
    for (const e of (g.vendor_extension as G[] | undefined) ?? []) {
      if (e.name !== "x-kubernetes-group-version-kind") continue;
      const gvks = JSON.parse(((e.value as G).yaml as string).trim()) as unknown;
      if (
        !Array.isArray(gvks) ||
        !gvks.every((x) => typeof x?.group === "string" && typeof x?.version === "string" && typeof x?.kind === "string")
      )
        problems.push(`${path}: bad gvk ${JSON.stringify(gvks)}`);
    }
  };
  for (const [name, g] of defs) walk(g, name);
  return problems;
}

/** group-version-kind → definition name, as kubectl's openapi.NewOpenAPIData indexes them. */
function gvkIndex(doc: G): Map<string, string> {
  const index = new Map<string, string>();
  for (const d of (doc.definitions as G).additional_properties as G[]) {
    for (const e of ((d.value as G).vendor_extension as G[] | undefined) ?? []) {
      if (e.name !== "x-kubernetes-group-version-kind") continue;
      for (const g of JSON.parse(((e.value as G).yaml as string).trim()) as { group: string; version: string; kind: string }[]) {
        index.set(`${g.group}/${g.version}/${g.kind}`, d.name as string);
      }
    }
  }
  return index;
}

describe("the document", () => {
  const registry = new Registry();
  const bytes = openapiV2Protobuf(registry);
  const doc = decode(bytes);

  test("decodes as gnostic's openapi_v2.Document and round-trips the JSON form", () => {
    const json = openapiV2Document(registry.all());
    expect(doc.swagger).toBe("2.0");
    expect(doc.info).toEqual({ title: "Kubernetes", version: "1.32" });
    const definitions = Object.fromEntries(
      ((doc.definitions as G).additional_properties as G[]).map((d) => [d.name, fromGnostic(d.value as G)]),
    );
    expect(definitions).toEqual(json.definitions);
    expect(json.paths).toEqual({}); // no PATCH operations: client-side apply keeps kubectl's compiled-in patch metadata
  });

  test("kube-openapi parses every definition: references resolve, arrays have items", () => {
    expect(parseProblems(doc)).toEqual([]);
  });

  test("every served kind, and every list kind, has a definition with its group-version-kind", () => {
    const index = gvkIndex(doc);
    for (const t of registry.all()) {
      const gv = t.group === "" ? t.version : `${t.group}/${t.version}`;
      expect(index.has(`${t.group}/${t.version}/${t.kind}`), `${gv} ${t.kind}`).toBe(true);
      expect(index.has(`${t.group}/${t.version}/${t.listKind}`), `${gv} ${t.listKind}`).toBe(t.verbs.includes("list"));
    }
    expect(index.get("/v1/Service")).toBe("io.k8s.api.core.v1.Service");
    expect(index.get("apps/v1/Deployment")).toBe("io.k8s.api.apps.v1.Deployment");
    expect(index.get("rbac.authorization.k8s.io/v1/ClusterRole")).toBe("io.k8s.api.rbac.v1.ClusterRole");
    expect(index.get("apiextensions.k8s.io/v1/CustomResourceDefinition")).toBe(
      "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
    );
  });

  test("built-in definitions carry every field under kube-apiserver's name and type (no JSON name of their own)", () => {
    const { definitions: d } = openapiV2Document(registry.all());
    expect(d["io.k8s.api.core.v1.ServicePort"]).toEqual({
      type: "object",
      properties: {
        appProtocol: { type: "string" },
        name: { type: "string" },
        nodePort: { type: "integer", format: "int32" },
        port: { type: "integer", format: "int32" },
        protocol: { type: "string" },
        targetPort: { $ref: "#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString" },
      },
    });
    const volume = d["io.k8s.api.core.v1.Volume"]!.properties as Record<string, Schema>;
    expect(volume.name).toEqual({ type: "string" });
    expect(volume.configMap).toEqual({ $ref: "#/definitions/io.k8s.api.core.v1.ConfigMapVolumeSource" }); // inline VolumeSource
    expect(volume.volumeSource).toBeUndefined();
    expect((d["io.k8s.api.core.v1.Secret"]!.properties as Record<string, Schema>).data).toEqual({
      type: "object",
      additionalProperties: { type: "string", format: "byte" },
    });
    expect((d["io.k8s.api.core.v1.ConfigMapKeySelector"]!.properties as Record<string, Schema>).name).toEqual({ type: "string" }); // inline LocalObjectReference
    expect(d["io.k8s.apimachinery.pkg.apis.meta.v1.Time"]).toEqual({ type: "string", format: "date-time" });
    expect(d["io.k8s.apimachinery.pkg.api.resource.Quantity"]).toEqual({ type: "string" });
    expect(d["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]).toEqual({ type: "string", format: "int-or-string" });
    expect(d[`${META}.FieldsV1`]).toEqual({ type: "object" });
    expect(Object.keys(d["io.k8s.api.core.v1.Service"]!.properties as object)).toEqual([
      "apiVersion",
      "kind",
      "metadata",
      "spec",
      "status",
    ]);
    expect(d["io.k8s.api.core.v1.ServiceList"]).toEqual({
      type: "object",
      required: ["items"],
      properties: {
        apiVersion: { type: "string" },
        kind: { type: "string" },
        items: { type: "array", items: { $ref: "#/definitions/io.k8s.api.core.v1.Service" } },
        metadata: { $ref: `#/definitions/${META}.ListMeta` },
      },
      "x-kubernetes-group-version-kind": [{ group: "", kind: "ServiceList", version: "v1" }],
    });
  });

  test("built-in field names match kube-apiserver's published schemas (kubernetes-models' generated types)", () => {
    // kubernetes-models is generated from a newer kube-apiserver's OpenAPI: it may know fields that
    // Kubernetes 1.32 (this sandbox's version, the .proto files' version) does not — never the reverse.
    const DIRS: Record<string, string> = {
      core: "v1",
      apps: "apps/v1",
      rbac: "rbac.authorization.k8s.io/v1",
      authorization: "authorization.k8s.io/v1",
      coordination: "coordination.k8s.io/v1",
      discovery: "discovery.k8s.io/v1",
      policy: "policy/v1",
      networking: "networking.k8s.io/v1",
      batch: "batch/v1",
      scheduling: "scheduling.k8s.io/v1",
      authentication: "authentication.k8s.io/v1",
    };
    const modelFile = (name: string): string | undefined => {
      const api = /^io\.k8s\.api\.(\w+)\.v1\.(\w+)$/.exec(name);
      if (api && DIRS[api[1]!]) return join(ROOT, "node_modules/kubernetes-models", DIRS[api[1]!]!, `${api[2]}.d.ts`);
      const meta = /^io\.k8s\.apimachinery\.pkg\.apis\.meta\.v1\.(\w+)$/.exec(name);
      return meta ? join(ROOT, "node_modules/@kubernetes-models/apimachinery/apis/meta/v1", `${meta[1]}.d.ts`) : undefined;
    };
    const modelFields = (file: string): Set<string> => {
      const text = readFileSync(file, "utf8");
      const start = text.search(/^export interface I\w+/m);
      return new Set([...text.slice(start, text.indexOf("\n}", start)).matchAll(/^ {4}"([^"]+)"\??:/gm)].map((m) => m[1]!));
    };
    const unknown: string[] = [];
    let checked = 0;
    for (const [name, def] of Object.entries(openapiV2Document(registry.all()).definitions)) {
      const file = modelFile(name);
      if (!def.properties || !file || !existsSync(file)) continue;
      checked++;
      const known = modelFields(file);
      for (const field of Object.keys(def.properties)) if (!known.has(field)) unknown.push(`${name}.${field}`);
    }
    expect(unknown).toEqual([]);
    expect(checked).toBeGreaterThan(150);
  });
});

describe("custom resources, as apiextensions-apiserver publishes them in v2", () => {
  test("junctors go; nullable and preserve-unknown-fields nodes lose properties; embedded resources get TypeMeta and ObjectMeta", () => {
    expect(crdSchemaV2({ type: "string", nullable: true, description: "d" })).toEqual({ description: "d" });
    expect(crdSchemaV2({ "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] })).toEqual({
      "x-kubernetes-int-or-string": true,
    });
    expect(crdSchemaV2({ type: "object", "x-kubernetes-preserve-unknown-fields": true, properties: { a: { type: "string" } } })).toEqual({
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
    });
    expect(crdSchemaV2({ type: "array", "x-kubernetes-preserve-unknown-fields": true, items: { type: "string" } })).toEqual({
      "x-kubernetes-preserve-unknown-fields": true,
    });
    expect(
      crdSchemaV2({
        type: "object",
        required: ["a", "b"],
        properties: { a: { type: "string", nullable: true }, b: { type: "integer", format: "int64" } },
      }),
    ).toEqual({
      type: "object",
      required: ["b"],
      properties: { a: {}, b: { type: "integer", format: "int64" } },
    });
    expect(crdSchemaV2({ type: "object", required: ["a"], additionalProperties: { type: "string", nullable: true } })).toEqual({
      type: "object",
      additionalProperties: {},
    });
    expect(crdSchemaV2({ type: "object", "x-kubernetes-embedded-resource": true, properties: { spec: { type: "object" } } })).toEqual({
      type: "object",
      "x-kubernetes-embedded-resource": true,
      required: ["kind", "apiVersion"],
      properties: {
        spec: { type: "object" },
        apiVersion: { type: "string" },
        kind: { type: "string" },
        metadata: { $ref: `#/definitions/${META}.ObjectMeta` },
      },
    });
    expect(crdSchemaV2({ type: "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true })).toEqual({
      type: "object",
      "x-kubernetes-embedded-resource": true,
      "x-kubernetes-preserve-unknown-fields": true,
    });
  });

  test("a CRD's kinds appear under their reversed-group names; a root that keeps unknown fields is a bare object", () => {
    const registry = new Registry();
    registry.setCrd("gadgets.example.com", gadgetCrd(true));
    const { definitions: d } = openapiV2Document(registry.all());
    const gadget = d["com.example.v1.Gadget"]!;
    expect(gadget["x-kubernetes-group-version-kind"]).toEqual([{ group: "example.com", kind: "Gadget", version: "v1" }]);
    expect(Object.keys(gadget.properties as object).sort()).toEqual(["apiVersion", "kind", "metadata", "spec", "status"]);
    expect((gadget.properties as Record<string, Schema>).metadata).toEqual({ $ref: `#/definitions/${META}.ObjectMeta` });
    expect((gadget.properties as Record<string, Schema>).status).toEqual({ type: "object", "x-kubernetes-preserve-unknown-fields": true });
    expect(d["com.example.v1.GadgetList"]?.["x-kubernetes-group-version-kind"]).toEqual([
      { group: "example.com", kind: "GadgetList", version: "v1" },
    ]);
    expect(d["com.example.v2.Gadget"]).toEqual({
      type: "object",
      "x-kubernetes-group-version-kind": [{ group: "example.com", kind: "Gadget", version: "v2" }],
    });
    expect(parseProblems(decode(openapiV2Protobuf(registry)))).toEqual([]);
  });
});

describe("serving", () => {
  const get = (registry: Registry, headers: Record<string, string> = {}) =>
    serveOpenapiV2(registry, new Request("http://sandbox/openapi/v2", { headers }));

  test("protobuf for kubectl's Accept, JSON by default and for application/json, 406 otherwise", async () => {
    const registry = new Registry();
    const pb = get(registry, { accept: OPENAPI_V2_PROTOBUF });
    expect(pb.status).toBe(200);
    expect(pb.headers.get("content-type")).toBe("application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
    expect(Buffer.from(await pb.arrayBuffer()).equals(openapiV2Protobuf(registry))).toBe(true);
    const alt = get(registry, { accept: "application/com.github.proto-openapi.spec.v2.v1.0+protobuf" });
    expect(alt.headers.get("content-type")).toBe("application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
    for (const accept of [undefined, "application/json", "*/*", "application/json, */*", "application/*;q=0.9"]) {
      const r = get(registry, accept === undefined ? {} : { accept });
      expect(r.headers.get("content-type"), String(accept)).toBe("application/json");
      expect(((await r.json()) as { swagger: string }).swagger).toBe("2.0");
    }
    const preferred = get(registry, { accept: `application/json;q=0.5, ${OPENAPI_V2_PROTOBUF}` });
    expect(preferred.headers.get("content-type")).toBe("application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
    expect(get(registry, { accept: "text/html" }).status).toBe(406);
    expect(pb.headers.get("vary")).toContain("Accept");
  });

  test("ETag (SHA-512 of the JSON, the same for both encodings) and If-None-Match", async () => {
    const registry = new Registry();
    const json = get(registry);
    const etag = json.headers.get("etag")!;
    const hex = new Bun.CryptoHasher("sha512")
      .update(await json.text())
      .digest("hex")
      .toUpperCase();
    expect(etag).toBe(`"${hex}"`);
    expect(get(registry, { accept: OPENAPI_V2_PROTOBUF }).headers.get("etag")).toBe(etag);
    const again = get(registry, { accept: OPENAPI_V2_PROTOBUF, "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
  });

  test("built once per set of served types: a CRD created later appears, a deleted one goes", () => {
    const registry = new Registry();
    const first = openapiV2Protobuf(registry);
    expect(openapiV2Protobuf(registry)).toBe(first); // the same bytes, not rebuilt
    registry.setCrd("gadgets.example.com", gadgetCrd());
    const withCrd = openapiV2Protobuf(registry);
    expect(withCrd).not.toBe(first);
    expect(gvkIndex(decode(withCrd)).get("example.com/v1/Gadget")).toBe("com.example.v1.Gadget");
    expect(openapiV2Protobuf(registry)).toBe(withCrd);
    registry.setCrd("gadgets.example.com", undefined);
    expect(gvkIndex(decode(openapiV2Protobuf(registry))).has("example.com/v1/Gadget")).toBe(false);
  });

  test("routed by the sandbox", async () => {
    const sb = await startSandbox({ name: "openapi-v2" });
    try {
      const r = await fetch(`${sb.url}/openapi/v2`, { headers: { accept: OPENAPI_V2_PROTOBUF } });
      expect(r.status).toBe(200);
      expect(gvkIndex(decode(new Uint8Array(await r.arrayBuffer()))).get("/v1/Namespace")).toBe("io.k8s.api.core.v1.Namespace");
      expect((await fetch(`${sb.url}/openapi/v2/extra`)).status).toBe(404);
    } finally {
      await sb.stop();
    }
  });
});

// ---- the real kubectl ----------------------------------------------------------------------------

const gadgetCrdYaml = `
- apiVersion: apiextensions.k8s.io/v1
  kind: CustomResourceDefinition
  metadata: { name: gadgets.example.com }
  spec: ${JSON.stringify(gadgetCrd().spec)}`;

const firstList = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata: { name: lists }
- apiVersion: v1
  kind: ConfigMap
  metadata: { name: settings, namespace: lists }
  data: { mode: fast }
- apiVersion: v1
  kind: Service
  metadata: { name: web, namespace: lists, labels: { app: web } }
  spec:
    selector: { app: web }
    ports: [{ name: http, port: 80, targetPort: http }]
${gadgetCrdYaml}
`;

const deployment = (containers: { name: string; image: string }[]) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "lists", creationTimestamp: null },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: {
        containers: containers.map((c) => ({
          ...c,
          ports: [{ containerPort: 8080, name: "http" }],
          resources: { limits: { cpu: 1, memory: "64Mi" } },
        })),
      },
    },
  },
  status: {},
});

const gadget = (spec: Record<string, unknown>) => ({
  apiVersion: "example.com/v1",
  kind: "Gadget",
  metadata: { name: "g1", namespace: "lists" },
  spec,
});

const jsonList = (...items: object[]) => JSON.stringify({ apiVersion: "v1", kind: "List", items }, null, 2);

describe(needsKubectl("kubectl apply -f of a List, with default validation"), () => {
  let sb: Sandbox;
  let kubectl: Kubectl;

  beforeAll(async () => {
    if (!hasKubectl) return;
    sb = await startSandbox({ name: "lists" });
    kubectl = kubectlFor(sb.kubeconfig);
  });
  afterAll(() => sb?.stop());

  const ok = async (args: string[], stdin?: string): Promise<string> => {
    const r = await kubectl(args, { stdin });
    if (r.code !== 0 || r.stderr.trim() !== "")
      throw new Error(`kubectl ${args.join(" ")} → ${r.code}\nstderr: ${r.stderr}\nstdout: ${r.stdout}`);
    return r.stdout;
  };
  const exists = (plural: string, name: string, namespace?: string, group = "", version = "v1") => {
    const type = sb.api.registry.find(group, version, plural)!;
    try {
      return sb.api.get(type, namespace, name);
    } catch {
      return undefined;
    }
  };

  test.skipIf(!hasKubectl)(needsKubectl("a YAML List: Namespace, ConfigMap, Service and a CRD"), async () => {
    expect(await ok(["apply", "-f", "-"], firstList)).toBe(
      [
        "namespace/lists created",
        "configmap/settings created",
        "service/web created",
        "customresourcedefinition.apiextensions.k8s.io/gadgets.example.com created",
        "",
      ].join("\n"),
    );
    expect(exists("namespaces", "lists")).toBeDefined();
    expect(exists("configmaps", "settings", "lists")?.data).toEqual({ mode: "fast" });
    expect(exists("services", "web", "lists")).toBeDefined();
    expect(exists("customresourcedefinitions", "gadgets.example.com", undefined, "apiextensions.k8s.io")).toBeDefined();
  });

  test.skipIf(!hasKubectl)(
    needsKubectl("a JSON List: a Deployment and a custom resource of that CRD; applied again, it updates"),
    async () => {
      const spec = {
        size: "large",
        port: 8080,
        extra: { anything: { goes: true } },
        note: null,
        tags: ["a"],
        labels: { x: "y" },
        template: { apiVersion: "v1", kind: "Pod", metadata: { name: "t" }, spec: {} },
      };
      const list = jsonList(deployment([{ name: "web", image: "nginx:1" }]), gadget(spec));
      expect(await ok(["apply", "-f", "-"], list)).toBe("deployment.apps/web created\ngadget.example.com/g1 created\n");
      expect(exists("gadgets", "g1", "lists", "example.com")?.spec).toMatchObject({ size: "large", port: 8080 });
      // The update path: client-side apply's strategic merge patch still uses kubectl's compiled-in patch metadata.
      const changed = jsonList(
        deployment([
          { name: "web", image: "nginx:2" },
          { name: "side", image: "busybox" },
        ]),
        gadget({ ...spec, port: "http" }),
      );
      expect(await ok(["apply", "-f", "-"], changed)).toBe("deployment.apps/web configured\ngadget.example.com/g1 configured\n");
      const containers = (
        exists("deployments", "web", "lists", "apps")!.spec as { template: { spec: { containers: { name: string; image: string }[] } } }
      ).template.spec.containers;
      expect(containers.map((c) => `${c.name}=${c.image}`)).toEqual(["web=nginx:2", "side=busybox"]);
      expect((exists("gadgets", "g1", "lists", "example.com")!.spec as { port: unknown }).port).toBe("http");
    },
  );

  test.skipIf(!hasKubectl)(needsKubectl("an unknown field in any item is rejected client-side, before anything is written"), async () => {
    const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "never", namespace: "lists" }, data: { a: "b" } };
    const badService = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "bad", namespace: "lists" },
      spec: { ports: [{ port: 80, bogus: 1 }] },
    };
    let r = await kubectl(["apply", "-f", "-"], { stdin: jsonList(cm, badService) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'error validating data: ValidationError(Service.spec.ports[0]): unknown field "bogus" in io.k8s.api.core.v1.ServicePort',
    );
    r = await kubectl(["apply", "-f", "-"], { stdin: jsonList(cm, gadget({ size: "s", bogus: 1 })) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ValidationError(Gadget.spec): unknown field "bogus" in com.example.v1.Gadget.spec');
    r = await kubectl(["apply", "-f", "-"], { stdin: jsonList(cm, { ...deployment([{ name: "web", image: "x" }]), spce: {} }) });
    expect(r.stderr).toContain('unknown field "spce" in io.k8s.api.apps.v1.Deployment');
    expect(exists("configmaps", "never", "lists")).toBeUndefined();
    // Free-form parts stay free: a preserve-unknown-fields node, a CRD's own schema.
    expect(await ok(["apply", "--dry-run=client", "-f", "-"], jsonList(gadget({ size: "s", extra: { deep: [1, { x: 2 }] } })))).toContain(
      "(dry run)",
    );
  });

  test.skipIf(!hasKubectl)(needsKubectl("a single object still goes through server-side validation, without /openapi/v2"), async () => {
    const bad = "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: single, namespace: lists }\ndata: { a: b }\nbogus: 1\n";
    const r = await kubectl(["apply", "-v=6", "-f", "-"], { stdin: bad });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('strict decoding error: unknown field "bogus"');
    expect(r.stderr).toContain("fieldValidation=Strict");
    expect(r.stderr).not.toContain("/openapi/v2");
  });
});
