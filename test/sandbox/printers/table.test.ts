// Server-side printing: the Table envelope kubectl asks for, built-in printers and custom resources' columns.
import { describe, expect, test } from "bun:test";
import { humanAge } from "../../../src/sandbox/printers/human-duration.ts";
import { evalJsonPath, evalJsonPathAll, JsonPathError, parseJsonPath } from "../../../src/sandbox/printers/jsonpath.ts";
import { toTable, wantsTable } from "../../../src/sandbox/printers/table.ts";
import type { KubeObject, PrinterColumn, ResourceType } from "../../../src/sandbox/types.ts";
import { hasKubectl, needsKubectl, kubectlFor } from "../../helpers/kubectl.ts";

const NOW = new Date("2026-06-01T12:00:00Z");
const ago = (seconds: number): string => new Date(NOW.getTime() - seconds * 1000).toISOString().replace(/\.\d+Z$/, "Z");
const MIN = 60;
const HOUR = 3600;
const DAY = 86400;

function rt(group: string, version: string, kind: string, plural: string, extra: Partial<ResourceType> = {}): ResourceType {
  return {
    group,
    version,
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    namespaced: true,
    verbs: ["get", "list"],
    subresources: { status: false },
    ...extra,
  };
}

const T = {
  namespaces: rt("", "v1", "Namespace", "namespaces", { namespaced: false }),
  services: rt("", "v1", "Service", "services"),
  endpoints: rt("", "v1", "Endpoints", "endpoints"),
  pods: rt("", "v1", "Pod", "pods"),
  secrets: rt("", "v1", "Secret", "secrets"),
  configmaps: rt("", "v1", "ConfigMap", "configmaps"),
  serviceaccounts: rt("", "v1", "ServiceAccount", "serviceaccounts"),
  events: rt("", "v1", "Event", "events"),
  deployments: rt("apps", "v1", "Deployment", "deployments"),
  roles: rt("rbac.authorization.k8s.io", "v1", "Role", "roles"),
  clusterroles: rt("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", { namespaced: false }),
  rolebindings: rt("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings"),
  clusterrolebindings: rt("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", { namespaced: false }),
  leases: rt("coordination.k8s.io", "v1", "Lease", "leases"),
  endpointslices: rt("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices"),
  pdbs: rt("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets"),
  crds: rt("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", { namespaced: false }),
  selfsubjectaccessreviews: rt("authorization.k8s.io", "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", { namespaced: false }),
};

