// Validation of built-in kinds as kube-apiserver does it: unknown fields, invalid values, field validation, pruning.
import { describe, expect, test } from "bun:test";
import {
  admitBuiltin,
  checkBuiltin,
  coerceObjectMeta,
  enforceFieldValidation,
  hasBuiltinSchema,
  parseFieldValidation,
  type FieldProblems,
} from "../../../src/sandbox/validation/builtin.ts";
import { admitStructural, applyDefaults, pruneUnknown, validateCustom } from "../../../src/sandbox/validation/structural.ts";
import { ApiError, deepCopy, type JSONSchemaProps, type KubeObject } from "../../../src/sandbox/types.ts";

// ---------------------------------------------------------------------------------------------
// Fixtures: objects as kubectl sends them and as a real server returns them.

const lastApplied = (o: object): Record<string, string> => ({
  "kubectl.kubernetes.io/last-applied-configuration": `${JSON.stringify(o)}\n`,
});

function service(overrides: Record<string, unknown> = {}): KubeObject {
  const applied = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web", namespace: "default" },
    spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: "http" }] },
  };
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "web",
      namespace: "default",
      uid: "6b1c1f5e-0d7e-4b8e-9a55-1f2a3b4c5d6e",
      resourceVersion: "1234",
      creationTimestamp: "2026-01-02T03:04:05Z",
      labels: { app: "web", "mirror.linkerd.io/exported": "true" },
      annotations: lastApplied(applied),
      managedFields: [
        {
          manager: "kubectl-client-side-apply",
          operation: "Update",
          apiVersion: "v1",
          time: "2026-01-02T03:04:05Z",
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:metadata": { "f:annotations": { ".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {} } },
            "f:spec": { "f:ports": { 'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:name": {} } } },
          },
        },
      ],
    },
    spec: {
      type: "ClusterIP",
      clusterIP: "10.96.0.12",
      clusterIPs: ["10.96.0.12"],
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      internalTrafficPolicy: "Cluster",
      sessionAffinity: "None",
      selector: { app: "web" },
      ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: "http" }],
    },
    status: { loadBalancer: {} },
    ...overrides,
  };
}

function deployment(): KubeObject {
  const applied = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "default" }, spec: { replicas: 2 } };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "web",
      namespace: "default",
      generation: 3,
      resourceVersion: "99",
      uid: "0f0e0d0c-0b0a-0908-0706-050403020100",
      creationTimestamp: "2026-01-02T03:04:05Z",
      labels: { app: "web" },
      annotations: { ...lastApplied(applied), "deployment.kubernetes.io/revision": "1" },
      ownerReferences: [
        {
          apiVersion: "multicluster.linkerd.io/v1alpha3",
          kind: "Link",
          name: "east",
          uid: "u-1",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      finalizers: ["example.com/keep"],
      managedFields: [
        {
          manager: "kubectl",
          operation: "Apply",
          apiVersion: "apps/v1",
          time: "2026-01-02T03:04:05Z",
          fieldsType: "FieldsV1",
          fieldsV1: { "f:spec": { "f:replicas": {} } },
        },
        {
          manager: "kube-controller-manager",
          operation: "Update",
          apiVersion: "apps/v1",
          time: "2026-01-02T03:04:06Z",
          fieldsType: "FieldsV1",
          fieldsV1: { "f:status": {} },
          subresource: "status",
        },
      ],
    },
    spec: {
      replicas: 2,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      selector: { matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "In", values: ["front"] }] },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: 1 } },
      template: {
        metadata: { creationTimestamp: null, labels: { app: "web", tier: "front" }, annotations: { "linkerd.io/inject": "enabled" } },
        spec: {
          serviceAccountName: "web",
          dnsPolicy: "ClusterFirst",
          restartPolicy: "Always",
          schedulerName: "default-scheduler",
          terminationGracePeriodSeconds: 30,
          securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
          nodeSelector: { "kubernetes.io/os": "linux" },
          tolerations: [{ key: "node-role.kubernetes.io/control-plane", operator: "Exists", effect: "NoSchedule" }],
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                { weight: 100, podAffinityTerm: { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: { app: "web" } } } },
              ],
            },
          },
          volumes: [
            { name: "config", configMap: { name: "web", defaultMode: 420, items: [{ key: "a", path: "a.conf" }] } },
            {
              name: "token",
              projected: { sources: [{ serviceAccountToken: { path: "token", expirationSeconds: 3600, audience: "api" } }] },
            },
            { name: "tmp", emptyDir: { sizeLimit: "64Mi" } },
          ],
          initContainers: [{ name: "init", image: "busybox:1.36", command: ["sh", "-c", "true"], resources: {} }],
          containers: [
            {
              name: "web",
              image: "nginx:1.27",
              imagePullPolicy: "IfNotPresent",
              args: ["--port=8080"],
              ports: [
                { name: "http", containerPort: 8080, protocol: "TCP" },
                { name: "admin", containerPort: 9990 },
              ],
              env: [
                { name: "MODE", value: "prod" },
                { name: "POD_NAME", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } } },
                { name: "PASSWORD", valueFrom: { secretKeyRef: { name: "web", key: "password", optional: true } } },
              ],
              envFrom: [{ configMapRef: { name: "web-env" } }],
              resources: { limits: { cpu: "500m", memory: "256Mi" }, requests: { cpu: 0.1, memory: "64Mi" } },
              readinessProbe: {
                httpGet: { path: "/ready", port: "http", scheme: "HTTP" },
                periodSeconds: 10,
                timeoutSeconds: 1,
                successThreshold: 1,
                failureThreshold: 3,
              },
              livenessProbe: { tcpSocket: { port: 8080 }, initialDelaySeconds: 5 },
              lifecycle: { preStop: { exec: { command: ["sleep", "5"] } } },
              securityContext: {
                allowPrivilegeEscalation: false,
                capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] },
                readOnlyRootFilesystem: true,
              },
              volumeMounts: [{ name: "config", mountPath: "/etc/web", readOnly: true }],
              terminationMessagePath: "/dev/termination-log",
              terminationMessagePolicy: "File",
            },
          ],
        },
      },
    },
    status: {
      observedGeneration: 3,
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      conditions: [
        {
          type: "Available",
          status: "True",
          lastUpdateTime: "2026-01-02T03:04:07Z",
          lastTransitionTime: "2026-01-02T03:04:07Z",
          reason: "MinimumReplicasAvailable",
          message: "Deployment has minimum availability.",
        },
      ],
    },
  };
}

