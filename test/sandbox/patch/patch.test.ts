// Patches as kube-apiserver applies them: JSON, merge and strategic merge (kubectl apply's).
import { describe, expect, test } from "bun:test";
import { applyPatch, patchTypeFromContentType, recordUpdateManager, serverSideApply } from "../../../src/sandbox/patch/patch.ts";
import type { PatchType } from "../../../src/sandbox/patch/patch.ts";
import { ApiError } from "../../../src/sandbox/types.ts";
import type { JsonObject, KubeObject, ManagedFieldsEntry } from "../../../src/sandbox/types.ts";

// ---- fixtures -------------------------------------------------------------------------------

const obj = (o: object): KubeObject => o as KubeObject;
const at = (o: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], o);

interface ContainerOpts {
  name?: string;
  image?: string;
  ports?: number[];
  args?: string[];
  env?: Record<string, string>;
}
const container = ({ name = "web", image = "nginx:1.25", ports, args, env }: ContainerOpts = {}) => ({
  name,
  image,
  ...(ports ? { ports: ports.map((containerPort) => ({ containerPort, protocol: "TCP" })) } : {}),
  ...(args ? { args } : {}),
  ...(env ? { env: Object.entries(env).map(([n, value]) => ({ name: n, value })) } : {}),
});

const deployment = (spec: JsonObject = {}, podSpec: JsonObject = { containers: [container({ ports: [80, 443] })] }) =>
  obj({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default", uid: "u-1", resourceVersion: "7", labels: { app: "web" } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: podSpec },
      ...spec,
    },
  });

