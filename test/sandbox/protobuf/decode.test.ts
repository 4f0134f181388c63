// Kubernetes protobuf request bodies → the JSON the JSON API carries.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import protobuf from "protobufjs";
import { decodeKubeProtobuf, PROTOBUF_CONTENT_TYPE, ProtobufDecodeError, protobufKinds } from "../../../src/sandbox/protobuf/decode.ts";
import type { KubeObject } from "../../../src/sandbox/types.ts";
import { hasKubectl, needsKubectl, kubectlFor, type Kubectl } from "../../helpers/kubectl.ts";

// Two halves:
//  1. bodies encoded here with protobufjs from the same .proto files, for the mapping rules
//     (Time, IntOrString, bytes, zero values, inline structs, …);
//  2. bodies the real kubectl sends, captured by a tiny fake API server that answers with the
//     decoded object, and compared with what the same kubectl prints for `--dry-run=client -o json`.

const PROTO_DIR = join(import.meta.dir, "../../../k8s/proto");
const protoFiles = readdirSync(PROTO_DIR, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith(".proto"));
const root = new protobuf.Root();
for (const f of protoFiles) protobuf.parse(readFileSync(join(PROTO_DIR, f), "utf8"), root, { keepCase: true });
root.resolveAll();

const META = "k8s.io.apimachinery.pkg.apis.meta.v1";

/** A body as kube's protobuf serializer writes it: k8s\0 + runtime.Unknown{typeMeta, raw}. */
function encode(apiVersion: string, kind: string, message: string, object: Record<string, unknown>): Uint8Array {
  const type = root.lookupType(message);
  const raw = type.encode(type.fromObject(object)).finish();
  const unknown = root.lookupType("k8s.io.apimachinery.pkg.runtime.Unknown");
  const envelope = unknown.encode(unknown.fromObject({ typeMeta: { apiVersion, kind }, raw })).finish();
  return new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...envelope]);
}

const utf8 = (s: string) => new TextEncoder().encode(s);
const DEC_2_2026 = 1796205600; // 2026-12-02T10:00:00Z