function pod(): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "default" },
    spec: {
      containers: [{ name: "c", image: "i", resources: { limits: { cpu: "1" } } }],
      volumes: [{ name: "v", configMap: { name: "cm", items: [{ key: "k", path: "p" }] } }],
    },
    status: {},
  };
}

const withPath = (obj: KubeObject, set: (o: any) => void): KubeObject => {
  const copy = deepCopy(obj);
  set(copy);
  return copy;
};

const noProblems: FieldProblems = { unknown: [], invalid: [] };

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
}

// ---------------------------------------------------------------------------------------------

describe("checkBuiltin finds unknown fields", () => {
  test("a full Service as a server returns it has no problems", () => {
    expect(checkBuiltin(service())).toEqual(noProblems);
  });

  test("a full Deployment with managedFields, owner references and status has no problems", () => {
    expect(checkBuiltin(deployment())).toEqual(noProblems);
  });

  test("Service: a stray key inside an element of spec.ports and one in spec are both reported", () => {
    const svc = withPath(service(), (o) => {
      o.spec.ports[0].foo = 1;
      o.spec.bar = true;
    });
    expect(checkBuiltin(svc)).toEqual({ unknown: ["spec.ports[0].foo", "spec.bar"], invalid: [] });
  });

  test("Service: the second element of a list is inspected too", () => {
    const svc = withPath(service(), (o) => o.spec.ports.push({ name: "admin", port: 9990, nope: "x" }));
    expect(checkBuiltin(svc)?.unknown).toEqual(["spec.ports[1].nope"]);
  });

  test("Deployment: stray keys deep in the pod template, in nested lists and in env sources", () => {
    const d = withPath(deployment(), (o) => {
      const c = o.spec.template.spec.containers[0];
      c.bogus = 1;
      c.ports[1].zz = 2;
      c.env[1].valueFrom.fieldRef.q = 3;
      o.spec.template.spec.volumes[0].configMap.items[0].mode2 = 4;
      o.spec.template.metadata.labelz = {};
    });
    expect(checkBuiltin(d)?.unknown).toEqual([
      "spec.template.metadata.labelz",
      "spec.template.spec.volumes[0].configMap.items[0].mode2",
      "spec.template.spec.containers[0].ports[1].zz",
      "spec.template.spec.containers[0].env[1].valueFrom.fieldRef.q",
      "spec.template.spec.containers[0].bogus",
    ]);
  });

  test("Deployment: status and metadata follow the same rule", () => {
    const d = withPath(deployment(), (o) => {
      o.status.conditions[0].extra = "x";
      o.status.weird = 1;
      o.metadata.bogus = 1;
      o.metadata.ownerReferences[0].nope = 1;
      o.metadata.managedFields[0].extra = 1;
    });
    expect(checkBuiltin(d)?.unknown).toEqual([
      "metadata.ownerReferences[0].nope",
      "metadata.managedFields[0].extra",
      "metadata.bogus",
      "status.conditions[0].extra",
      "status.weird",
    ]);
  });

  test("maps (labels, annotations, selectors, resource limits, nodeSelector) are known entirely", () => {
    const d = withPath(deployment(), (o) => {
      o.metadata.labels["any/key"] = "v";
      o.spec.template.spec.nodeSelector.zone = "a";
      o.spec.template.spec.containers[0].resources.limits["nvidia.com/gpu"] = "1";
    });
    expect(checkBuiltin(d)).toEqual(noProblems);
  });

  test("free-form nodes (managedFields fieldsV1) accept any content", () => {
    const d = withPath(deployment(), (o) => (o.metadata.managedFields[0].fieldsV1 = { "f:anything": { "f:deep": { ".": {} } } }));
    expect(checkBuiltin(d)).toEqual(noProblems);
  });

  test("Pod: nested volume items and container resources", () => {
    expect(checkBuiltin(pod())).toEqual(noProblems);
    const p = withPath(pod(), (o) => {
      o.spec.volumes[0].configMap.items[0].bogus = 1;
      o.spec.containers[0].resources.claimz = [];
    });
    expect(checkBuiltin(p)?.unknown).toEqual(["spec.containers[0].resources.claimz", "spec.volumes[0].configMap.items[0].bogus"]);
  });

  test("ConfigMap: data is a map, a misspelt top-level key is unknown", () => {
    const cm: KubeObject = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c" },
      data: { "a.conf": "x", b: "" },
      binaryData: { c: "AAAA" },
    };
    expect(checkBuiltin(cm)).toEqual(noProblems);
    expect(checkBuiltin({ ...cm, dat: { a: "b" } })?.unknown).toEqual(["dat"]);
  });

  test("keys are case-sensitive, as in Go's strict decoding", () => {
    expect(checkBuiltin(withPath(service(), (o) => (o.Spec = {})))?.unknown).toEqual(["Spec"]);
  });

  test("checking does not modify the object", () => {
    const svc = withPath(service(), (o) => (o.spec.ports[0].foo = 1));
    const before = deepCopy(svc);
    checkBuiltin(svc);
    expect(svc).toEqual(before);
  });
});