const pod = (spec: JsonObject, extra: JsonObject = {}) =>
  obj({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" }, spec, ...extra });

const service = (ports: number[], extra: JsonObject = {}) =>
  obj({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web", namespace: "default" },
    spec: { selector: { app: "web" }, ports: ports.map((port) => ({ port, protocol: "TCP", targetPort: port })), ...extra },
  });

const strategic = (current: KubeObject, patch: unknown) => applyPatch(current, patch, "strategic", { builtin: true });

/** Every key anywhere in a value, to prove no directive survives. */
const allKeys = (v: unknown): string[] =>
  Array.isArray(v)
    ? v.flatMap(allKeys)
    : typeof v === "object" && v !== null
      ? Object.entries(v).flatMap(([k, child]) => [k, ...allKeys(child)])
      : [];

const apiError = (fn: () => unknown): ApiError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("expected an ApiError");
};

// ---- content types ----------------------------------------------------------------------------

describe("patchTypeFromContentType", () => {
  const cases: [string, PatchType | undefined][] = [
    ["application/json-patch+json", "json"],
    ["application/merge-patch+json", "merge"],
    ["application/strategic-merge-patch+json", "strategic"],
    ["application/apply-patch+yaml", "apply"],
    ["application/merge-patch+json; charset=utf-8", "merge"],
    ["Application/Apply-Patch+YAML ;charset=UTF-8", "apply"],
    ["application/json", undefined],
    ["", undefined],
  ];
  for (const [contentType, type] of cases) {
    test(`"${contentType}" is ${type ?? "not a patch type"}`, () => {
      expect(patchTypeFromContentType(contentType)).toBe(type);
    });
  }
});

// ---- JSON patch --------------------------------------------------------------------------------

describe("JSON patch", () => {
  test("add, replace, remove and a passing test apply in order", () => {
    const before = deployment();
    const after = applyPatch(
      before,
      [
        { op: "test", path: "/spec/replicas", value: 1 },
        { op: "replace", path: "/spec/replicas", value: 3 },
        { op: "add", path: "/metadata/labels/tier", value: "front" },
        { op: "remove", path: "/metadata/labels/app" },
        { op: "add", path: "/spec/template/spec/containers/-", value: container({ name: "side" }) },
      ],
      "json",
      { builtin: true },
    );
    expect(at(after, "spec.replicas")).toBe(3);
    expect(after.metadata.labels).toEqual({ tier: "front" });
    expect((at(after, "spec.template.spec.containers") as unknown[]).length).toBe(2);
    expect(before.metadata.labels).toEqual({ app: "web" });
    expect(at(before, "spec.replicas")).toBe(1);
  });

  const failures: [string, unknown[]][] = [
    ["a failing test op", [{ op: "test", path: "/spec/replicas", value: 5 }]],
    ["removing a missing key", [{ op: "remove", path: "/metadata/labels/nope" }]],
    ["replacing a missing key", [{ op: "replace", path: "/spec/paused", value: true }]],
    ["adding under a missing parent", [{ op: "add", path: "/spec/nope/deeper", value: 1 }]],
    ["an unknown op", [{ op: "frobnicate", path: "/spec" }]],
  ];
  for (const [what, patch] of failures) {
    test(`${what} is rejected with 422 Invalid and leaves the object untouched`, () => {
      const before = deployment();
      const err = apiError(() => applyPatch(before, patch, "json", { builtin: true }));
      expect(err.code).toBe(422);
      expect(err.reason).toBe("Invalid");
      expect(err.message).toBe("the server rejected our request due to an error in our request");
      expect(err.details).toBeUndefined();
      expect(at(before, "spec.replicas")).toBe(1);
    });
  }

  test("a failing test op keeps the failing path on the error for logs, not in the Status", () => {
    const err = apiError(() => applyPatch(deployment(), [{ op: "test", path: "/spec/replicas", value: 5 }], "json", { builtin: true }));
    expect((err as ApiError & { why?: string }).why).toBe("testing value /spec/replicas failed: test failed");
    expect(JSON.stringify(err.toStatus())).not.toContain("testing value");
  });

  for (const body of [{ op: "add" }, "nope", null]) {
    test(`a body that is not an array (${JSON.stringify(body)}) is a 400 BadRequest`, () => {
      const err = apiError(() => applyPatch(deployment(), body, "json", { builtin: true }));
      expect(err.code).toBe(400);
      expect(err.reason).toBe("BadRequest");
    });
  }

  test("JSON patch works on custom resources", () => {
    const cr = obj({ apiVersion: "x.io/v1", kind: "Widget", metadata: { name: "w" }, spec: { size: 1 } });
    expect(at(applyPatch(cr, [{ op: "replace", path: "/spec/size", value: 2 }], "json", { builtin: false }), "spec.size")).toBe(2);
  });
});

// ---- merge patch -------------------------------------------------------------------------------

describe("JSON merge patch", () => {
  test("kubectl label adds and removes labels (tier=front old-)", () => {
    const before = deployment();
    before.metadata.labels = { app: "web", old: "1" };
    const after = applyPatch(before, { metadata: { labels: { old: null, tier: "front" } } }, "merge", { builtin: true });
    expect(after.metadata.labels).toEqual({ app: "web", tier: "front" });
    expect(before.metadata.labels).toEqual({ app: "web", old: "1" });
  });

  test("kubectl annotate adds an annotation to an object that had none", () => {
    const after = applyPatch(deployment(), { metadata: { annotations: { note: "hi" } } }, "merge", { builtin: true });
    expect(after.metadata.annotations).toEqual({ note: "hi" });
    expect(after.metadata.labels).toEqual({ app: "web" });
  });

  test("lists are replaced whole, even keyed ones", () => {
    const after = applyPatch(
      deployment(),
      { spec: { template: { spec: { containers: [{ name: "only", image: "busybox" }] } } } },
      "merge",
      { builtin: true },
    );
    expect(at(after, "spec.template.spec.containers")).toEqual([{ name: "only", image: "busybox" }]);
  });

  test("null deletes nested keys and unknown nulls are dropped", () => {
    const after = applyPatch(deployment(), { spec: { replicas: null, paused: null, strategy: { type: "Recreate", x: null } } }, "merge", {
      builtin: true,
    });
    expect(at(after, "spec.replicas")).toBeUndefined();
    expect(at(after, "spec")).not.toHaveProperty("paused");
    expect(at(after, "spec.strategy")).toEqual({ type: "Recreate" });
  });

  test("merge patch works on custom resources", () => {
    const cr = obj({ apiVersion: "x.io/v1", kind: "Widget", metadata: { name: "w" }, spec: { size: 1, tags: ["a"] } });
    const after = applyPatch(cr, { spec: { tags: ["b"] } }, "merge", { builtin: false });
    expect(at(after, "spec")).toEqual({ size: 1, tags: ["b"] });
  });

  for (const body of [[{ op: "add" }], "x", 3, null]) {
    test(`a body that is not an object (${JSON.stringify(body)}) is a 400 BadRequest`, () => {
      expect(apiError(() => applyPatch(deployment(), body, "merge", { builtin: true })).code).toBe(400);
      expect(apiError(() => applyPatch(deployment(), body, "strategic", { builtin: true })).code).toBe(400);
    });
  }
});

// ---- strategic merge patch ---------------------------------------------------------------------

describe("strategic merge patch sent by kubectl apply", () => {
  test("changing a container image and removing a port (the exact kubectl 1.32 patch)", () => {
    const lastApplied = '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web","namespace":"default"}}\n';
    const patch = {
      metadata: { annotations: { "kubectl.kubernetes.io/last-applied-configuration": lastApplied } },
      spec: {
        template: {
          spec: {
            "$setElementOrder/containers": [{ name: "web" }],
            containers: [
              {
                "$setElementOrder/ports": [{ containerPort: 80 }],
                image: "nginx:1.26",
                name: "web",
                ports: [{ $patch: "delete", containerPort: 443 }],
              },
            ],
          },
        },
      },
    };
    const before = deployment();
    const after = strategic(before, patch);
    expect(at(after, "spec.template.spec.containers")).toEqual([
      { name: "web", image: "nginx:1.26", ports: [{ containerPort: 80, protocol: "TCP" }] },
    ]);
    expect(after.metadata.annotations).toEqual({ "kubectl.kubernetes.io/last-applied-configuration": lastApplied });
    expect(allKeys(after).filter((k) => k.startsWith("$"))).toEqual([]);
    expect(at(before, "spec.template.spec.containers")).toEqual([container({ ports: [80, 443] })]);
  });

  test("removing a finalizer, a label, an env var and an arg, reordering containers and switching strategy", () => {
    // The patch kubectl 1.32 sent for this change, annotation aside.
    const patch = {
      metadata: {
        "$deleteFromPrimitiveList/finalizers": ["b.io/y"],
        "$setElementOrder/finalizers": ["a.io/x"],
        labels: { old: null },
      },
      spec: {
        strategy: { $retainKeys: ["type"], rollingUpdate: null, type: "Recreate" },
        template: {
          spec: {
            "$setElementOrder/containers": [{ name: "side" }, { name: "web" }],
            containers: [{ "$setElementOrder/env": [{ name: "A" }], args: ["x"], env: [{ $patch: "delete", name: "B" }], name: "web" }],
          },
        },
      },
    };
    const before = deployment(
      { strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1 } } },
      { containers: [container({ args: ["x", "y"], env: { A: "1", B: "2" } }), container({ name: "side", image: "busybox" })] },
    );
    before.metadata.finalizers = ["a.io/x", "b.io/y"];
    before.metadata.labels = { app: "web", old: "1" };
    const after = strategic(before, patch);
    expect(after.metadata.finalizers).toEqual(["a.io/x"]);
    expect(after.metadata.labels).toEqual({ app: "web" });
    expect(at(after, "spec.strategy")).toEqual({ type: "Recreate" });
    expect(at(after, "spec.template.spec.containers")).toEqual([
      { name: "side", image: "busybox" },
      { name: "web", image: "nginx:1.25", args: ["x"], env: [{ name: "A", value: "1" }] },
    ]);
    expect(allKeys(after).filter((k) => k.startsWith("$"))).toEqual([]);
  });
});