const LINK_COLUMNS: PrinterColumn[] = [
  { name: "Cluster", type: "string", jsonPath: ".spec.targetClusterName" },
  { name: "Alive", type: "boolean", jsonPath: ".status.gateway.alive", priority: 1 },
  { name: "Latency", type: "integer", jsonPath: ".status.gateway.latencyMs" },
  { name: "Ready", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
  { name: "Ports", type: "string", jsonPath: ".spec.ports[*].port" },
  { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
];
const linkType = (columns: PrinterColumn[]) =>
  rt("multicluster.linkerd.io", "v1alpha3", "Link", "links", {
    crd: { name: "links.multicluster.linkerd.io", printerColumns: columns, storage: true },
  });

/** A fixture object; `age` in seconds before NOW. */
function obj(
  kind: string,
  name: string,
  fields: Record<string, unknown> = {},
  age = 10 * DAY,
  meta: Record<string, unknown> = {},
): KubeObject {
  return {
    apiVersion: "v1",
    kind,
    metadata: {
      name,
      namespace: "default",
      uid: `uid-${name}`,
      resourceVersion: "7",
      creationTimestamp: ago(age),
      labels: { app: name },
      ...meta,
    },
    ...fields,
  };
}

const cellsOf = (type: ResourceType, o: KubeObject) => toTable(type, [o], { now: NOW }).rows[0]!.cells;
const headersOf = (type: ResourceType) =>
  toTable(type, [], { now: NOW }).columnDefinitions.map((c) => (c.priority ? `(${c.name})` : c.name));

describe("humanAge", () => {
  test.each([
    [0, "0s"],
    [5, "5s"],
    [119, "119s"],
    [120, "2m"],
    [123, "2m3s"],
    [9 * MIN + 59, "9m59s"],
    [10 * MIN + 30, "10m"],
    [179 * MIN, "179m"],
    [3 * HOUR, "3h"],
    [3 * HOUR + 4 * MIN + 30, "3h4m"],
    [8 * HOUR + 5 * MIN, "8h"],
    [47 * HOUR, "47h"],
    [48 * HOUR, "2d"],
    [5 * DAY + 3 * HOUR, "5d3h"],
    [8 * DAY + 3 * HOUR, "8d"],
    [729 * DAY, "729d"],
    [730 * DAY, "2y"],
    [830 * DAY, "2y100d"],
    [8 * 365 * DAY + 20 * DAY, "8y"],
    [-1, "0s"],
    [-5, "<invalid>"],
  ])("%p seconds ago is %p", (seconds, text) => {
    expect(humanAge(ago(seconds), NOW)).toBe(text);
  });

  test("a missing timestamp is <unknown>", () => {
    expect(humanAge("", NOW)).toBe("<unknown>");
    expect(humanAge(undefined, NOW)).toBe("<unknown>");
  });
});

describe("wantsTable", () => {
  const KUBECTL = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
  test.each([
    [KUBECTL, "v1"],
    ["application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json", "v1beta1"],
    ["application/json", undefined],
    ["application/json, application/json;as=Table;v=v1;g=meta.k8s.io", undefined],
    ["application/json;q=0.5, application/json;as=Table;v=v1;g=meta.k8s.io", "v1"],
    ["application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json", undefined],
    ["application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json", undefined],
    ["application/json;as=Table;v=v2;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io", "v1"],
    ["application/json;as=Table;g=meta.k8s.io", undefined],
    ["*/*", undefined],
    ["", undefined],
    [null, undefined],
  ])("%p → %p", (accept, want) => {
    expect(wantsTable(accept)).toBe(want as "v1" | undefined);
  });
});

describe("Table envelope", () => {
  const svc = obj("Service", "web", { spec: { type: "ClusterIP", clusterIP: "10.96.0.10", ports: [{ port: 80, protocol: "TCP" }] } });

  test("rows carry PartialObjectMetadata by default, with the table's group version", () => {
    const t = toTable(T.services, [svc], { now: NOW, listMeta: { resourceVersion: "42", continue: "abc" } });
    expect(t.kind).toBe("Table");
    expect(t.apiVersion).toBe("meta.k8s.io/v1");
    expect(t.metadata).toEqual({ resourceVersion: "42", continue: "abc" });
    expect(t.rows[0]!.object).toEqual({ kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: svc.metadata });
  });

  test("includeObject=Object carries a copy of the whole object; None carries null", () => {
    const full = toTable(T.services, [svc], { now: NOW, includeObject: "Object" }).rows[0]!.object;
    expect(full).toEqual(svc);
    expect(full).not.toBe(svc);
    expect(toTable(T.services, [svc], { now: NOW, includeObject: "None" }).rows[0]!.object).toBeNull();
  });

  test("v1beta1 tables say so in the table and in each PartialObjectMetadata", () => {
    const t = toTable(T.services, [svc], { now: NOW, tableVersion: "v1beta1" });
    expect(t.apiVersion).toBe("meta.k8s.io/v1beta1");
    expect((t.rows[0]!.object as { apiVersion: string }).apiVersion).toBe("meta.k8s.io/v1beta1");
  });

  test("a single object's table takes its resourceVersion", () => {
    expect(toTable(T.services, [svc], { now: NOW }).metadata).toEqual({ resourceVersion: "7" });
  });

  test("column definitions have name, type, format, description and priority", () => {
    const [name, type] = toTable(T.services, [], { now: NOW }).columnDefinitions;
    expect(name).toEqual({
      name: "Name",
      type: "string",
      format: "name",
      description: expect.stringContaining("Name must be unique"),
      priority: 0,
    });
    expect(type).toMatchObject({ name: "Type", type: "string", format: "", priority: 0 });
  });

  test("noHeaders leaves the column definitions out", () => {
    expect(toTable(T.services, [svc], { now: NOW, noHeaders: true }).columnDefinitions).toEqual([]);
  });
});

describe("built-in printers", () => {
  test("namespaces: NAME STATUS AGE", () => {
    expect(headersOf(T.namespaces)).toEqual(["Name", "Status", "Age"]);
    expect(cellsOf(T.namespaces, obj("Namespace", "default", { status: { phase: "Active" } }))).toEqual(["default", "Active", "10d"]);
    expect(cellsOf(T.namespaces, obj("Namespace", "old", {}, DAY, { deletionTimestamp: ago(0) }))[1]).toBe("Terminating");
  });

  test("services: NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE (SELECTOR)", () => {
    expect(headersOf(T.services)).toEqual(["Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "(Selector)"]);
    const svc = (spec: Record<string, unknown>, status: Record<string, unknown> = {}) =>
      cellsOf(T.services, obj("Service", "web", { spec, status }, 5 * MIN));
    expect(
      svc({
        type: "ClusterIP",
        clusterIP: "10.96.0.10",
        clusterIPs: ["10.96.0.10"],
        ports: [{ port: 80, protocol: "TCP" }],
        selector: { tier: "fe", app: "web" },
      }),
    ).toEqual(["web", "ClusterIP", "10.96.0.10", "<none>", "80/TCP", "5m", "app=web,tier=fe"]);
    expect(
      svc({
        type: "NodePort",
        clusterIP: "10.96.0.11",
        ports: [{ port: 80 }, { port: 443, nodePort: 30443, protocol: "TCP" }, { port: 53, protocol: "UDP" }],
      }).slice(1, 5),
    ).toEqual(["NodePort", "10.96.0.11", "<none>", "80/TCP,443:30443/TCP,53/UDP"]);
    expect(svc({ type: "LoadBalancer", clusterIP: "10.96.0.12", ports: [{ port: 4143, nodePort: 31000 }] })[3]).toBe("<pending>");
    expect(
      svc(
        { type: "LoadBalancer", clusterIP: "10.96.0.12" },
        { loadBalancer: { ingress: [{ ip: "172.18.0.3" }, { hostname: "lb.example.com" }, { ip: "172.18.0.2" }] } },
      )[3],
    ).toBe("172.18.0.2,172.18.0.3,lb.example.com");
    expect(svc({ type: "LoadBalancer", externalIPs: ["1.2.3.4"] }, { loadBalancer: { ingress: [{ ip: "172.18.0.2" }] } })[3]).toBe(
      "172.18.0.2,1.2.3.4",
    );
    expect(svc({ type: "ClusterIP", clusterIP: "None", clusterIPs: ["None"] }).slice(2, 5)).toEqual(["None", "<none>", "<none>"]);
    expect(svc({ type: "ExternalName", externalName: "db.example.com" }).slice(2, 4)).toEqual(["<none>", "db.example.com"]);
  });

  test("endpoints: ip:port pairs, three at most", () => {
    const ep = (subsets: unknown) => cellsOf(T.endpoints, obj("Endpoints", "web", { subsets }))[1];
    expect(ep(undefined)).toBe("<none>");
    expect(ep([{ addresses: [{ ip: "10.0.0.1" }, { ip: "10.0.0.2" }], ports: [{ port: 80 }] }])).toBe("10.0.0.1:80,10.0.0.2:80");
    const five = [{ addresses: ["1", "2", "3", "4", "5"].map((n) => ({ ip: `10.0.0.${n}` })), ports: [{ port: 80 }] }];
    expect(ep(five)).toBe("10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 2 more...");
    expect(
      ep([
        {
          addresses: [{ ip: "10.0.0.1" }],
          ports: [
            { name: "http", port: 80 },
            { name: "https", port: 443 },
          ],
        },
      ]),
    ).toBe("10.0.0.1:80,10.0.0.1:443");
    expect(ep([{ addresses: [{ ip: "10.0.0.9" }] }])).toBe("10.0.0.9");
    expect(ep([{ addresses: [{ ip: "fd00::1" }], ports: [{ port: 80 }] }])).toBe("[fd00::1]:80");
  });

  test("pods: NAME READY STATUS RESTARTS AGE (IP NODE NOMINATED-NODE READINESS-GATES)", () => {
    expect(headersOf(T.pods)).toEqual([
      "Name",
      "Ready",
      "Status",
      "Restarts",
      "Age",
      "(IP)",
      "(Node)",
      "(Nominated Node)",
      "(Readiness Gates)",
    ]);
    const running = obj("Pod", "web-1", {
      spec: { nodeName: "node-a", containers: [{ name: "app" }, { name: "proxy" }] },
      status: {
        phase: "Running",
        podIP: "10.244.0.5",
        podIPs: [{ ip: "10.244.0.5" }],
        conditions: [{ type: "Ready", status: "True" }],
        containerStatuses: [
          { name: "app", ready: true, restartCount: 0, state: { running: { startedAt: ago(DAY) } } },
          { name: "proxy", ready: true, restartCount: 0, state: { running: {} } },
        ],
      },
    });
    expect(cellsOf(T.pods, running)).toEqual(["web-1", "2/2", "Running", "0", "10d", "10.244.0.5", "node-a", "<none>", "<none>"]);

    const crashing = obj("Pod", "web-2", {
      spec: { containers: [{ name: "app" }] },
      status: {
        phase: "Running",
        containerStatuses: [
          {
            name: "app",
            ready: false,
            restartCount: 4,
            state: { waiting: { reason: "CrashLoopBackOff" } },
            lastState: { terminated: { exitCode: 1, finishedAt: ago(5 * MIN) } },
          },
        ],
      },
    });
    expect(cellsOf(T.pods, crashing).slice(1, 6)).toEqual(["0/1", "CrashLoopBackOff", "4 (5m ago)", "10d", "<none>"]);

    const pending = obj("Pod", "web-3", { spec: { containers: [{ name: "app" }] }, status: { phase: "Pending" } });
    expect(cellsOf(T.pods, pending).slice(1, 4)).toEqual(["0/1", "Pending", "0"]);

    const init = obj("Pod", "web-4", {
      spec: { initContainers: [{ name: "setup" }], containers: [{ name: "app" }] },
      status: {
        phase: "Pending",
        initContainerStatuses: [{ name: "setup", restartCount: 0, state: { running: {} } }],
        containerStatuses: [{ name: "app", state: { waiting: { reason: "PodInitializing" } } }],
      },
    });
    expect(cellsOf(T.pods, init)[2]).toBe("Init:0/1");

    const done = obj("Pod", "job-1", {
      spec: { containers: [{ name: "app" }] },
      status: { phase: "Succeeded", containerStatuses: [{ name: "app", state: { terminated: { exitCode: 0, reason: "Completed" } } }] },
    });
    const row = toTable(T.pods, [done], { now: NOW }).rows[0]!;
    expect(row.cells[2]).toBe("Completed");
    expect(row.conditions).toEqual([
      { type: "Completed", status: "True", reason: "Succeeded", message: "The pod has completed successfully." },
    ]);

    const going = obj("Pod", "web-5", { spec: { containers: [{ name: "app" }] }, status: { phase: "Running" } }, DAY, {
      deletionTimestamp: ago(0),
    });
    expect(cellsOf(T.pods, going)[2]).toBe("Terminating");
  });

  test("secrets, configmaps and serviceaccounts count their entries", () => {
    expect(headersOf(T.secrets)).toEqual(["Name", "Type", "Data", "Age"]);
    expect(
      cellsOf(T.secrets, obj("Secret", "tok", { type: "kubernetes.io/service-account-token", data: { token: "eA==", "ca.crt": "eA==" } })),
    ).toEqual(["tok", "kubernetes.io/service-account-token", 2, "10d"]);
    expect(cellsOf(T.secrets, obj("Secret", "plain"))).toEqual(["plain", "Opaque", 0, "10d"]);
    expect(headersOf(T.configmaps)).toEqual(["Name", "Data", "Age"]);
    expect(cellsOf(T.configmaps, obj("ConfigMap", "cfg", { data: { a: "1" }, binaryData: { b: "eA==" } }))).toEqual(["cfg", 2, "10d"]);
    expect(headersOf(T.serviceaccounts)).toEqual(["Name", "Secrets", "Age"]);
    expect(cellsOf(T.serviceaccounts, obj("ServiceAccount", "default", { secrets: [{ name: "x" }] }))).toEqual(["default", 1, "10d"]);
  });

  test("events: LAST SEEN TYPE REASON OBJECT MESSAGE", () => {
    expect(headersOf(T.events)).toEqual([
      "Last Seen",
      "Type",
      "Reason",
      "Object",
      "(Subobject)",
      "(Source)",
      "Message",
      "(First Seen)",
      "(Count)",
      "(Name)",
    ]);
    const ev = obj("Event", "web.1", {
      type: "Warning",
      reason: "GatewayDown",
      message: " probe failed \n",
      involvedObject: { kind: "Link", name: "east", namespace: "linkerd-multicluster" },
      source: { component: "mc" },
      firstTimestamp: ago(HOUR),
      lastTimestamp: ago(2 * MIN),
      count: 3,
    });
    expect(cellsOf(T.events, ev)).toEqual(["2m", "Warning", "GatewayDown", "link/east", "", "mc", "probe failed", "60m", 3, "web.1"]);
    const fresh = obj("Event", "web.2", {
      type: "Normal",
      reason: "Mirrored",
      involvedObject: { kind: "Service" },
      eventTime: ago(30),
      reportingController: "mc",
      reportingInstance: "mc-0",
    });
    expect(cellsOf(T.events, fresh)).toEqual(["30s", "Normal", "Mirrored", "service", "", "mc, mc-0", "", "30s", 1, "web.2"]);
  });

  test("deployments: NAME READY UP-TO-DATE AVAILABLE AGE (CONTAINERS IMAGES SELECTOR)", () => {
    expect(headersOf(T.deployments)).toEqual(["Name", "Ready", "Up-to-date", "Available", "Age", "(Containers)", "(Images)", "(Selector)"]);
    const d = obj("Deployment", "gw", {
      spec: {
        replicas: 2,
        selector: {
          matchLabels: { app: "gw" },
          matchExpressions: [
            { key: "tier", operator: "In", values: ["b", "a"] },
            { key: "canary", operator: "DoesNotExist" },
          ],
        },
        template: {
          spec: {
            containers: [
              { name: "pause", image: "pause:3.9" },
              { name: "proxy", image: "proxy:1" },
            ],
          },
        },
      },
      status: { readyReplicas: 1, updatedReplicas: 2, availableReplicas: 1 },
    });
    expect(cellsOf(T.deployments, d)).toEqual([
      "gw",
      "1/2",
      2,
      1,
      "10d",
      "pause,proxy",
      "pause:3.9,proxy:1",
      "app=gw,!canary,tier in (a,b)",
    ]);
    expect(cellsOf(T.deployments, obj("Deployment", "bare", { spec: {} })).slice(1, 4)).toEqual(["0/1", 0, 0]);
  });

  test("roles, clusterroles and CRDs print NAME and CREATED AT, like kube's default convertor", () => {
    for (const t of [T.roles, T.clusterroles, T.crds, T.selfsubjectaccessreviews]) {
      const table = toTable(t, [obj("X", "x", {}, 90 * MIN)], { now: NOW });
      expect(table.columnDefinitions.map((c) => [c.name, c.type])).toEqual([
        ["Name", "string"],
        ["Created At", "date"],
      ]);
      expect(table.rows[0]!.cells).toEqual(["x", "2026-06-01T10:30:00Z"]);
    }
  });

  test("rolebindings and clusterrolebindings: NAME ROLE AGE (USERS GROUPS SERVICEACCOUNTS)", () => {
    expect(headersOf(T.rolebindings)).toEqual(["Name", "Role", "Age", "(Users)", "(Groups)", "(ServiceAccounts)"]);
    const rb = obj("RoleBinding", "rb", {
      roleRef: { kind: "ClusterRole", name: "view", apiGroup: "rbac.authorization.k8s.io" },
      subjects: [
        { kind: "User", name: "alice" },
        { kind: "User", name: "bob" },
        { kind: "Group", name: "dev" },
        { kind: "ServiceAccount", name: "mirror", namespace: "linkerd-multicluster" },
      ],
    });
    expect(cellsOf(T.clusterrolebindings, rb)).toEqual([
      "rb",
      "ClusterRole/view",
      "10d",
      "alice, bob",
      "dev",
      "linkerd-multicluster/mirror",
    ]);
  });

  test("leases, endpointslices and poddisruptionbudgets", () => {
    expect(headersOf(T.leases)).toEqual(["Name", "Holder", "Age"]);
    expect(cellsOf(T.leases, obj("Lease", "mc", { spec: { holderIdentity: "mc-0" } }))).toEqual(["mc", "mc-0", "10d"]);
    expect(cellsOf(T.leases, obj("Lease", "free", { spec: {} }))[1]).toBe("");

    expect(headersOf(T.endpointslices)).toEqual(["Name", "AddressType", "Ports", "Endpoints", "Age"]);
    const slice = obj("EndpointSlice", "web-abc", {
      addressType: "IPv4",
      ports: [{ port: 80 }, { name: "admin" }, {}, { port: 9 }],
      endpoints: [{ addresses: ["10.0.0.1"] }, { addresses: ["10.0.0.2", "10.0.0.3", "10.0.0.4"] }],
    });
    expect(cellsOf(T.endpointslices, slice)).toEqual([
      "web-abc",
      "IPv4",
      "80,admin,* + 1 more...",
      "10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...",
      "10d",
    ]);
    expect(cellsOf(T.endpointslices, obj("EndpointSlice", "empty", { addressType: "IPv4" })).slice(2, 4)).toEqual(["<unset>", "<unset>"]);

    expect(headersOf(T.pdbs)).toEqual(["Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age"]);
    expect(cellsOf(T.pdbs, obj("PodDisruptionBudget", "gw", { spec: { minAvailable: 1 }, status: { disruptionsAllowed: 0 } }))).toEqual([
      "gw",
      "1",
      "N/A",
      0,
      "10d",
    ]);
    expect(cellsOf(T.pdbs, obj("PodDisruptionBudget", "pct", { spec: { maxUnavailable: "50%" } })).slice(1, 4)).toEqual(["N/A", "50%", 0]);
  });
});

describe("custom resources", () => {
  const link = obj("Link", "east", {
    spec: { targetClusterName: "east", ports: [{ port: 4143 }, { port: 4191 }] },
    status: {
      gateway: { alive: true, latencyMs: 12.7 },
      conditions: [
        { type: "Probed", status: "False" },
        { type: "Ready", status: "True" },
      ],
    },
  });

  test("NAME comes first, then the declared columns, typed as declared", () => {
    const t = toTable(linkType(LINK_COLUMNS), [link], { now: NOW });
    expect(t.columnDefinitions.map((c) => [c.name, c.type, c.priority])).toEqual([
      ["Name", "string", 0],
      ["Cluster", "string", 0],
      ["Alive", "boolean", 1],
      ["Latency", "integer", 0],
      ["Ready", "string", 0],
      ["Ports", "string", 0],
      ["Age", "date", 0],
    ]);
    expect(t.columnDefinitions[1]!.description).toBe("Custom resource definition column (in JSONPath format): .spec.targetClusterName");
    // kube prints only a path's first match: the first port.
    expect(t.rows[0]!.cells).toEqual(["east", "east", true, 12, "True", "4143", "10d"]);
  });

  test("missing fields and mistyped values give null cells (kubectl prints them blank)", () => {
    const bare = obj("Link", "west", { spec: { targetClusterName: 7 }, status: { gateway: { alive: "yes" } } });
    expect(cellsOf(linkType(LINK_COLUMNS), bare)).toEqual(["west", "7", null, null, null, null, "10d"]);
  });

  test("string columns print maps and lists as compact JSON with sorted keys", () => {
    const t = linkType([{ name: "Gateway", type: "string", jsonPath: ".status.gateway" }]);
    expect(cellsOf(t, link)[1]).toBe('{"alive":true,"latencyMs":12.7}');
  });

  test("a CRD with no printer columns prints NAME and AGE", () => {
    const t = toTable(linkType([]), [link], { now: NOW });
    expect(t.columnDefinitions.map((c) => [c.name, c.type])).toEqual([
      ["Name", "string"],
      ["Age", "date"],
    ]);
    expect(t.rows[0]!.cells).toEqual(["east", "10d"]);
  });

  test("a column without an Age column gets no AGE", () => {
    expect(headersOf(linkType([LINK_COLUMNS[0]!]))).toEqual(["Name", "Cluster"]);
  });

  test("a date column that is not RFC3339 prints <invalid>", () => {
    const t = linkType([{ name: "Probed", type: "date", jsonPath: ".status.lastProbe" }]);
    expect(cellsOf(t, obj("Link", "x", { status: { lastProbe: "yesterday" } }))[1]).toBe("<invalid>");
    expect(cellsOf(t, obj("Link", "x", { status: { lastProbe: ago(90) } }))[1]).toBe("90s");
  });
});

describe("evalJsonPath", () => {
  const doc = {
    metadata: { name: "east", labels: { "app.kubernetes.io/name": "mc" }, creationTimestamp: "2026-01-01T00:00:00Z" },
    spec: { targetClusterName: "east", ports: [{ name: "mc", port: 4143 }, { name: "admin", port: 4191 }, { port: 80 }], empty: null },
    status: {
      gateway: { alive: false },
      conditions: [
        { type: "Ready", status: "True", reason: "Up" },
        { type: "Probed", status: "False" },
      ],
    },
  };

  test.each([
    [".spec.targetClusterName", "east"],
    ["{.spec.targetClusterName}", "east"],
    ["$.spec.targetClusterName", "east"],
    [".status.gateway.alive", false],
    [".metadata.creationTimestamp", "2026-01-01T00:00:00Z"],
    ['.status.conditions[?(@.type=="Ready")].status', "True"],
    [".status.conditions[?(@.type == 'Probed')].status", "False"],
    ['.status.conditions[?(@.type!="Ready")].type', "Probed"],
    [".spec.ports[?(@.port > 4150)].name", "admin"],
    [".spec.ports[?(@.name)].port", 4143],
    [".spec.ports[*].port", 4143],
    [".spec.ports[1].port", 4191],
    [".spec.ports[-1].port", 80],
    [".metadata.labels.app\\.kubernetes\\.io/name", "mc"],
    [".metadata.labels['app.kubernetes.io/name']", "mc"],
    ["..alive", false],
    [".spec.empty", null],
    [".spec.missing", undefined],
    [".spec.ports[9].port", undefined],
    [".spec.targetClusterName.deeper", undefined],
    ['.status.conditions[?(@.type=="Gone")].status', undefined],
  ])("%p selects %p first", (path, want) => {
    expect(evalJsonPath(doc, path)).toEqual(want);
  });

  test.each([
    [".spec.ports[*].port", [4143, 4191, 80]],
    [".spec.ports[0:2].name", ["mc", "admin"]],
    [".spec.ports[0,2].port", [4143, 80]],
    ["..port", [4143, 4191, 80]],
    [".status.conditions[*].type", ["Ready", "Probed"]],
    [".status.gateway.*", [false]],
  ])("%p selects all of %p", (path, want) => {
    expect(evalJsonPathAll(doc, path)).toEqual(want);
  });

  test('"." selects the object itself', () => {
    expect(evalJsonPathAll(doc, ".")).toEqual([doc]);
  });

  test.each(["spec.x", ".spec[", ".spec[?(@.x==)]", ".a[1:2,3]", ".spec..", '.a[?(@.x=="y"]'])("%p does not parse", (path) => {
    expect(() => parseJsonPath(path)).toThrow(JsonPathError);
  });
});

// kubectl itself renders what we send: a tiny discovery + list server, no sandbox needed.
describe.skipIf(!hasKubectl)(needsKubectl("kubectl get"), () => {
  const created = () => new Date(Date.now() - 10 * DAY * 1000).toISOString(); // "10d" for as long as the test runs
  const linkCrdType = linkType(LINK_COLUMNS);

  function fakeApiServer(objects: Record<string, { type: ResourceType; items: KubeObject[] }>) {
    const resource = (t: ResourceType) => ({
      name: t.plural,
      singularName: t.singular,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: t.verbs,
    });
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        const path = new URL(req.url).pathname;
        if (path === "/version") return Response.json({ major: "1", minor: "32", gitVersion: "v1.32.0" });
        if (path === "/api") return Response.json({ kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [] });
        if (path === "/apis") {
          const gv = { groupVersion: "multicluster.linkerd.io/v1alpha3", version: "v1alpha3" };
          return Response.json({
            kind: "APIGroupList",
            apiVersion: "v1",
            groups: [{ name: "multicluster.linkerd.io", versions: [gv], preferredVersion: gv }],
          });
        }
        if (path === "/api/v1")
          return Response.json({ kind: "APIResourceList", groupVersion: "v1", resources: [resource(T.services), resource(T.pods)] });
        if (path === "/apis/multicluster.linkerd.io/v1alpha3") {
          return Response.json({
            kind: "APIResourceList",
            groupVersion: "multicluster.linkerd.io/v1alpha3",
            resources: [resource(linkCrdType)],
          });
        }
        const entry = objects[path];
        if (!entry)
          return Response.json({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 }, { status: 404 });
        const table = wantsTable(req.headers.get("accept"));
        if (!table) return new Response("this test serves tables only", { status: 406 });
        return Response.json(
          toTable(entry.type, entry.items, { now: new Date(), listMeta: { resourceVersion: "9" }, tableVersion: table }),
        );
      },
    });
    const kubectl = kubectlFor(
      [
        "apiVersion: v1",
        "kind: Config",
        `clusters: [{name: fake, cluster: {server: "http://127.0.0.1:${server.port}"}}]`,
        "users: [{name: fake, user: {}}]",
        "contexts: [{name: fake, context: {cluster: fake, user: fake, namespace: default}}]",
        "current-context: fake",
        "",
      ].join("\n"),
    );
    return { server, kubectl };
  }

  const rowsOf = (stdout: string) =>
    stdout
      .trimEnd()
      .split("\n")
      .map((line) => line.trim().split(/\s{2,}/));

  test("prints services with the usual columns, and SELECTOR with -o wide", async () => {
    const svc = (name: string, spec: Record<string, unknown>, status: Record<string, unknown> = {}) =>
      ({
        apiVersion: "v1",
        kind: "Service",
        metadata: { name, namespace: "default", creationTimestamp: created() },
        spec,
        status,
      }) as KubeObject;
    const { server, kubectl } = fakeApiServer({
      "/api/v1/namespaces/default/services": {
        type: T.services,
        items: [
          svc("gateway", {
            type: "LoadBalancer",
            clusterIP: "10.96.0.20",
            ports: [
              { port: 4143, nodePort: 30143, protocol: "TCP" },
              { port: 4191, nodePort: 30191, protocol: "TCP" },
            ],
          }),
          svc("web", { type: "ClusterIP", clusterIP: "10.96.0.10", ports: [{ port: 80, protocol: "TCP" }], selector: { app: "web" } }),
        ],
      },
    });
    try {
      const res = await kubectl(["get", "services"]);
      expect(res.stderr).toBe("");
      expect(res.code).toBe(0);
      expect(rowsOf(res.stdout)).toEqual([
        ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"],
        ["gateway", "LoadBalancer", "10.96.0.20", "<pending>", "4143:30143/TCP,4191:30191/TCP", "10d"],
        ["web", "ClusterIP", "10.96.0.10", "<none>", "80/TCP", "10d"],
      ]);
      const wideRes = await kubectl(["get", "services", "-o", "wide"]);
      expect(rowsOf(wideRes.stdout)[0]).toEqual(["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"]);
      expect(rowsOf(wideRes.stdout)[2]).toEqual(["web", "ClusterIP", "10.96.0.10", "<none>", "80/TCP", "10d", "app=web"]);
      const labels = await kubectl(["get", "services", "--show-labels", "--no-headers"]);
      expect(labels.code).toBe(0);
    } finally {
      server.stop(true);
    }
  });

  test("prints pods with READY, STATUS and RESTARTS, and IP and NODE with -o wide", async () => {
    const lastCrash = new Date(Date.now() - 20 * MIN * 1000).toISOString(); // "20m" for a minute
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web-1", namespace: "default", creationTimestamp: created() },
      spec: { nodeName: "node-a", containers: [{ name: "app" }, { name: "proxy" }] },
      status: {
        phase: "Running",
        podIPs: [{ ip: "10.244.0.5" }],
        containerStatuses: [
          {
            name: "app",
            ready: true,
            restartCount: 2,
            state: { running: {} },
            lastState: { terminated: { exitCode: 1, finishedAt: lastCrash } },
          },
          { name: "proxy", ready: false, restartCount: 0, state: { running: {} } },
        ],
      },
    } as KubeObject;
    const { server, kubectl } = fakeApiServer({ "/api/v1/namespaces/default/pods": { type: T.pods, items: [pod] } });
    try {
      const res = await kubectl(["get", "pods"]);
      expect(res.stderr).toBe("");
      expect(rowsOf(res.stdout)).toEqual([
        ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
        ["web-1", "1/2", "Running", "2 (20m ago)", "10d"],
      ]);
      const wideRes = await kubectl(["get", "pods", "-o", "wide"]);
      expect(rowsOf(wideRes.stdout)).toEqual([
        ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"],
        ["web-1", "1/2", "Running", "2 (20m ago)", "10d", "10.244.0.5", "node-a", "<none>", "<none>"],
      ]);
    } finally {
      server.stop(true);
    }
  });

  test("prints a custom resource's printer columns, blank for missing values", async () => {
    const link = (name: string, fields: Record<string, unknown>) =>
      ({
        apiVersion: "multicluster.linkerd.io/v1alpha3",
        kind: "Link",
        metadata: { name, namespace: "default", creationTimestamp: created() },
        ...fields,
      }) as KubeObject;
    const { server, kubectl } = fakeApiServer({
      "/apis/multicluster.linkerd.io/v1alpha3/namespaces/default/links": {
        type: linkCrdType,
        items: [
          link("east", {
            spec: { targetClusterName: "east", ports: [{ port: 4143 }] },
            status: { gateway: { alive: true, latencyMs: 3 }, conditions: [{ type: "Ready", status: "True" }] },
          }),
          link("west", { spec: { targetClusterName: "west" } }),
        ],
      },
    });
    try {
      const res = await kubectl(["get", "links"]);
      expect(res.stderr).toBe("");
      // kubectl leaves null cells blank.
      expect(res.stdout.split("\n").map((l) => l.trimEnd())).toEqual([
        "NAME   CLUSTER   LATENCY   READY   PORTS   AGE",
        "east   east      3         True    4143    10d",
        "west   west                                10d",
        "",
      ]);
      const wideRes = await kubectl(["get", "links", "-o", "wide"]);
      const [header, east] = rowsOf(wideRes.stdout);
      expect(header).toEqual(["NAME", "CLUSTER", "ALIVE", "LATENCY", "READY", "PORTS", "AGE"]);
      expect(east).toEqual(["east", "east", "true", "3", "True", "4143", "10d"]);
    } finally {
      server.stop(true);
    }
  });
});