describe("checkBuiltin covers the kinds mc and kubectl use", () => {
  const meta = { name: "x", namespace: "default" };
  const minimal: KubeObject[] = [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "x" }, spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } },
    {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: meta,
      subsets: [{ addresses: [{ ip: "10.0.0.1", targetRef: { kind: "Pod", name: "p" } }], ports: [{ port: 80, name: "http" }] }],
    },
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: meta,
      type: "kubernetes.io/service-account-token",
      data: { token: "dG9rZW4=" },
      stringData: { a: "b" },
    },
    { apiVersion: "v1", kind: "ServiceAccount", metadata: meta, secrets: [{ name: "s" }], automountServiceAccountToken: true },
    {
      apiVersion: "v1",
      kind: "Event",
      metadata: meta,
      involvedObject: { kind: "Pod", name: "p" },
      reason: "Started",
      type: "Normal",
      count: 1,
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: meta,
      rules: [{ apiGroups: [""], resources: ["services"], verbs: ["get", "list", "watch"] }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: meta,
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" },
      subjects: [{ kind: "ServiceAccount", name: "sa", namespace: "default" }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "x" },
      rules: [{ nonResourceURLs: ["/healthz"], verbs: ["get"] }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "x" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "r" },
      subjects: [{ kind: "User", name: "u", apiGroup: "rbac.authorization.k8s.io" }],
    },
    {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: meta,
      spec: { holderIdentity: "a", leaseDurationSeconds: 15, renewTime: "2026-01-02T03:04:05.123456Z", leaseTransitions: 0 },
    },
    {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: meta,
      addressType: "IPv4",
      endpoints: [{ addresses: ["10.0.0.1"], conditions: { ready: true } }],
      ports: [{ name: "http", port: 80, protocol: "TCP" }],
    },
    { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", metadata: meta, addressType: "IPv4" },
    {
      apiVersion: "policy/v1",
      kind: "PodDisruptionBudget",
      metadata: meta,
      spec: { minAvailable: 1, selector: { matchLabels: { a: "b" } } },
    },
    {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      metadata: {},
      spec: { resourceAttributes: { verb: "create", resource: "links", group: "multicluster.linkerd.io", namespace: "x" } },
    },
    {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: meta,
      eventTime: "2026-01-02T03:04:05.000000Z",
      reason: "Mirrored",
      action: "Create",
      type: "Normal",
      regarding: { kind: "Service", name: "s" },
      reportingController: "mc",
      reportingInstance: "mc-1",
    },
  ];
  for (const obj of minimal) {
    test(`${obj.apiVersion} ${obj.kind}: a valid object passes and a stray field is found`, () => {
      expect(checkBuiltin(obj)).toEqual(noProblems);
      expect(checkBuiltin({ ...obj, strayField: 1 })?.unknown).toEqual(["strayField"]);
    });
  }

  test("apiextensions.k8s.io/v1 CustomResourceDefinition: schemas are checked down to JSONSchemaProps", () => {
    expect(checkBuiltin(linkCrd())).toEqual(noProblems);
    const typo = withPath(
      linkCrd(),
      (o) => (o.spec.versions[0].schema.openAPIV3Schema.properties.spec["x-kubernetes-preserve-unknown-field"] = true),
    );
    expect(checkBuiltin(typo)?.unknown).toEqual([
      "spec.versions[0].schema.openAPIV3Schema.properties.spec.x-kubernetes-preserve-unknown-field",
    ]);
  });

  test("an unknown apiVersion/kind has no validator", () => {
    expect(checkBuiltin({ apiVersion: "batch/v1", kind: "CronJob", metadata: { name: "x" } })).toBeUndefined();
    expect(checkBuiltin({ apiVersion: "multicluster.linkerd.io/v1alpha3", kind: "Link", metadata: { name: "x" } })).toBeUndefined();
    expect(hasBuiltinSchema("apps/v1", "Deployment")).toBe(true);
    expect(hasBuiltinSchema("apps/v1", "StatefulSet")).toBe(false);
  });
});

