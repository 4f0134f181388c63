// `mc check`'s verdicts on the controller's Lease, the gateway status and RBAC coverage.
import { describe, expect, test } from "bun:test";
import { bindingProblem, deploymentDetail, gatewayVerdict, leaseVerdict, missingPermissions } from "../../src/checker/verdicts.ts";
import { ago, link, NOW } from "./fixtures.ts";

const where = "Lease linkerd-multicluster/service-mirror-write-east";

describe("the controller's Lease", () => {
  test("held and renewed within its duration means the controller is running", () => {
    const v = leaseVerdict({ spec: { holderIdentity: "pod-1", renewTime: ago(5_000), leaseDurationSeconds: 30 } }, where, NOW);
    expect(v).toEqual({ ok: true, line: `${where} held by pod-1` });
  });

  test("a missing Lease means no controller ever ran", () => {
    expect(leaseVerdict(undefined, where, NOW)).toMatchObject({
      ok: false,
      line: `${where} not found: no controller has ever run for this link`,
    });
  });

  test("a released Lease means the controller stopped", () => {
    const v = leaseVerdict({ spec: { holderIdentity: "", renewTime: ago(1000), leaseDurationSeconds: 1 } }, where, NOW);
    expect(v.ok).toBe(false);
    expect(v.line).toContain("has no holder");
  });

  test("a Lease not renewed within its duration means the controller is stuck or gone", () => {
    const v = leaseVerdict({ spec: { holderIdentity: "pod-1", renewTime: ago(45_000), leaseDurationSeconds: 30 } }, where, NOW);
    expect(v).toEqual({
      ok: false,
      line: `${where} held by pod-1 was last renewed 45s ago, longer than its 30s duration: the controller is stuck or gone`,
    });
  });

  test("the Deployment is only a detail: available replicas, or where else the controller may run", () => {
    expect(deploymentDetail({ spec: { replicas: 3 }, status: { availableReplicas: 2 } }, "Deployment d")).toBe(
      "Deployment d: 2/3 replicas available",
    );
    expect(deploymentDetail({ status: {} }, "Deployment d")).toBe("Deployment d: 0/1 replicas available");
    expect(deploymentDetail(undefined, "Deployment d")).toContain("not found (the controller runs elsewhere");
  });
});

describe("gateway status", () => {
  const alive = { alive: true, lastProbeTime: ago(2_000), consecutiveFailures: 0 };

  test("a recent alive status passes", () => {
    expect(gatewayVerdict(link({ status: alive }), NOW)).toMatchObject({ ok: true, line: "east: gateway alive" });
  });

  test("a gateway-less link has nothing to probe and passes", () => {
    expect(gatewayVerdict(link({ gateway: false }), NOW)).toMatchObject({ ok: true, probed: false });
  });

  test("no status yet fails", () => {
    expect(gatewayVerdict(link(), NOW)).toMatchObject({
      ok: false,
      line: "east: no gateway status yet (the controller writes it after its first probe)",
    });
  });

  test("a dead gateway fails with its failure count and since when", () => {
    const v = gatewayVerdict(
      link({ status: { alive: false, lastProbeTime: ago(1000), consecutiveFailures: 4, lastTransitionTime: "2026-12-02T11:59:50Z" } }),
      NOW,
    );
    expect(v).toMatchObject({
      ok: false,
      line: "east: gateway 192.0.2.10 is not alive since 2026-12-02T11:59:50Z (4 failed probes in a row)",
    });
  });

  test("an alive status older than 30 s counts as a failure, as mc gateways calls it stale", () => {
    const v = gatewayVerdict(link({ status: { ...alive, lastProbeTime: ago(31_000) } }), NOW);
    expect(v.ok).toBe(false);
    expect(v.line).toBe("east: gateway status is stale: last probe 31s ago, more than 30s (is the controller running?)");
  });

  test("with a long probe period, stale means older than three periods", () => {
    expect(gatewayVerdict(link({ period: "20s", status: { ...alive, lastProbeTime: ago(59_000) } }), NOW).ok).toBe(true);
    expect(gatewayVerdict(link({ period: "20s", status: { ...alive, lastProbeTime: ago(61_000) } }), NOW).line).toContain("more than 1m0s");
  });
});

describe("RBAC coverage", () => {
  const want = [{ apiGroups: [""], resources: ["services", "endpoints"], verbs: ["get", "list"] }];

  test("identical and wider rules grant everything", () => {
    expect(missingPermissions(want, want)).toEqual([]);
    expect(missingPermissions(want, [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }])).toEqual([]);
  });

  test("each missing verb and resource is named", () => {
    expect(missingPermissions(want, [{ apiGroups: [""], resources: ["services"], verbs: ["get"] }])).toEqual([
      "list services",
      "get endpoints",
      "list endpoints",
    ]);
  });

  test("a rule limited to names grants only those names", () => {
    const named = [{ apiGroups: [""], resources: ["secrets"], resourceNames: ["a"], verbs: ["get"] }];
    expect(missingPermissions(named, named)).toEqual([]);
    expect(missingPermissions([{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }], named)).toEqual(["get secrets"]);
    expect(
      missingPermissions([{ apiGroups: ["coordination.k8s.io"], resources: ["leases"], resourceNames: ["b"], verbs: ["get"] }], []),
    ).toEqual(["get coordination.k8s.io/leases/b"]);
  });

  test("a binding must reference the role and bind the service account", () => {
    const binding = { roleRef: { kind: "Role", name: "r" }, subjects: [{ kind: "ServiceAccount", name: "sa", namespace: "ns" }] };
    expect(bindingProblem(binding, binding)).toBe("");
    expect(bindingProblem(binding, { ...binding, roleRef: { kind: "Role", name: "other" } })).toBe("binds Role other, want Role r");
    expect(bindingProblem(binding, { ...binding, subjects: [] })).toBe("does not bind ServiceAccount ns/sa");
  });
});