describe("decodeKubeProtobuf: mapping rules", () => {
  test("content type constant", () => {
    expect(PROTOBUF_CONTENT_TYPE).toBe("application/vnd.kubernetes.protobuf");
  });

  test("envelope, metadata, Time (seconds only) and the zero Time as null", () => {
    const obj = decodeKubeProtobuf(
      encode("v1", "Namespace", "k8s.io.api.core.v1.Namespace", {
        metadata: { name: "demo", labels: { b: "2", a: "1" }, creationTimestamp: { seconds: DEC_2_2026, nanos: 999 }, generation: 0 },
        spec: { finalizers: ["kubernetes"] },
      }),
    );
    expect(obj).toEqual({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "demo", labels: { a: "1", b: "2" }, creationTimestamp: "2026-12-02T10:00:00Z" },
      spec: { finalizers: ["kubernetes"] },
      status: {},
    });
    expect(Object.keys(obj.metadata.labels!)).toEqual(["a", "b"]); // Go sorts map keys
    // A non-pointer Time that is not on the wire is the zero time: null, as kubectl's own JSON has it.
    const old = decodeKubeProtobuf(
      encode("v1", "Namespace", "k8s.io.api.core.v1.Namespace", { metadata: { name: "x", creationTimestamp: { seconds: -1 } } }),
    );
    expect(old.metadata.creationTimestamp).toBe("1969-12-31T23:59:59Z");
    const bare = decodeKubeProtobuf(encode("v1", "Namespace", "k8s.io.api.core.v1.Namespace", { metadata: { name: "x" } }));
    expect<unknown>(bare.metadata).toEqual({ name: "x", creationTimestamp: null });
    expect("deletionTimestamp" in bare.metadata).toBe(false); // a pointer: absent
  });

  test("MicroTime keeps 6 fractional digits; int64 is a number", () => {
    const lease = decodeKubeProtobuf(
      encode("coordination.k8s.io/v1", "Lease", "k8s.io.api.coordination.v1.Lease", {
        metadata: { name: "l", namespace: "kube-system", generation: 9007199254740991 },
        spec: {
          holderIdentity: "me",
          leaseDurationSeconds: 15,
          renewTime: { seconds: DEC_2_2026, nanos: 123456789 },
          acquireTime: { seconds: DEC_2_2026 },
        },
      }),
    );
    expect(lease.metadata.generation).toBe(9007199254740991);
    expect(lease.spec).toEqual({
      holderIdentity: "me",
      leaseDurationSeconds: 15,
      acquireTime: "2026-12-02T10:00:00.000000Z",
      renewTime: "2026-12-02T10:00:00.123456Z",
    });
    const event = decodeKubeProtobuf(
      encode("v1", "Event", "k8s.io.api.core.v1.Event", {
        metadata: { name: "e" },
        involvedObject: { kind: "Pod", name: "p" },
        reason: "Started",
        count: 0,
      }),
    );
    // eventTime is a non-pointer MicroTime (null), firstTimestamp a non-pointer Time (null), count omitempty.
    expect(event).toMatchObject({
      reason: "Started",
      involvedObject: { kind: "Pod", name: "p" },
      eventTime: null,
      firstTimestamp: null,
      lastTimestamp: null,
      source: {},
    });
    expect("count" in event).toBe(false);
  });

  test("bytes → base64; string maps stay strings", () => {
    const secret = decodeKubeProtobuf(
      encode("v1", "Secret", "k8s.io.api.core.v1.Secret", {
        metadata: { name: "s" },
        data: { k: utf8("v"), bin: new Uint8Array([0, 255, 1]) },
        stringData: { plain: "text" },
        type: "Opaque",
      }),
    );
    expect(secret.data).toEqual({ bin: "AP8B", k: "dg==" });
    expect(Buffer.from((secret.data as Record<string, string>).k!, "base64").toString()).toBe("v");
    expect(secret.stringData).toEqual({ plain: "text" });
    expect(secret.type).toBe("Opaque");
    const cm = decodeKubeProtobuf(
      encode("v1", "ConfigMap", "k8s.io.api.core.v1.ConfigMap", {
        metadata: { name: "c" },
        binaryData: { blob: new Uint8Array([0xde, 0xad]) },
      }),
    );
    expect<unknown>(cm).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", creationTimestamp: null },
      binaryData: { blob: "3q0=" },
    });
    // "__proto__" is a valid ConfigMap key: an own property, not a prototype.
    const odd = decodeKubeProtobuf(
      encode("v1", "ConfigMap", "k8s.io.api.core.v1.ConfigMap", {
        metadata: { name: "c" },
        data: JSON.parse('{"__proto__": "x", "ok": "y"}'),
      }),
    );
    expect(JSON.stringify(odd.data)).toBe('{"__proto__":"x","ok":"y"}');
    expect(Object.getPrototypeOf(odd.data)).toBe(Object.prototype);
  });

  test("zero values: a pointer on the wire stays, a non-pointer omitempty zero goes, a non-omitempty zero stays", () => {
    const cm = decodeKubeProtobuf(encode("v1", "ConfigMap", "k8s.io.api.core.v1.ConfigMap", { metadata: { name: "c" }, immutable: false }));
    expect(cm.immutable).toBe(false); // *bool
    const d = decodeKubeProtobuf(
      encode("apps/v1", "Deployment", "k8s.io.api.apps.v1.Deployment", {
        metadata: { name: "d", namespace: "", generateName: "", resourceVersion: "" },
        spec: {
          replicas: 0,
          paused: false,
          minReadySeconds: 0,
          selector: {},
          template: { spec: { containers: [{ name: "c", image: "i", ports: [{ containerPort: 0, hostPort: 0 }] }] } },
        },
      }),
    );
    expect<unknown>(d.metadata).toEqual({ name: "d", creationTimestamp: null }); // "" and 0 with omitempty: gone
    const spec = d.spec as Record<string, unknown>;
    expect(spec.replicas).toBe(0); // *int32 on the wire
    expect("paused" in spec || "minReadySeconds" in spec || "revisionHistoryLimit" in spec).toBe(false);
    expect(spec.selector).toEqual({}); // *LabelSelector on the wire, empty
    expect(spec.strategy).toEqual({}); // a non-pointer struct is always there
    const container = (spec.template as { spec: { containers: Record<string, unknown>[] } }).spec.containers[0]!;
    expect(container.ports).toEqual([{ containerPort: 0 }]); // containerPort has no omitempty
    expect(container.resources).toEqual({});
    expect(d.status).toEqual({});
  });

  test("IntOrString → number or string; Quantity → string", () => {
    const svc = decodeKubeProtobuf(
      encode("v1", "Service", "k8s.io.api.core.v1.Service", {
        metadata: { name: "svc" },
        spec: {
          ports: [
            { name: "a", port: 80, targetPort: { type: 0, intVal: 8080 } },
            { name: "b", port: 443, targetPort: { type: 1, strVal: "https" } },
            { name: "c", port: 0 },
          ],
        },
      }),
    );
    expect((svc.spec as { ports: unknown[] }).ports).toEqual([
      { name: "a", port: 80, targetPort: 8080 },
      { name: "b", port: 443, targetPort: "https" },
      { name: "c", port: 0, targetPort: 0 }, // a non-pointer IntOrString is always written by Go
    ]);
    const pdb = decodeKubeProtobuf(
      encode("policy/v1", "PodDisruptionBudget", "k8s.io.api.policy.v1.PodDisruptionBudget", {
        metadata: { name: "p" },
        spec: { maxUnavailable: { type: 1, strVal: "25%" } },
      }),
    );
    expect(pdb.spec).toEqual({ maxUnavailable: "25%" }); // minAvailable is a pointer, absent
    const quota = decodeKubeProtobuf(
      encode("v1", "ResourceQuota", "k8s.io.api.core.v1.ResourceQuota", {
        metadata: { name: "q" },
        spec: { hard: { memory: { string: "1Gi" }, cpu: { string: "500m" } } },
      }),
    );
    expect(quota.spec).toEqual({ hard: { cpu: "500m", memory: "1Gi" } });
  });

  test("inlined structs (LocalObjectReference, ProbeHandler, VolumeSource) and renamed fields", () => {
    const pod = decodeKubeProtobuf(
      encode("v1", "Pod", "k8s.io.api.core.v1.Pod", {
        metadata: { name: "p" },
        spec: {
          activeDeadlineSeconds: 30,
          containers: [
            {
              name: "c",
              image: "nginx",
              env: [{ name: "A", valueFrom: { configMapKeyRef: { localObjectReference: { name: "cm" }, key: "k" } } }],
              readinessProbe: { handler: { httpGet: { path: "/", port: { type: 1, strVal: "http" } } }, periodSeconds: 5 },
              resources: { limits: { cpu: { string: "1" } } },
            },
          ],
          volumes: [{ name: "v", volumeSource: { configMap: { localObjectReference: { name: "cm" }, defaultMode: 420 } } }],
        },
      }),
    );
    const spec = pod.spec as Record<string, unknown>;
    expect(spec.activeDeadlineSeconds).toBe(30);
    expect(spec.volumes).toEqual([{ name: "v", configMap: { name: "cm", defaultMode: 420 } }]);
    expect(spec.containers).toEqual([
      {
        name: "c",
        image: "nginx",
        env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "cm", key: "k" } } }],
        resources: { limits: { cpu: "1" } },
        readinessProbe: { httpGet: { path: "/", port: "http" }, periodSeconds: 5 },
      },
    ]);
    const tr = decodeKubeProtobuf(
      encode("authentication.k8s.io/v1", "TokenRequest", "k8s.io.api.authentication.v1.TokenRequest", {
        metadata: { name: "sa" },
        spec: { audiences: ["api"], expirationSeconds: 3600, boundObjectRef: { kind: "Pod", name: "p", uID: "u-1" } },
      }),
    );
    expect(tr.spec).toEqual({ audiences: ["api"], expirationSeconds: 3600, boundObjectRef: { kind: "Pod", name: "p", uid: "u-1" } });
  });

  test("FieldsV1, RawExtension and ExtraValue", () => {
    const fields = { "f:data": { "f:a": {} } };
    const cm = decodeKubeProtobuf(
      encode("v1", "ConfigMap", "k8s.io.api.core.v1.ConfigMap", {
        metadata: {
          name: "c",
          managedFields: [
            {
              manager: "kubectl",
              operation: "Update",
              apiVersion: "v1",
              time: { seconds: DEC_2_2026 },
              fieldsType: "FieldsV1",
              fieldsV1: { Raw: utf8(JSON.stringify(fields)) },
            },
          ],
        },
      }),
    );
    expect(cm.metadata.managedFields).toEqual([
      { manager: "kubectl", operation: "Update", apiVersion: "v1", time: "2026-12-02T10:00:00Z", fieldsType: "FieldsV1", fieldsV1: fields },
    ]);
    const rev = decodeKubeProtobuf(
      encode("apps/v1", "ControllerRevision", "k8s.io.api.apps.v1.ControllerRevision", {
        metadata: { name: "r" },
        data: { raw: utf8('{"spec":{"x":1}}') },
        revision: 3,
      }),
    );
    expect(rev).toMatchObject({ data: { spec: { x: 1 } }, revision: 3 });
    const sar = decodeKubeProtobuf(
      encode("authorization.k8s.io/v1", "SubjectAccessReview", "k8s.io.api.authorization.v1.SubjectAccessReview", {
        spec: {
          user: "alice",
          groups: ["dev"],
          extra: { scopes: { items: ["a", "b"] } },
          nonResourceAttributes: { path: "/healthz", verb: "get" },
        },
      }),
    );
    expect(sar.spec).toEqual({
      user: "alice",
      groups: ["dev"],
      extra: { scopes: ["a", "b"] },
      nonResourceAttributes: { path: "/healthz", verb: "get" },
    });
    expect(sar.status).toEqual({ allowed: false }); // allowed has no omitempty
  });

  test("lists: empty omitempty lists go, a non-omitempty one is null", () => {
    const role = decodeKubeProtobuf(
      encode("rbac.authorization.k8s.io/v1", "Role", "k8s.io.api.rbac.v1.Role", {
        metadata: { name: "r" },
        rules: [{ resources: ["pods"] }],
      }),
    );
    expect(role.rules).toEqual([{ verbs: null, resources: ["pods"] }]); // PolicyRule.verbs is `json:"verbs"`
  });

  test("DeleteOptions from a typed client's DELETE", () => {
    const opts = decodeKubeProtobuf(
      encode("v1", "DeleteOptions", `${META}.DeleteOptions`, { propagationPolicy: "Background", gracePeriodSeconds: 0, dryRun: ["All"] }),
    );
    expect<unknown>(opts).toEqual({
      apiVersion: "v1",
      kind: "DeleteOptions",
      gracePeriodSeconds: 0,
      propagationPolicy: "Background",
      dryRun: ["All"],
    });
    expect(decodeKubeProtobuf(encode("meta.k8s.io/v1", "DeleteOptions", `${META}.DeleteOptions`, {})).kind).toBe("DeleteOptions");
  });

  test("unknown fields are skipped (a newer client)", () => {
    const writer = protobuf.Writer.create();
    writer.uint32((1 << 3) | 2).bytes(root.lookupType(`${META}.ObjectMeta`).encode({ name: "x" }).finish());
    writer.uint32((99 << 3) | 2).string("from the future");
    writer.uint32((98 << 3) | 0).uint64(7);
    const unknown = root.lookupType("k8s.io.apimachinery.pkg.runtime.Unknown");
    const body = unknown
      .encode(unknown.fromObject({ typeMeta: { apiVersion: "v1", kind: "ServiceAccount" }, raw: writer.finish() }))
      .finish();
    expect<unknown>(decodeKubeProtobuf(new Uint8Array([0x6b, 0x38, 0x73, 0, ...body]))).toEqual({
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "x", creationTimestamp: null },
    });
  });

  test("errors say why", () => {
    const fail = (b: Uint8Array) => {
      try {
        decodeKubeProtobuf(b);
      } catch (e) {
        expect(e).toBeInstanceOf(ProtobufDecodeError);
        return (e as ProtobufDecodeError).reason;
      }
      throw new Error("decoded");
    };
    expect(fail(utf8('{"kind":"Namespace"}'))).toBe("NotProtobuf");
    expect(fail(encode("constructor", "DeleteOptions", `${META}.DeleteOptions`, {}))).toBe("UnsupportedType");
    expect(fail(encode("toString", "Namespace", "k8s.io.api.core.v1.Namespace", {}))).toBe("UnsupportedType");
    expect(fail(encode("v1", "Namespace", "k8s.io.api.core.v1.Namespace", { metadata: { creationTimestamp: { seconds: 1e15 } } }))).toBe(
      "Malformed",
    );
    expect(fail(encode("example.com/v1", "Widget", "k8s.io.api.core.v1.Namespace", {}))).toBe("UnsupportedType");
    expect(fail(encode("v1", "PodSpec", "k8s.io.api.core.v1.PodSpec", {}))).toBe("UnsupportedType"); // not a top-level kind
    const good = encode("v1", "Namespace", "k8s.io.api.core.v1.Namespace", { metadata: { name: "demo" } });
    expect(fail(good.subarray(0, good.length - 2))).toBe("Malformed");
    expect(fail(new Uint8Array([0x6b, 0x38, 0x73, 0, 0x0a, 0x05, 0x0a]))).toBe("Malformed");
  });

  test("schema: every kind resolves, every message has JSON tags for every field", () => {
    const tags = JSON.parse(readFileSync(join(PROTO_DIR, "json-tags.json"), "utf8")) as Record<string, Record<string, string>>;
    const special = new Set(
      [
        `${META}.Time`,
        `${META}.MicroTime`,
        `${META}.FieldsV1`,
        "k8s.io.apimachinery.pkg.api.resource.Quantity",
        "k8s.io.apimachinery.pkg.util.intstr.IntOrString",
      ]
        .concat([
          "k8s.io.apimachinery.pkg.runtime.RawExtension",
          "k8s.io.apimachinery.pkg.runtime.Unknown",
          "k8s.io.apimachinery.pkg.runtime.TypeMeta",
        ])
        .concat(["k8s.io.api.authentication.v1.ExtraValue", "k8s.io.api.authorization.v1.ExtraValue"]),
    );
    const missing: string[] = [];
    const walk = (ns: protobuf.NamespaceBase) => {
      for (const child of ns.nestedArray) {
        if (child instanceof protobuf.Type) {
          const name = child.fullName.slice(1);
          if (!special.has(name))
            for (const f of child.fieldsArray) if (tags[name]?.[f.name] === undefined) missing.push(`${name}.${f.name}`);
        }
        if (child instanceof protobuf.Namespace) walk(child);
      }
    };
    walk(root);
    expect(missing).toEqual([]);
    for (const { apiVersion, kind } of protobufKinds()) {
      const raw = new protobuf.Writer().finish();
      const unknown = root.lookupType("k8s.io.apimachinery.pkg.runtime.Unknown");
      const body = unknown.encode(unknown.fromObject({ typeMeta: { apiVersion, kind }, raw })).finish();
      const obj = decodeKubeProtobuf(new Uint8Array([0x6b, 0x38, 0x73, 0, ...body]));
      expect([obj.apiVersion, obj.kind]).toEqual([apiVersion, kind]);
    }
    expect(protobufKinds().length).toBeGreaterThanOrEqual(34);
  });
});