describe("checkBuiltin finds invalid values", () => {
  test("a string where an int32 belongs is a decode failure", () => {
    const svc = withPath(service(), (o) => (o.spec.ports[0].port = "80"));
    expect(checkBuiltin(svc)?.invalid).toEqual([
      {
        field: "spec.ports[0].port",
        reason: "FieldValueTypeInvalid",
        decode: true,
        message: "json: cannot unmarshal string into Go struct field spec.ports.port of type integer",
      },
    ]);
  });

  test("int-or-string accepts both and rejects a bool once", () => {
    expect(checkBuiltin(withPath(service(), (o) => (o.spec.ports[0].targetPort = 8080)))).toEqual(noProblems);
    const bad = checkBuiltin(withPath(service(), (o) => (o.spec.ports[0].targetPort = true)));
    expect(bad?.invalid).toHaveLength(1);
    expect(bad?.invalid[0]).toMatchObject({ field: "spec.ports[0].targetPort", decode: true });
  });

  test("an int32 overflow, a bad quantity, bad base64 and a bad timestamp are decode failures", () => {
    const d = withPath(deployment(), (o) => {
      o.spec.replicas = 99999999999;
      o.spec.template.spec.containers[0].resources.limits.cpu = "lots";
    });
    expect(checkBuiltin(d)?.invalid.map((p) => [p.field, p.decode])).toEqual([
      ["spec.replicas", true],
      ["spec.template.spec.containers[0].resources.limits.cpu", true],
    ]);
    const secret: KubeObject = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s", creationTimestamp: "yesterday" },
      data: { a: "!!" },
    };
    expect(
      checkBuiltin(secret)
        ?.invalid.map((p) => p.field)
        .sort(),
    ).toEqual(["data.a", "metadata.creationTimestamp"]);
  });

  test("nulls decode to zero values and are not type errors", () => {
    const svc = withPath(service(), (o) => {
      o.spec.selector = null;
      o.spec.clusterIPs = null;
      o.metadata.creationTimestamp = null;
    });
    expect(checkBuiltin(svc)).toEqual(noProblems);
  });

  test("an unsupported enum value and a missing required field are validation problems", () => {
    const svc = withPath(service(), (o) => {
      o.spec.type = "Public";
      delete o.spec.ports[0].port;
    });
    expect(checkBuiltin(svc)?.invalid).toEqual([
      { field: "spec.ports[0].port", reason: "FieldValueRequired", message: "Required value" },
      {
        field: "spec.type",
        reason: "FieldValueNotSupported",
        message: 'Unsupported value: "Public": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
      },
    ]);
  });
});

describe("enforceFieldValidation", () => {
  const strays = () =>
    withPath(service(), (o) => {
      o.spec.foo = 1;
      o.spec.ports[0].bar = 2;
    });

  test("Strict: unknown fields are a 400 worded as kube's strict decoding error", () => {
    const obj = strays();
    const err = apiError(() => enforceFieldValidation(checkBuiltin(obj), "Strict", obj));
    expect(err.code).toBe(400);
    expect(err.reason).toBe("BadRequest");
    expect(err.message).toBe(
      'Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "spec.ports[0].bar", unknown field "spec.foo"',
    );
  });

  test("Warn: one warning per unknown field", () => {
    const obj = strays();
    expect(enforceFieldValidation(checkBuiltin(obj), "Warn", obj)).toEqual([
      'unknown field "spec.ports[0].bar"',
      'unknown field "spec.foo"',
    ]);
  });

  test("Ignore: nothing", () => {
    const obj = strays();
    expect(enforceFieldValidation(checkBuiltin(obj), "Ignore", obj)).toEqual([]);
    expect(enforceFieldValidation(undefined, "Strict", obj)).toEqual([]);
  });

  test("a decode failure is a 400 in every mode, Ignore included", () => {
    const d = withPath(deployment(), (o) => (o.spec.replicas = "two"));
    for (const mode of ["Strict", "Warn", "Ignore"] as const) {
      const err = apiError(() => enforceFieldValidation(checkBuiltin(d), mode, d));
      expect(err.code).toBe(400);
      expect(err.message).toStartWith(
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field spec.replicas',
      );
    }
  });

  test("missing required fields are a 422 naming kind, group and object", () => {
    const d = withPath(deployment(), (o) => delete o.spec.template.spec.containers[0].name);
    const err = apiError(() => enforceFieldValidation(checkBuiltin(d), "Ignore", d));
    expect(err.code).toBe(422);
    expect(err.reason).toBe("Invalid");
    expect(err.message).toBe('Deployment.apps "web" is invalid: spec.template.spec.containers[0].name: Required value');
    expect(err.details?.causes).toEqual([
      { reason: "FieldValueRequired", message: "Required value", field: "spec.template.spec.containers[0].name" },
    ]);
  });

  test("admitBuiltin drops unknown fields outside Strict and leaves its input alone", () => {
    const obj = strays();
    const before = deepCopy(obj);
    const { object, warnings } = admitBuiltin(obj, "Warn");
    expect(warnings).toHaveLength(2);
    expect(obj).toEqual(before);
    expect(object).toEqual(service());
    expect(admitBuiltin(obj, "Ignore")).toEqual({ object: service(), warnings: [] });
    expect(apiError(() => admitBuiltin(obj, "Strict")).code).toBe(400);
  });

  test("parseFieldValidation defaults to Warn, as kube-apiserver does", () => {
    expect(parseFieldValidation(null)).toBe("Warn");
    expect(parseFieldValidation("Strict")).toBe("Strict");
    expect(apiError(() => parseFieldValidation("strict")).code).toBe(400);
  });
});