describe("strategic merge patch semantics", () => {
  interface Case {
    name: string;
    before: KubeObject;
    patch: unknown;
    path: string;
    expected: unknown;
  }
  const podSpec = (spec: JsonObject) => pod({ containers: [container()], ...spec });
  const cases: Case[] = [
    {
      name: "maps merge recursively",
      before: deployment(),
      patch: { spec: { strategy: { type: "Recreate" } } },
      path: "spec.replicas",
      expected: 1,
    },
    { name: "null deletes a key", before: deployment(), patch: { spec: { replicas: null } }, path: "spec.replicas", expected: undefined },
    {
      name: "null for a missing key is not stored",
      before: deployment(),
      patch: { spec: { paused: null, strategy: { type: "Recreate", rollingUpdate: null } } },
      path: "spec.strategy",
      expected: { type: "Recreate" },
    },
    {
      name: "containers merge by name: a patched container keeps its other fields, a new one is appended",
      before: podSpec({ containers: [container({ ports: [80] }), container({ name: "side", image: "busybox" })] }),
      patch: {
        spec: {
          containers: [
            { name: "web", image: "nginx:2" },
            { name: "extra", image: "alpine" },
          ],
        },
      },
      path: "spec.containers",
      expected: [
        { name: "web", image: "nginx:2", ports: [{ containerPort: 80, protocol: "TCP" }] },
        { name: "extra", image: "alpine" },
        { name: "side", image: "busybox" },
      ],
    },
    {
      name: "initContainers and ephemeralContainers merge by name",
      before: pod({ initContainers: [container({ name: "init" })], ephemeralContainers: [container({ name: "dbg" })] }),
      patch: { spec: { initContainers: [{ name: "init", image: "i:2" }], ephemeralContainers: [{ name: "dbg", image: "d:2" }] } },
      path: "spec",
      expected: { initContainers: [{ name: "init", image: "i:2" }], ephemeralContainers: [{ name: "dbg", image: "d:2" }] },
    },
    {
      name: "container args are replaced, not merged",
      before: podSpec({ containers: [container({ args: ["a", "b"] })] }),
      patch: { spec: { containers: [{ name: "web", args: ["c"], command: ["sh"] }] } },
      path: "spec.containers",
      expected: [{ name: "web", image: "nginx:1.25", args: ["c"], command: ["sh"] }],
    },
    {
      name: "container ports merge by containerPort",
      before: podSpec({ containers: [container({ ports: [80] })] }),
      patch: { spec: { containers: [{ name: "web", ports: [{ containerPort: 80, name: "http" }, { containerPort: 9090 }] }] } },
      path: "spec.containers",
      expected: [
        { name: "web", image: "nginx:1.25", ports: [{ containerPort: 80, protocol: "TCP", name: "http" }, { containerPort: 9090 }] },
      ],
    },
    {
      name: "env merges by name",
      before: podSpec({ containers: [container({ env: { A: "1", B: "2" } })] }),
      patch: {
        spec: {
          containers: [
            {
              name: "web",
              env: [
                { name: "B", value: "3" },
                { name: "C", value: "4" },
              ],
            },
          ],
        },
      },
      path: "spec.containers",
      expected: [
        {
          name: "web",
          image: "nginx:1.25",
          env: [
            { name: "A", value: "1" },
            { name: "B", value: "3" },
            { name: "C", value: "4" },
          ],
        },
      ],
    },
    {
      name: "volumeMounts merge by mountPath and volumeDevices by devicePath",
      before: podSpec({
        containers: [
          { ...container(), volumeMounts: [{ name: "a", mountPath: "/a" }], volumeDevices: [{ name: "d", devicePath: "/dev/x" }] },
        ],
      }),
      patch: {
        spec: {
          containers: [
            { name: "web", volumeMounts: [{ name: "b", mountPath: "/b" }], volumeDevices: [{ name: "d2", devicePath: "/dev/x" }] },
          ],
        },
      },
      path: "spec.containers",
      expected: [
        {
          name: "web",
          image: "nginx:1.25",
          // New items go before live-only ones unless the live order says otherwise, as in kube.
          volumeMounts: [
            { name: "b", mountPath: "/b" },
            { name: "a", mountPath: "/a" },
          ],
          volumeDevices: [{ name: "d2", devicePath: "/dev/x" }],
        },
      ],
    },
    {
      name: "volumes merge by name",
      before: podSpec({ volumes: [{ name: "a", emptyDir: {} }] }),
      patch: { spec: { volumes: [{ name: "b", configMap: { name: "cm" } }] } },
      path: "spec.volumes",
      expected: [
        { name: "b", configMap: { name: "cm" } },
        { name: "a", emptyDir: {} },
      ],
    },
    {
      name: "a volume's $retainKeys swaps its source",
      before: podSpec({ volumes: [{ name: "a", emptyDir: {} }] }),
      patch: { spec: { volumes: [{ name: "a", $retainKeys: ["name", "configMap"], configMap: { name: "cm" } }] } },
      path: "spec.volumes",
      expected: [{ name: "a", configMap: { name: "cm" } }],
    },
    {
      name: "imagePullSecrets merge by name",
      before: podSpec({ imagePullSecrets: [{ name: "a" }] }),
      patch: { spec: { imagePullSecrets: [{ name: "b" }, { name: "a" }] } },
      path: "spec.imagePullSecrets",
      expected: [{ name: "b" }, { name: "a" }],
    },
    {
      name: "hostAliases merge by ip",
      before: podSpec({ hostAliases: [{ ip: "1.1.1.1", hostnames: ["a"] }] }),
      patch: {
        spec: {
          hostAliases: [
            { ip: "1.1.1.1", hostnames: ["b"] },
            { ip: "2.2.2.2", hostnames: ["c"] },
          ],
        },
      },
      path: "spec.hostAliases",
      expected: [
        { ip: "1.1.1.1", hostnames: ["b"] },
        { ip: "2.2.2.2", hostnames: ["c"] },
      ],
    },
    {
      name: "tolerations have no strategy and are replaced",
      before: podSpec({ tolerations: [{ key: "a", operator: "Exists" }] }),
      patch: { spec: { tolerations: [{ key: "b", operator: "Exists" }] } },
      path: "spec.tolerations",
      expected: [{ key: "b", operator: "Exists" }],
    },
    {
      name: "finalizers merge as a set of strings",
      before: obj({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", finalizers: ["a", "b"] } }),
      patch: { metadata: { finalizers: ["c", "a"] } },
      path: "metadata.finalizers",
      expected: ["c", "a", "b"],
    },
    {
      name: "$deleteFromPrimitiveList removes finalizers",
      before: obj({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", finalizers: ["a", "b", "c"] } }),
      patch: { metadata: { "$deleteFromPrimitiveList/finalizers": ["b", "zz"] } },
      path: "metadata.finalizers",
      expected: ["a", "c"],
    },
    {
      name: "ownerReferences merge by uid",
      before: obj({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", ownerReferences: [{ uid: "1", name: "a", kind: "X" }] } }),
      patch: { metadata: { ownerReferences: [{ uid: "2", name: "b", kind: "X" }] } },
      path: "metadata.ownerReferences",
      expected: [
        { uid: "2", name: "b", kind: "X" },
        { uid: "1", name: "a", kind: "X" },
      ],
    },
    {
      name: "Service ports merge by port",
      before: service([80, 443]),
      patch: { spec: { ports: [{ port: 443, targetPort: 8443 }, { port: 9000 }] } },
      path: "spec.ports",
      expected: [{ port: 80, protocol: "TCP", targetPort: 80 }, { port: 443, protocol: "TCP", targetPort: 8443 }, { port: 9000 }],
    },
    {
      name: "Service selector maps merge",
      before: service([80]),
      patch: { spec: { selector: { tier: "front" } } },
      path: "spec.selector",
      expected: { app: "web", tier: "front" },
    },
    {
      name: "ServiceAccount secrets merge by name",
      before: obj({
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: "sa" },
        secrets: [{ name: "a" }],
        imagePullSecrets: [{ name: "p" }],
      }),
      patch: { secrets: [{ name: "b" }], imagePullSecrets: [{ name: "q" }] },
      path: "secrets",
      expected: [{ name: "b" }, { name: "a" }],
    },
    {
      name: "Endpoints subsets are replaced whole",
      before: obj({ apiVersion: "v1", kind: "Endpoints", metadata: { name: "e" }, subsets: [{ addresses: [{ ip: "10.0.0.1" }] }] }),
      patch: { subsets: [{ addresses: [{ ip: "10.0.0.2" }] }] },
      path: "subsets",
      expected: [{ addresses: [{ ip: "10.0.0.2" }] }],
    },
    {
      name: "$patch: replace on a map replaces it",
      before: deployment({ strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1 } } }),
      patch: { spec: { strategy: { $patch: "replace", type: "Recreate" } } },
      path: "spec.strategy",
      expected: { type: "Recreate" },
    },
    {
      name: "$patch: delete on a map empties it",
      before: deployment({ strategy: { type: "RollingUpdate" } }),
      patch: { spec: { strategy: { $patch: "delete" } } },
      path: "spec.strategy",
      expected: {},
    },
    {
      name: "$patch: merge on a map is the default merge",
      before: deployment({ strategy: { type: "RollingUpdate" } }),
      patch: { spec: { strategy: { $patch: "merge", rollingUpdate: { maxSurge: 2 } } } },
      path: "spec.strategy",
      expected: { type: "RollingUpdate", rollingUpdate: { maxSurge: 2 } },
    },
    {
      name: "$patch: replace in a keyed list replaces the list",
      before: podSpec({ containers: [container(), container({ name: "side" })] }),
      patch: { spec: { containers: [{ $patch: "replace" }, { name: "only", image: "x" }] } },
      path: "spec.containers",
      expected: [{ name: "only", image: "x" }],
    },
    {
      name: "$patch: delete in a list item removes that item",
      before: podSpec({ containers: [container(), container({ name: "side" })] }),
      patch: { spec: { containers: [{ $patch: "delete", name: "web" }] } },
      path: "spec.containers",
      expected: [{ name: "side", image: "nginx:1.25" }],
    },
    {
      name: "$setElementOrder orders the items it names and places server-only items by their live position",
      before: podSpec({ containers: [container({ name: "a" }), container({ name: "b" }), container({ name: "c" })] }),
      patch: { spec: { "$setElementOrder/containers": [{ name: "c" }, { name: "a" }], containers: [{ name: "a", image: "a:2" }] } },
      path: "spec.containers",
      expected: [
        { name: "b", image: "nginx:1.25" },
        { name: "c", image: "nginx:1.25" },
        { name: "a", image: "a:2" },
      ],
    },
    {
      name: "status conditions of a Pod merge by type",
      before: pod(
        { containers: [] },
        {
          status: {
            conditions: [
              { type: "Ready", status: "False" },
              { type: "Scheduled", status: "True" },
            ],
          },
        },
      ),
      patch: { status: { conditions: [{ type: "Ready", status: "True" }] } },
      path: "status.conditions",
      expected: [
        { type: "Ready", status: "True" },
        { type: "Scheduled", status: "True" },
      ],
    },
    {
      name: "status conditions of a Node merge by type",
      before: obj({
        apiVersion: "v1",
        kind: "Node",
        metadata: { name: "n" },
        status: { conditions: [{ type: "Ready", status: "False" }] },
      }),
      patch: { status: { conditions: [{ type: "MemoryPressure", status: "False" }] } },
      path: "status.conditions",
      expected: [
        { type: "MemoryPressure", status: "False" },
        { type: "Ready", status: "False" },
      ],
    },
    {
      name: "status conditions of a Deployment merge by type",
      before: obj({ ...deployment(), status: { conditions: [{ type: "Available", status: "False" }] } }),
      patch: { status: { conditions: [{ type: "Available", status: "True" }] } },
      path: "status.conditions",
      expected: [{ type: "Available", status: "True" }],
    },
    {
      name: "lists not in the table are replaced (a Deployment's unknown list)",
      before: deployment({ foo: [{ name: "a" }] }),
      patch: { spec: { foo: [{ name: "b" }] } },
      path: "spec.foo",
      expected: [{ name: "b" }],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const snapshot = structuredClone(c.before);
      const after = strategic(c.before, c.patch);
      expect(at(after, c.path)).toEqual(c.expected);
      expect(allKeys(after).filter((k) => k.startsWith("$"))).toEqual([]);
      expect(c.before).toEqual(snapshot);
    });
  }

  const templated: [string, KubeObject, string][] = [
    ["StatefulSet", obj({ ...deployment(), kind: "StatefulSet" }), "spec.template.spec.containers"],
    ["DaemonSet", obj({ ...deployment(), kind: "DaemonSet" }), "spec.template.spec.containers"],
    ["ReplicaSet", obj({ ...deployment(), kind: "ReplicaSet" }), "spec.template.spec.containers"],
    ["Job", obj({ ...deployment(), apiVersion: "batch/v1", kind: "Job" }), "spec.template.spec.containers"],
    [
      "CronJob",
      obj({
        apiVersion: "batch/v1",
        kind: "CronJob",
        metadata: { name: "c" },
        spec: { jobTemplate: { spec: { template: { spec: { containers: [container({ ports: [80, 443] })] } } } } },
      }),
      "spec.jobTemplate.spec.template.spec.containers",
    ],
    [
      "PodTemplate",
      obj({
        apiVersion: "v1",
        kind: "PodTemplate",
        metadata: { name: "t" },
        template: { spec: { containers: [container({ ports: [80, 443] })] } },
      }),
      "template.spec.containers",
    ],
  ];
  for (const [kind, before, path] of templated) {
    test(`${kind} pod templates merge containers by name and ports by containerPort`, () => {
      const patch: JsonObject = {};
      const parts = path.split(".");
      let cursor = patch;
      for (const part of parts.slice(0, -1)) cursor = (cursor[part] = {}) as JsonObject;
      cursor.containers = [
        { name: "web", image: "nginx:2", ports: [{ $patch: "delete", containerPort: 443 }] },
        { name: "side", image: "b" },
      ];
      const after = strategic(before, patch);
      expect(at(after, path)).toEqual([
        { name: "web", image: "nginx:2", ports: [{ containerPort: 80, protocol: "TCP" }] },
        { name: "side", image: "b" },
      ]);
    });
  }

  test("$setElementOrder for a list the patch does not otherwise touch is never stored", () => {
    const after = strategic(pod({ containers: [container({ name: "a" }), container({ name: "b" })] }), {
      spec: { "$setElementOrder/containers": [{ name: "b" }, { name: "a" }] },
    });
    expect((at(after, "spec.containers") as { name: string }[]).map((c) => c.name)).toEqual(["b", "a"]);
    expect(allKeys(after).filter((k) => k.startsWith("$"))).toEqual([]);
  });

  test("$setElementOrder alone never empties a list without a merge strategy", () => {
    const after = strategic(podSpec({ tolerations: [{ key: "a" }, { key: "b" }] }), {
      spec: { "$setElementOrder/tolerations": [{ key: "b" }] },
    });
    expect(at(after, "spec.tolerations")).toEqual([{ key: "a" }, { key: "b" }]);
  });

  test("directives inside a value that is new to the object are applied, not stored", () => {
    const after = strategic(pod({}), {
      spec: {
        "$setElementOrder/containers": [{ name: "a" }],
        containers: [{ name: "a", image: "x", env: [{ $patch: "delete", name: "Z" }] }],
      },
    });
    expect(at(after, "spec.containers")).toEqual([{ name: "a", image: "x", env: [] }]);
    expect(allKeys(after).filter((k) => k.startsWith("$"))).toEqual([]);
  });

  test("a keyed list item without its merge key is a 400 BadRequest", () => {
    const err = apiError(() => strategic(pod({ containers: [container()] }), { spec: { containers: [{ image: "x" }] } }));
    expect(err.code).toBe(400);
  });

  test("a patch that sets keys outside $retainKeys is a 400 BadRequest", () => {
    const err = apiError(() => strategic(deployment(), { spec: { strategy: { $retainKeys: ["type"], type: "Recreate", other: 1 } } }));
    expect(err.code).toBe(400);
    expect(err.message).toBe("invalid patch format of retainKeys");
  });

  test("a custom resource refuses strategic merge patch with 415 UnsupportedMediaType", () => {
    const cr = obj({ apiVersion: "x.io/v1", kind: "Widget", metadata: { name: "w" }, spec: {} });
    const err = apiError(() => applyPatch(cr, { spec: { size: 2 } }, "strategic", { builtin: false }));
    expect(err.code).toBe(415);
    expect(err.reason).toBe("UnsupportedMediaType");
    expect(err.message).toBe(
      "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
    );
  });
});

// ---- server-side apply -------------------------------------------------------------------------

const T1 = "2026-01-01T00:00:00Z";
const T2 = "2026-01-02T00:00:00Z";
const T3 = "2026-01-03T00:00:00Z";
const ssa = (
  current: KubeObject | undefined,
  applied: object,
  manager = "kubectl",
  extra: { force?: boolean; now?: string; subresource?: string } = {},
) =>
  serverSideApply(current, obj(applied), {
    manager,
    force: extra.force ?? false,
    builtin: true,
    now: extra.now ?? T1,
    subresource: extra.subresource,
  });
const entryOf = (o: KubeObject, manager: string, operation: ManagedFieldsEntry["operation"] = "Apply") =>
  o.metadata.managedFields?.find((e) => e.manager === manager && e.operation === operation);

const appliedDeployment = (spec: JsonObject = {}, labels: Record<string, string> = { app: "web" }) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default", labels },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: { containers: [{ name: "web", image: "nginx:1.25", ports: [{ containerPort: 80 }] }] },
    },
    ...spec,
  },
});