// ---- the real kubectl ------------------------------------------------------------------------

const GROUPS: [gv: string, resources: [plural: string, kind: string, namespaced: boolean][]][] = [
  [
    "v1",
    [
      ["namespaces", "Namespace", false],
      ["configmaps", "ConfigMap", true],
      ["secrets", "Secret", true],
      ["serviceaccounts", "ServiceAccount", true],
      ["services", "Service", true],
      ["resourcequotas", "ResourceQuota", true],
    ],
  ],
  ["apps/v1", [["deployments", "Deployment", true]]],
  [
    "batch/v1",
    [
      ["jobs", "Job", true],
      ["cronjobs", "CronJob", true],
    ],
  ],
  ["networking.k8s.io/v1", [["ingresses", "Ingress", true]]],
  ["policy/v1", [["poddisruptionbudgets", "PodDisruptionBudget", true]]],
  ["scheduling.k8s.io/v1", [["priorityclasses", "PriorityClass", false]]],
  [
    "rbac.authorization.k8s.io/v1",
    [
      ["roles", "Role", true],
      ["rolebindings", "RoleBinding", true],
      ["clusterroles", "ClusterRole", false],
      ["clusterrolebindings", "ClusterRoleBinding", false],
    ],
  ],
  ["authorization.k8s.io/v1", [["selfsubjectaccessreviews", "SelfSubjectAccessReview", false]]],
];