// ---------------------------------------------------------------------------------------------
// Custom resources.

const selectorSchema: JSONSchemaProps = {
  type: "object",
  properties: {
    matchLabels: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
    matchExpressions: {
      type: "array",
      items: {
        type: "object",
        required: ["key", "operator"],
        properties: {
          key: { type: "string" },
          operator: { type: "string", enum: ["In", "NotIn", "Exists", "DoesNotExist"] },
          values: { type: "array", items: { type: "string" } },
        },
      },
    },
  },
};

const linkSchema: JSONSchemaProps = {
  type: "object",
  properties: {
    apiVersion: { type: "string" },
    kind: { type: "string" },
    metadata: { type: "object" },
    spec: {
      type: "object",
      required: ["targetClusterName"],
      properties: {
        targetClusterName: { type: "string", maxLength: 63, pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" },
        targetClusterDomain: { type: "string" },
        gatewayAddress: { type: "string" },
        gatewayPort: { type: "string", format: "int32" },
        probeSpec: {
          type: "object",
          properties: {
            path: { type: "string" },
            port: { type: "string" },
            period: { type: "string", format: "duration" },
            timeout: { type: "string", format: "duration", default: "30s" },
            failureThreshold: { type: "string", default: "3" },
          },
        },
        selector: selectorSchema,
        remoteDiscoverySelector: selectorSchema,
        excludedLabels: { type: "array", items: { type: "string" }, maxItems: 3 },
      },
    },
    status: {
      type: "object",
      properties: {
        mirrorServices: {
          type: "array",
          items: {
            type: "object",
            required: ["controllerName", "remoteRef"],
            properties: {
              controllerName: { type: "string", pattern: "^[a-z0-9.]+/[a-z0-9-]+$" },
              remoteRef: {
                type: "object",
                required: ["name", "namespace"],
                properties: {
                  group: { type: "string", default: "core" },
                  kind: { type: "string", default: "Service" },
                  name: { type: "string" },
                  namespace: { type: "string" },
                },
              },
              conditions: {
                type: "array",
                items: {
                  type: "object",
                  properties: {
                    type: { type: "string" },
                    status: { type: "string", enum: ["True", "False", "Unknown"] },
                    message: { type: "string", nullable: true },
                    lastTransitionTime: { type: "string", format: "date-time" },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

function link(spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: "multicluster.linkerd.io/v1alpha3",
    kind: "Link",
    metadata: {
      name: "east",
      namespace: "linkerd-multicluster",
      labels: { "mirror.linkerd.io/cluster-name": "east" },
      annotations: lastApplied({ kind: "Link" }),
    },
    spec: {
      targetClusterName: "east",
      targetClusterDomain: "cluster.local",
      gatewayAddress: "10.0.0.1",
      gatewayPort: "4143",
      probeSpec: { path: "/ready", port: "4191", period: "3s", timeout: "30s", failureThreshold: "3" },
      selector: { matchLabels: { "mirror.linkerd.io/exported": "true" } },
      ...spec,
    },
    ...extra,
  };
}

function linkCrd(): KubeObject {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "links.multicluster.linkerd.io", labels: { "linkerd.io/extension": "multicluster" } },
    spec: {
      group: "multicluster.linkerd.io",
      scope: "Namespaced",
      names: { kind: "Link", listKind: "LinkList", plural: "links", singular: "link" },
      versions: [
        {
          name: "v1alpha3",
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [{ name: "Target", type: "string", jsonPath: ".spec.targetClusterName" }],
          schema: { openAPIV3Schema: deepCopy(linkSchema) },
        },
      ],
    },
  };
}

describe("pruneUnknown", () => {
  test("a correct Link loses nothing", () => {
    const obj = link();
    expect(pruneUnknown(obj, linkSchema)).toEqual({ pruned: obj, removed: [] });
  });

  test("undeclared fields go, preserve-unknown matchLabels keeps anything, the input is untouched", () => {
    const obj = link(
      {
        foo: 1,
        probeSpec: { path: "/ready", bogus: true },
        selector: { matchLabels: { any: "thing", nested: { ok: 1 } }, matchExpressions: [{ key: "a", operator: "Exists", extra: 1 }] },
      },
      {
        status: { mirrorServices: [{ controllerName: "linkerd.io/service-mirror", remoteRef: { name: "a", namespace: "b", uid: "x" } }] },
        other: 1,
      },
    );
    const before = deepCopy(obj);
    const { pruned, removed } = pruneUnknown(obj, linkSchema);
    expect(obj).toEqual(before);
    expect(removed).toEqual([
      "spec.probeSpec.bogus",
      "spec.selector.matchExpressions[0].extra",
      "spec.foo",
      "status.mirrorServices[0].remoteRef.uid",
      "other",
    ]);
    expect((pruned.spec as any).selector).toEqual({
      matchLabels: { any: "thing", nested: { ok: 1 } },
      matchExpressions: [{ key: "a", operator: "Exists" }],
    });
    expect(pruned.apiVersion).toBe(obj.apiVersion);
    expect(pruned.kind).toBe("Link");
  });

  test("metadata keeps only ObjectMeta fields, and is kept whatever the schema says", () => {
    const obj = link({}, {});
    (obj.metadata as any).bogus = 1;
    (obj.metadata as any).ownerReferences = [{ apiVersion: "v1", kind: "Secret", name: "s", uid: "u", nope: 1 }];
    const { pruned, removed } = pruneUnknown(obj, {
      type: "object",
      properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
    });
    expect(removed).toEqual(["metadata.bogus", "metadata.ownerReferences[0].nope"]);
    expect(pruned.metadata).toEqual({ ...link().metadata, ownerReferences: [{ apiVersion: "v1", kind: "Secret", name: "s", uid: "u" }] });
  });

  test("preserve-unknown-fields keeps unknown keys but prunes inside declared ones", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          "x-kubernetes-preserve-unknown-fields": true,
          properties: { known: { type: "object", properties: { a: { type: "string" } } } },
        },
      },
    };
    const obj: KubeObject = { apiVersion: "x/v1", kind: "X", metadata: { name: "x" }, spec: { free: { any: 1 }, known: { a: "1", b: 2 } } };
    const { pruned, removed } = pruneUnknown(obj, schema);
    expect(removed).toEqual(["spec.known.b"]);
    expect(pruned.spec).toEqual({ free: { any: 1 }, known: { a: "1" } });
  });

  test("additionalProperties schemas apply to every value, items to every element, int-or-string is a scalar", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            ports: {
              type: "object",
              additionalProperties: { type: "object", properties: { port: { "x-kubernetes-int-or-string": true } } },
            },
            list: { type: "array", items: { type: "object", properties: { n: { type: "integer" } } } },
            untyped: { type: "array" },
          },
        },
      },
    };
    const obj: KubeObject = {
      apiVersion: "x/v1",
      kind: "X",
      metadata: { name: "x" },
      spec: { ports: { http: { port: "http", x: 1 }, admin: { port: 9990 } }, list: [{ n: 1 }, { n: 2, m: 3 }], untyped: [1, { a: 1 }] },
    };
    const { pruned, removed } = pruneUnknown(obj, schema);
    expect(removed).toEqual(["spec.ports.http.x", "spec.list[1].m", "spec.untyped[1].a"]);
    expect(pruned.spec).toEqual({ ports: { http: { port: "http" }, admin: { port: 9990 } }, list: [{ n: 1 }, { n: 2 }], untyped: [1, {}] });
  });

  test("an embedded resource keeps apiVersion and kind and has its metadata coerced", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            template: {
              type: "object",
              "x-kubernetes-embedded-resource": true,
              properties: { spec: { type: "object", properties: { a: { type: "string" } } } },
            },
          },
        },
      },
    };
    const obj: KubeObject = {
      apiVersion: "x/v1",
      kind: "X",
      metadata: { name: "x" },
      spec: {
        template: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "t", labels: { a: "b" }, junk: 1 },
          spec: { a: "1", b: 2 },
          data: {},
        },
      },
    };
    const { pruned, removed } = pruneUnknown(obj, schema);
    expect(removed).toEqual(["spec.template.metadata.junk", "spec.template.spec.b", "spec.template.data"]);
    expect((pruned.spec as any).template).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "t", labels: { a: "b" } },
      spec: { a: "1" },
    });
  });

  test("without a schema only metadata is coerced", () => {
    const obj: KubeObject = { apiVersion: "x/v1", kind: "X", metadata: { name: "x", junk: 1 }, spec: { anything: { goes: 1 } } };
    expect(pruneUnknown(obj, undefined)).toEqual({
      pruned: { apiVersion: "x/v1", kind: "X", metadata: { name: "x" }, spec: { anything: { goes: 1 } } },
      removed: ["metadata.junk"],
    });
  });

  test("coerceObjectMeta drops malformed standard fields silently", () => {
    expect(coerceObjectMeta({ name: "x", labels: "oops", annotations: { a: "b" } })).toEqual({
      meta: { name: "x", annotations: { a: "b" } },
      unknown: [],
    });
  });
});