describe("server-side apply", () => {
  test("creates the object with one Apply entry whose fieldsV1 lists what was applied", () => {
    const created = ssa(undefined, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "default", labels: { app: "web" }, finalizers: ["x.io/f"] },
      spec: { selector: { app: "web" }, ports: [{ port: 80, targetPort: 8080 }] },
    });
    expect(at(created, "spec.ports")).toEqual([{ port: 80, targetPort: 8080 }]);
    expect(created.metadata.name).toBe("web");
    expect(created.metadata.managedFields).toEqual([
      {
        manager: "kubectl",
        operation: "Apply",
        apiVersion: "v1",
        time: T1,
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:metadata": { "f:finalizers": { 'v:"x.io/f"': {} }, "f:labels": { "f:app": {} } },
          "f:spec": {
            "f:ports": { 'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:port": {}, "f:targetPort": {} } },
            "f:selector": {},
          },
        },
      },
    ]);
  });

  test("keys container ports by containerPort and protocol and containers by name", () => {
    const created = ssa(undefined, appliedDeployment());
    const fields = entryOf(created, "kubectl")?.fieldsV1;
    expect(at(fields, "f:spec.f:template.f:spec.f:containers")).toEqual({
      'k:{"name":"web"}': {
        ".": {},
        "f:image": {},
        "f:name": {},
        "f:ports": { 'k:{"containerPort":80,"protocol":"TCP"}': { ".": {}, "f:containerPort": {} } },
      },
    });
    expect(at(fields, "f:spec.f:selector")).toEqual({});
  });

  test("a second apply removes the fields this manager no longer sets", () => {
    const first = ssa(undefined, appliedDeployment({ paused: false }, { app: "web", tier: "front" }));
    const live = obj({ ...first, metadata: { ...first.metadata, uid: "u-1", resourceVersion: "1" } });
    const second = ssa(live, appliedDeployment({}, { app: "web" }), "kubectl", { now: T2 });
    expect(at(second, "spec.paused")).toBeUndefined();
    expect(second.metadata.labels).toEqual({ app: "web" });
    expect(second.metadata.uid).toBe("u-1");
    expect(second.metadata.managedFields).toHaveLength(1);
    expect(entryOf(second, "kubectl")?.time).toBe(T2);
    expect(at(entryOf(second, "kubectl")?.fieldsV1, "f:spec.f:paused")).toBeUndefined();
  });

  test("a container dropped from the configuration is removed", () => {
    const first = ssa(undefined, appliedDeployment({}, undefined));
    const twoContainers = appliedDeployment();
    (twoContainers.spec.template.spec.containers as object[]).push({ name: "side", image: "busybox" });
    const both = ssa(first, twoContainers, "kubectl", { now: T2 });
    expect((at(both, "spec.template.spec.containers") as object[]).length).toBe(2);
    const back = ssa(both, appliedDeployment(), "kubectl", { now: T3 });
    expect(at(back, "spec.template.spec.containers")).toEqual([{ name: "web", image: "nginx:1.25", ports: [{ containerPort: 80 }] }]);
  });

  test("a field another applier also owns is kept when this manager stops setting it", () => {
    const first = ssa(undefined, appliedDeployment({ paused: false }));
    const shared = ssa(first, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { paused: false } }, "helper");
    const after = ssa(shared, appliedDeployment(), "kubectl", { now: T2 });
    expect(at(after, "spec.paused")).toBe(false);
    expect(at(entryOf(after, "helper")?.fieldsV1, "f:spec.f:paused")).toEqual({});
  });

  test("applying the same unchanged configuration keeps the entry's time", () => {
    const first = ssa(undefined, appliedDeployment());
    const again = ssa(first, appliedDeployment(), "kubectl", { now: T2 });
    expect(entryOf(again, "kubectl")?.time).toBe(T1);
    expect(again.spec).toEqual(first.spec);
  });

  test("changing a field another applier owns is a 409 Conflict naming the field", () => {
    const first = ssa(undefined, appliedDeployment());
    const err = apiError(() =>
      ssa(first, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 5 } }, "other", { now: T2 }),
    );
    expect(err.code).toBe(409);
    expect(err.reason).toBe("Conflict");
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');
    expect(err.details?.causes).toEqual([{ reason: "FieldManagerConflict", message: 'conflict with "kubectl"', field: ".spec.replicas" }]);
  });

  test("several conflicts are listed per manager", () => {
    const first = ssa(undefined, appliedDeployment());
    const err = apiError(() => ssa(first, appliedDeployment({ replicas: 5 }, { app: "other" }), "other", { now: T2 }));
    expect(err.message).toBe('Apply failed with 2 conflicts: conflicts with "kubectl":\n- .metadata.labels.app\n- .spec.replicas');
  });

  test("a conflict inside a keyed list names the item by its key", () => {
    const first = ssa(undefined, appliedDeployment());
    const err = apiError(() =>
      ssa(
        first,
        {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: "web" },
          spec: { template: { spec: { containers: [{ name: "web", image: "nginx:2" }] } } },
        },
        "other",
      ),
    );
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "kubectl": .spec.template.spec.containers[name="web"].image');
  });

  test("setting a field to the value another applier owns is not a conflict and shares ownership", () => {
    const first = ssa(undefined, appliedDeployment());
    const shared = ssa(first, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 2 } }, "other", {
      now: T2,
    });
    expect(at(entryOf(shared, "kubectl")?.fieldsV1, "f:spec.f:replicas")).toEqual({});
    expect(at(entryOf(shared, "other")?.fieldsV1, "f:spec.f:replicas")).toEqual({});
  });

  test("force takes the conflicting field over from the other applier", () => {
    const first = ssa(undefined, appliedDeployment());
    const forced = ssa(first, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 5 } }, "other", {
      force: true,
      now: T2,
    });
    expect(at(forced, "spec.replicas")).toBe(5);
    expect(at(entryOf(forced, "other")?.fieldsV1, "f:spec.f:replicas")).toEqual({});
    expect(at(entryOf(forced, "kubectl")?.fieldsV1, "f:spec.f:replicas")).toBeUndefined();
    expect(at(entryOf(forced, "kubectl")?.fieldsV1, "f:spec.f:selector")).toEqual({});
    // kubectl, no longer owning replicas, leaves it alone on its next apply.
    const withoutReplicas = appliedDeployment();
    delete (withoutReplicas.spec as { replicas?: number }).replicas;
    const again = ssa(forced, withoutReplicas, "kubectl", { now: T3 });
    expect(at(again, "spec.replicas")).toBe(5);
  });

  test("fields owned by an Update manager never conflict and move to the applier", () => {
    const created = recordUpdateManager(undefined, deployment(), { manager: "kubectl-client-side-apply", now: T1 });
    const applied = ssa(
      created,
      { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 4 } },
      "kubectl",
      { now: T2 },
    );
    expect(at(applied, "spec.replicas")).toBe(4);
    expect(at(entryOf(applied, "kubectl-client-side-apply", "Update")?.fieldsV1, "f:spec.f:replicas")).toBeUndefined();
    expect(at(entryOf(applied, "kubectl")?.fieldsV1, "f:spec.f:replicas")).toEqual({});
    expect(at(applied, "spec.template.spec.containers")).toEqual([container({ ports: [80, 443] })]);
  });

  test("a container added by another manager survives the applier's re-apply", () => {
    const first = ssa(undefined, appliedDeployment());
    const injected = applyPatch(
      first,
      { spec: { template: { spec: { containers: [{ name: "proxy", image: "linkerd" }] } } } },
      "strategic",
      { builtin: true },
    );
    const recorded = recordUpdateManager(first, injected, { manager: "injector", now: T2 });
    const again = ssa(recorded, appliedDeployment({}, { app: "web" }), "kubectl", { now: T3 });
    expect((at(again, "spec.template.spec.containers") as { name: string }[]).map((c) => c.name)).toEqual(["proxy", "web"]);
  });

  test("managedFields in the applied configuration are refused", () => {
    const err = apiError(() => ssa(undefined, { ...appliedDeployment(), metadata: { name: "web", managedFields: [] } }));
    expect(err.code).toBe(400);
  });

  test("applying to the status subresource applies only status", () => {
    const first = ssa(undefined, appliedDeployment());
    const status = ssa(first, { ...appliedDeployment({ replicas: 9 }), status: { readyReplicas: 2 } }, "controller", {
      subresource: "status",
      now: T2,
    });
    expect(at(status, "spec.replicas")).toBe(2);
    expect(at(status, "status.readyReplicas")).toBe(2);
    const entry = entryOf(status, "controller");
    expect(entry?.subresource).toBe("status");
    expect(entry?.fieldsV1).toEqual({ "f:status": { "f:readyReplicas": {} } });
  });

  test("never mutates its inputs", () => {
    const applied = obj(appliedDeployment());
    const snapshot = structuredClone(applied);
    const first = ssa(undefined, applied);
    const firstSnapshot = structuredClone(first);
    ssa(first, appliedDeployment({ replicas: 3 }), "kubectl", { now: T2 });
    expect(applied).toEqual(snapshot);
    expect(first).toEqual(firstSnapshot);
  });
});