function discovery(path: string): unknown {
  if (path === "/api")
    return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "127.0.0.1" }] };
  if (path === "/apis") {
    const groups = GROUPS.filter(([gv]) => gv.includes("/")).map(([gv]) => {
      const [name, version] = gv.split("/") as [string, string];
      return { name, versions: [{ groupVersion: gv, version }], preferredVersion: { groupVersion: gv, version } };
    });
    return { kind: "APIGroupList", apiVersion: "v1", groups };
  }
  const entry = GROUPS.find(([gv]) => path === (gv === "v1" ? "/api/v1" : `/apis/${gv}`));
  if (!entry) return undefined;
  const [gv, resources] = entry;
  const verbs = gv === "authorization.k8s.io/v1" ? ["create"] : ["create", "delete", "get", "list", "patch", "update", "watch"];
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: gv,
    resources: resources.map(([name, kind, namespaced]) => ({ name, singularName: kind.toLowerCase(), namespaced, kind, verbs })),
  };
}

interface Captured {
  path: string;
  contentType: string | null;
  object: KubeObject;
}

describe(needsKubectl("real kubectl request bodies"), () => {
  let server: ReturnType<typeof Bun.serve> | undefined;
  let kubectl: Kubectl;
  let captured: Captured[] = [];

  beforeAll(() => {
    if (!hasKubectl) return;
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const url = new URL(req.url);
        const status = (code: number, reason: string, message: string) =>
          Response.json({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason, message, code }, { status: code });
        if (req.method === "GET") {
          const doc = discovery(url.pathname);
          return doc ? Response.json(doc) : status(404, "NotFound", `${url.pathname} not found`);
        }
        if (req.method !== "POST") return status(405, "MethodNotAllowed", req.method);
        const contentType = req.headers.get("content-type");
        const bytes = new Uint8Array(await req.arrayBuffer());
        let object: KubeObject;
        try {
          object =
            contentType === PROTOBUF_CONTENT_TYPE ? decodeKubeProtobuf(bytes) : (JSON.parse(new TextDecoder().decode(bytes)) as KubeObject);
        } catch (e) {
          return status(400, "BadRequest", (e as Error).message);
        }
        captured.push({ path: url.pathname, contentType, object });
        const reply = object.kind === "SelfSubjectAccessReview" ? { ...object, status: { allowed: true } } : object;
        return Response.json(reply, { status: 201 });
      },
    });
    kubectl = kubectlFor(`apiVersion: v1
kind: Config
clusters: [{ name: fake, cluster: { server: "http://127.0.0.1:${server.port}" } }]
contexts: [{ name: fake, context: { cluster: fake, user: nobody, namespace: default } }]
current-context: fake
users: [{ name: nobody, user: {} }]
`);
  });
  afterAll(() => server?.stop(true));

  /** Runs `kubectl <args>` for real, returns the one body it sent, decoded; and checks that it
   *  equals the object `kubectl <args> --dry-run=client -o json` prints. */
  async function sent(args: string[], expectStdout: RegExp): Promise<Captured> {
    captured = [];
    const run = await kubectl(args);
    expect(`${run.code} ${run.stderr}`).toBe("0 ");
    expect(run.stdout).toMatch(expectStdout);
    expect(captured).toHaveLength(1);
    const body = captured[0]!;
    expect(body.contentType).toBe(PROTOBUF_CONTENT_TYPE);
    if (args[0] === "create") {
      const dashes = args.includes("--") ? args.indexOf("--") : args.length;
      const dry = await kubectl([...args.slice(0, dashes), "--dry-run=client", "-o", "json", ...args.slice(dashes)]);
      expect(dry.code).toBe(0);
      expect(body.object).toEqual(JSON.parse(dry.stdout));
    }
    return body;
  }

  test.skipIf(!hasKubectl)(needsKubectl("create namespace"), async () => {
    const { path, object } = await sent(["create", "namespace", "demo"], /^namespace\/demo created$/m);
    expect(path).toBe("/api/v1/namespaces");
    expect(object).toMatchObject({ apiVersion: "v1", kind: "Namespace", metadata: { name: "demo" } });
  });

  test.skipIf(!hasKubectl)(needsKubectl("create configmap, with a binary file"), async () => {
    const { object } = await sent(["create", "configmap", "c", "--from-literal=a=b", "-n", "default"], /^configmap\/c created$/m);
    expect(object).toMatchObject({ kind: "ConfigMap", metadata: { name: "c" }, data: { a: "b" } });
    const blob = join(kubectl.kubeconfigPath, "..", "blob.bin");
    writeFileSync(blob, new Uint8Array([0xff, 0x00, 0xfe]));
    const bin = await sent(["create", "configmap", "bin", `--from-file=blob=${blob}`], /^configmap\/bin created$/m);
    expect(bin.object.binaryData).toEqual({ blob: "/wD+" });
  });

  test.skipIf(!hasKubectl)(needsKubectl("create secret generic / docker-registry"), async () => {
    const { path, object } = await sent(["create", "secret", "generic", "s", "--from-literal=k=v"], /^secret\/s created$/m);
    expect(path).toBe("/api/v1/namespaces/default/secrets");
    const data = object.data as Record<string, string>;
    expect(Buffer.from(data.k!, "base64").toString()).toBe("v");
    const reg = await sent(
      ["create", "secret", "docker-registry", "reg", "--docker-server=r.example", "--docker-username=u", "--docker-password=p"],
      /^secret\/reg created$/m,
    );
    expect(reg.object.type).toBe("kubernetes.io/dockerconfigjson");
    const config = JSON.parse(Buffer.from((reg.object.data as Record<string, string>)[".dockerconfigjson"]!, "base64").toString());
    expect(config.auths["r.example"]).toMatchObject({ username: "u", password: "p" });
  });

  test.skipIf(!hasKubectl)(needsKubectl("create serviceaccount"), async () => {
    const { object } = await sent(["create", "serviceaccount", "sa"], /^serviceaccount\/sa created$/m);
    expect(object).toMatchObject({ kind: "ServiceAccount", metadata: { name: "sa" } });
  });

  test.skipIf(!hasKubectl)(needsKubectl("create deployment"), async () => {
    const { path, object } = await sent(
      ["create", "deployment", "d", "--image=nginx", "--replicas=2", "--port=80"],
      /^deployment\.apps\/d created$/m,
    );
    expect(path).toBe("/apis/apps/v1/namespaces/default/deployments");
    const spec = object.spec as {
      replicas: number;
      selector: unknown;
      template: { metadata: unknown; spec: { containers: Record<string, unknown>[] } };
    };
    expect(spec.replicas).toBe(2);
    expect(spec.selector).toEqual({ matchLabels: { app: "d" } });
    expect(spec.template.spec.containers).toEqual([{ name: "nginx", image: "nginx", ports: [{ containerPort: 80 }], resources: {} }]);
  });

  test.skipIf(!hasKubectl)(needsKubectl("create service clusterip / nodeport"), async () => {
    const { object } = await sent(["create", "service", "clusterip", "svc", "--tcp=80:8080"], /^service\/svc created$/m);
    expect(object.spec).toEqual({
      ports: [{ name: "80-8080", protocol: "TCP", port: 80, targetPort: 8080 }],
      selector: { app: "svc" },
      type: "ClusterIP",
    });
    const np = await sent(["create", "service", "nodeport", "np", "--tcp=443:https", "--node-port=30443"], /^service\/np created$/m);
    expect((np.object.spec as { ports: unknown[] }).ports).toEqual([
      { name: "443-https", protocol: "TCP", port: 443, targetPort: "https", nodePort: 30443 },
    ]);
  });

  test.skipIf(!hasKubectl)(needsKubectl("create role, rolebinding, clusterrole, clusterrolebinding"), async () => {
    const role = await sent(
      ["create", "role", "r", "--verb=get", "--verb=list", "--resource=services"],
      /^role\.rbac\.authorization\.k8s\.io\/r created$/m,
    );
    expect(role.path).toBe("/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles");
    expect(role.object.rules).toEqual([{ verbs: ["get", "list"], apiGroups: [""], resources: ["services"] }]);
    const rb = await sent(
      ["create", "rolebinding", "rb", "--role=r", "--serviceaccount=default:sa", "--user=alice"],
      /^rolebinding\.rbac\.authorization\.k8s\.io\/rb created$/m,
    );
    expect(rb.object.roleRef).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" });
    expect(rb.object.subjects).toEqual([
      { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "alice" },
      { kind: "ServiceAccount", name: "sa", namespace: "default" },
    ]);
    const cr = await sent(
      ["create", "clusterrole", "cr", "--verb=*", "--non-resource-url=/healthz"],
      /^clusterrole\.rbac\.authorization\.k8s\.io\/cr created$/m,
    );
    expect(cr.object.rules).toEqual([{ verbs: ["*"], nonResourceURLs: ["/healthz"] }]);
    const crb = await sent(
      ["create", "clusterrolebinding", "crb", "--clusterrole=cr", "--group=devs"],
      /^clusterrolebinding\.rbac\.authorization\.k8s\.io\/crb created$/m,
    );
    expect(crb.object).toMatchObject({ roleRef: { kind: "ClusterRole", name: "cr" }, subjects: [{ kind: "Group", name: "devs" }] });
  });

  test.skipIf(!hasKubectl)(needsKubectl("create job, cronjob, ingress, quota, pdb, priorityclass"), async () => {
    const job = await sent(["create", "job", "j", "--image=busybox", "--", "echo", "hi"], /^job\.batch\/j created$/m);
    expect((job.object.spec as { template: { spec: unknown } }).template.spec).toEqual({
      containers: [{ name: "j", image: "busybox", command: ["echo", "hi"], resources: {} }],
      restartPolicy: "Never",
    });
    const cj = await sent(["create", "cronjob", "cj", "--image=busybox", "--schedule=*/5 * * * *"], /^cronjob\.batch\/cj created$/m);
    expect(cj.object.spec).toMatchObject({ schedule: "*/5 * * * *" });
    const ing = await sent(["create", "ingress", "ing", "--rule=foo.com/bar=svc1:8080"], /^ingress\.networking\.k8s\.io\/ing created$/m);
    expect(ing.object.spec).toEqual({
      rules: [
        {
          host: "foo.com",
          http: { paths: [{ path: "/bar", pathType: "Exact", backend: { service: { name: "svc1", port: { number: 8080 } } } }] },
        },
      ],
    });
    const quota = await sent(["create", "quota", "q", "--hard=cpu=1500m,memory=1Gi,pods=10"], /^resourcequota\/q created$/m);
    expect(quota.object.spec).toEqual({ hard: { cpu: "1500m", memory: "1Gi", pods: "10" } });
    const pdb = await sent(["create", "pdb", "p", "--selector=app=x", "--min-available=0"], /^poddisruptionbudget\.policy\/p created$/m);
    expect(pdb.object.spec).toEqual({ minAvailable: 0, selector: { matchLabels: { app: "x" } } });
    const pc = await sent(
      ["create", "priorityclass", "pc", "--value=0", "--description=d"],
      /^priorityclass\.scheduling\.k8s\.io\/pc created$/m,
    );
    expect(pc.object).toMatchObject({ value: 0, description: "d", preemptionPolicy: "PreemptLowerPriority" });
  });

  test.skipIf(!hasKubectl)(needsKubectl("auth can-i (SelfSubjectAccessReview)"), async () => {
    const { path, object } = await sent(["auth", "can-i", "get", "services"], /^yes$/m);
    expect(path).toBe("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews");
    expect<unknown>(object).toEqual({
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { namespace: "default", verb: "get", resource: "services" } },
      status: { allowed: false },
    });
  });
});