describe("applyDefaults", () => {
  test("defaults fill absent fields of objects that exist", () => {
    const obj = link({ probeSpec: { path: "/ready", port: "4191", period: "3s" } });
    expect((applyDefaults(obj, linkSchema).spec as any).probeSpec).toEqual({
      path: "/ready",
      port: "4191",
      period: "3s",
      timeout: "30s",
      failureThreshold: "3",
    });
  });

  test("no default is applied under an absent parent", () => {
    const obj = link();
    delete (obj.spec as any).probeSpec;
    expect((applyDefaults(obj, linkSchema).spec as any).probeSpec).toBeUndefined();
  });

  test("an object default is applied and then defaulted inside", () => {
    const schema = deepCopy(linkSchema);
    schema.properties!.spec!.properties!.probeSpec!.default = { path: "/ready" };
    const obj = link();
    delete (obj.spec as any).probeSpec;
    expect((applyDefaults(obj, schema).spec as any).probeSpec).toEqual({ path: "/ready", timeout: "30s", failureThreshold: "3" });
    expect(schema.properties!.spec!.properties!.probeSpec!.default).toEqual({ path: "/ready" }); // the schema's default is copied, not shared
  });

  test("status and list items are defaulted too", () => {
    const obj = link(
      {},
      { status: { mirrorServices: [{ controllerName: "linkerd.io/service-mirror", remoteRef: { name: "a", namespace: "b" } }] } },
    );
    expect((applyDefaults(obj, linkSchema).status as any).mirrorServices[0].remoteRef).toEqual({
      group: "core",
      kind: "Service",
      name: "a",
      namespace: "b",
    });
  });

  test("non-nullable nulls are dropped, or replaced by the default; nullable nulls stay", () => {
    const obj = link(
      { gatewayAddress: null, probeSpec: { path: "/ready", timeout: null } },
      {
        status: {
          mirrorServices: [
            { controllerName: "c/d", remoteRef: { name: "a", namespace: "b" }, conditions: [{ type: "Mirrored", message: null }] },
          ],
        },
      },
    );
    const out = applyDefaults(obj, linkSchema);
    expect("gatewayAddress" in (out.spec as any)).toBe(false);
    expect((out.spec as any).probeSpec).toEqual({ path: "/ready", timeout: "30s", failureThreshold: "3" });
    expect((out.status as any).mirrorServices[0].conditions[0]).toEqual({ type: "Mirrored", message: null });
  });

  test("the input is untouched", () => {
    const obj = link({ probeSpec: {} });
    const before = deepCopy(obj);
    applyDefaults(obj, linkSchema);
    expect(obj).toEqual(before);
  });
});