// ---- Update managers ---------------------------------------------------------------------------

describe("recordUpdateManager", () => {
  test("a create records every field but the server-owned metadata", () => {
    const created = recordUpdateManager(undefined, service([80]), { manager: "kubectl-create", now: T1 });
    expect(created.metadata.managedFields).toEqual([
      {
        manager: "kubectl-create",
        operation: "Update",
        apiVersion: "v1",
        time: T1,
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:spec": {
            "f:ports": { 'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:port": {}, "f:protocol": {}, "f:targetPort": {} } },
            "f:selector": {},
          },
        },
      },
    ]);
  });

  test("an update adds what changed to the manager's entry and takes it from others", () => {
    const created = recordUpdateManager(undefined, deployment(), { manager: "creator", now: T1 });
    const next = applyPatch(created, { spec: { replicas: 3 }, metadata: { labels: { tier: "x" } } }, "merge", { builtin: true });
    const updated = recordUpdateManager(created, next, { manager: "kubectl-patch", now: T2 });
    const mine = entryOf(updated, "kubectl-patch", "Update");
    expect(mine?.time).toBe(T2);
    expect(mine?.fieldsV1).toEqual({ "f:metadata": { "f:labels": { "f:tier": {} } }, "f:spec": { "f:replicas": {} } });
    const creator = entryOf(updated, "creator", "Update");
    expect(at(creator?.fieldsV1, "f:spec.f:replicas")).toBeUndefined();
    expect(creator?.time).toBe(T1);
    expect(updated.metadata.managedFields?.map((e) => e.manager)).toEqual(["creator", "kubectl-patch"]);
  });

  test("a removed field leaves every entry", () => {
    const created = recordUpdateManager(undefined, deployment(), { manager: "creator", now: T1 });
    const next = applyPatch(created, { spec: { replicas: null } }, "merge", { builtin: true });
    const updated = recordUpdateManager(created, next, { manager: "editor", now: T2 });
    expect(at(entryOf(updated, "creator", "Update")?.fieldsV1, "f:spec.f:replicas")).toBeUndefined();
    expect(entryOf(updated, "editor", "Update")).toBeUndefined();
  });

  test("an update that changes nothing adds no entry", () => {
    const created = recordUpdateManager(undefined, deployment(), { manager: "creator", now: T1 });
    const same = recordUpdateManager(created, structuredClone(created), { manager: "noop", now: T2 });
    expect(same.metadata.managedFields).toEqual(created.metadata.managedFields);
  });

  test("Apply entries sort before Update entries", () => {
    const created = recordUpdateManager(undefined, deployment(), { manager: "a-creator", now: T1 });
    const applied = ssa(
      created,
      { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { paused: true } },
      "z-applier",
      { now: T2 },
    );
    expect(applied.metadata.managedFields?.map((e) => `${e.operation}:${e.manager}`)).toEqual(["Apply:z-applier", "Update:a-creator"]);
  });
});