describe("validateCustom", () => {
  test("a correct Link, with status, has no problems", () => {
    const obj = link(
      {},
      {
        status: {
          mirrorServices: [
            {
              controllerName: "linkerd.io/service-mirror",
              remoteRef: { name: "a", namespace: "b" },
              conditions: [{ type: "Mirrored", status: "True", lastTransitionTime: "2026-01-02T03:04:05Z" }],
            },
          ],
        },
      },
    );
    expect(validateCustom(obj, linkSchema)).toEqual([]);
  });

  test("types, enum and required, with kube's paths and wording", () => {
    const obj = link({ targetClusterDomain: 5, selector: { matchExpressions: [{ key: "a", operator: "Maybe" }, { operator: "Exists" }] } });
    delete (obj.spec as any).targetClusterName;
    expect(validateCustom(obj, linkSchema)).toEqual([
      { field: "spec.targetClusterName", reason: "FieldValueRequired", message: "Required value" },
      {
        field: "spec.targetClusterDomain",
        reason: "FieldValueTypeInvalid",
        message: 'Invalid value: "integer": spec.targetClusterDomain in body must be of type string: "integer"',
      },
      {
        field: "spec.selector.matchExpressions[0].operator",
        reason: "FieldValueNotSupported",
        message: 'Unsupported value: "Maybe": supported values: "In", "NotIn", "Exists", "DoesNotExist"',
      },
      { field: "spec.selector.matchExpressions[1].key", reason: "FieldValueRequired", message: "Required value" },
    ]);
  });

  test("formats: duration, int32, date-time", () => {
    const obj = link(
      { gatewayPort: "4143", probeSpec: { period: "3 seconds", timeout: "soon" } },
      {
        status: {
          mirrorServices: [
            { controllerName: "a/b", remoteRef: { name: "a", namespace: "b" }, conditions: [{ lastTransitionTime: "today" }] },
          ],
        },
      },
    );
    expect(validateCustom(obj, linkSchema).map((p) => `${p.field}: ${p.message}`)).toEqual([
      'spec.probeSpec.timeout: Invalid value: "soon": spec.probeSpec.timeout in body must be of type duration: "soon"',
      'status.mirrorServices[0].conditions[0].lastTransitionTime: Invalid value: "today": status.mirrorServices[0].conditions[0].lastTransitionTime in body must be of type date-time: "today"',
    ]);
    const ints: JSONSchemaProps = {
      type: "object",
      properties: { spec: { type: "object", properties: { n: { type: "integer", format: "int32" } } } },
    };
    expect(validateCustom({ apiVersion: "x/v1", kind: "X", metadata: {}, spec: { n: 2 ** 31 } }, ints)).toHaveLength(1);
    expect(validateCustom({ apiVersion: "x/v1", kind: "X", metadata: {}, spec: { n: 2 ** 31 - 1 } }, ints)).toEqual([]);
  });

  test("pattern, lengths, item counts, bounds", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            name: { type: "string", pattern: "^[a-z]+$", minLength: 2, maxLength: 4 },
            n: { type: "integer", minimum: 1, maximum: 10 },
            f: { type: "number", minimum: 0.5 },
            tags: { type: "array", minItems: 1, maxItems: 2, items: { type: "string" } },
          },
        },
      },
    };
    const problems = (spec: object) =>
      validateCustom({ apiVersion: "x/v1", kind: "X", metadata: {}, spec }, schema).map((p) => `${p.field}: ${p.message}`);
    expect(problems({ name: "ab", n: 5, f: 1, tags: ["a"] })).toEqual([]);
    expect(problems({ name: "ABCDE", n: 0, f: 0.25, tags: [] })).toEqual([
      "spec.name: Too long: may not be more than 4 bytes",
      "spec.name: Invalid value: \"ABCDE\": spec.name in body should match '^[a-z]+$'",
      "spec.n: Invalid value: 0: spec.n in body should be greater than or equal to 1",
      "spec.f: Invalid value: 0.25: spec.f in body should be greater than or equal to 0.5",
      "spec.tags: Invalid value: []: spec.tags in body should have at least 1 items",
    ]);
    expect(problems({ name: "a", n: 11, tags: ["a", "b", "c"] })).toEqual([
      'spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long',
      "spec.n: Invalid value: 11: spec.n in body should be less than or equal to 10",
      "spec.tags: Too many: 3: must have at most 2 items",
    ]);
    expect(problems({ n: 1.5 })).toEqual(['spec.n: Invalid value: "number": spec.n in body must be of type integer: "number"']);
  });

  test("nullable: null is allowed only where declared", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: { spec: { type: "object", properties: { a: { type: "string", nullable: true }, b: { type: "string" } } } },
    };
    expect(validateCustom({ apiVersion: "x/v1", kind: "X", metadata: {}, spec: { a: null } }, schema)).toEqual([]);
    expect(validateCustom({ apiVersion: "x/v1", kind: "X", metadata: {}, spec: { b: null } }, schema).map((p) => p.message)).toEqual([
      'Invalid value: "null": spec.b in body must be of type string: "null"',
    ]);
  });

  test("int-or-string and untyped preserve-unknown nodes", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: { p: { "x-kubernetes-int-or-string": true }, any: { "x-kubernetes-preserve-unknown-fields": true } },
        },
      },
    };
    const ok = (spec: object) => validateCustom({ apiVersion: "x/v1", kind: "X", metadata: {}, spec }, schema);
    expect(ok({ p: 1, any: [1, "a", { b: null }] })).toEqual([]);
    expect(ok({ p: "http", any: 3 })).toEqual([]);
    expect(ok({ p: true })).toHaveLength(1);
  });

  test("list-type set and map reject duplicates; anyOf/oneOf check values", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            set: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
            map: {
              type: "array",
              "x-kubernetes-list-type": "map",
              "x-kubernetes-list-map-keys": ["name"],
              items: { type: "object", properties: { name: { type: "string" } } },
            },
            either: {
              type: "object",
              properties: { a: { type: "string" }, b: { type: "string" } },
              oneOf: [{ required: ["a"] }, { required: ["b"] }],
            },
          },
        },
      },
    };
    const problems = validateCustom(
      {
        apiVersion: "x/v1",
        kind: "X",
        metadata: {},
        spec: { set: ["a", "a"], map: [{ name: "x" }, { name: "x" }], either: { a: "1", b: "2" } },
      },
      schema,
    );
    expect(problems.map((p) => `${p.field}: ${p.message}`)).toEqual([
      'spec.set[1]: Duplicate value: "a"',
      'spec.map[1]: Duplicate value: {"name":"x"}',
      'spec.either: Invalid value: {"a":"1","b":"2"}: spec.either in body must validate one and only one schema (oneOf)',
    ]);
  });

  test("the root's required spec and a wrong-typed spec", () => {
    const schema: JSONSchemaProps = { type: "object", required: ["spec"], properties: { spec: { type: "object" } } };
    expect(validateCustom({ apiVersion: "x/v1", kind: "X", metadata: {} }, schema)).toEqual([
      { field: "spec", reason: "FieldValueRequired", message: "Required value" },
    ]);
    expect(validateCustom({ apiVersion: "x/v1", kind: "X", metadata: {}, spec: "s" }, schema)[0]?.message).toBe(
      'Invalid value: "string": spec in body must be of type object: "string"',
    );
  });
});

describe("admitStructural", () => {
  const strays = () => link({ foo: 1, probeSpec: { path: "/ready", bar: 2 } });

  test("Strict: unknown fields are a 400 with kube's strict decoding wording", () => {
    const err = apiError(() => admitStructural(strays(), linkSchema, "Strict"));
    expect(err.code).toBe(400);
    expect(err.message).toBe(
      'Link in version "v1alpha3" cannot be handled as a Link: strict decoding error: unknown field "spec.probeSpec.bar", unknown field "spec.foo"',
    );
  });

  test("Warn: pruned, defaulted, warned", () => {
    const { object, warnings } = admitStructural(strays(), linkSchema, "Warn");
    expect(warnings).toEqual(['unknown field "spec.probeSpec.bar"', 'unknown field "spec.foo"']);
    expect((object.spec as any).foo).toBeUndefined();
    expect((object.spec as any).probeSpec).toEqual({ path: "/ready", timeout: "30s", failureThreshold: "3" });
  });

  test("Ignore: pruned silently", () => {
    const { object, warnings } = admitStructural(strays(), linkSchema, "Ignore");
    expect(warnings).toEqual([]);
    expect((object.spec as any).foo).toBeUndefined();
  });

  test("invalid values are a 422 naming kind.group and object, in every mode", () => {
    for (const mode of ["Strict", "Warn", "Ignore"] as const) {
      const err = apiError(() => admitStructural(link({ probeSpec: { period: "often" } }), linkSchema, mode));
      expect(err.code).toBe(422);
      expect(err.message).toBe(
        'Link.multicluster.linkerd.io "east" is invalid: spec.probeSpec.period: Invalid value: "often": spec.probeSpec.period in body must be of type duration: "often"',
      );
    }
  });

  test("a correct Link is stored as sent, plus defaults", () => {
    const obj = link();
    expect(admitStructural(obj, linkSchema, "Strict")).toEqual({ object: obj, warnings: [] });
  });
});
