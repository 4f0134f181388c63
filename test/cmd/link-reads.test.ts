// Every object mc link (and install, allow) reads, missing or wrong: one line naming the object
// and the fix, exit 1, nothing on stdout. One sandbox; each case sets up its own namespaces.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import type { Manifest } from "../../src/manifests/meta.ts";
import { fakeLinkerd, installMc } from "../helpers/linkerd.ts";
import { runMc } from "./run-mc.ts";

let sb: Sandbox;
let kubeconfig: string;
const SA = "linkerd-service-mirror-remote-access-default";

beforeAll(async () => {
  sb = await startSandbox({ name: "east" });
  kubeconfig = join(mkdtempSync(join(tmpdir(), "mc-reads-")), "east");
  writeFileSync(kubeconfig, sb.kubeconfig);
  fakeLinkerd(sb);
  fakeLinkerd(sb, { linkerdNamespace: "bare", withoutConfig: true });
});
afterAll(() => sb?.stop());

/** Installs mc into namespace `ns`, with `mutate` applied to the rendered objects first. */
const target = (ns: string, mutate?: (objects: Manifest[]) => Manifest[], serviceType?: "LoadBalancer" | "ClusterIP") =>
  installMc(sb, { namespace: ns, mutate, serviceType });

const without = (kind: string, name?: string) => (objects: Manifest[]) =>
  objects.filter((o) => !(o.kind === kind && (name === undefined || o.metadata.name === name)));
const gatewayAnnotations = (change: (a: Record<string, string>) => void) => (objects: Manifest[]) =>
  objects.map((o) => {
    if (o.kind !== "Service") return o;
    const copy = structuredClone(o);
    change(copy.metadata.annotations!);
    return copy;
  });

async function expectError(argv: string[], message: string): Promise<void> {
  const r = await runMc(["--kubeconfig", kubeconfig, ...argv]);
  expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 1, stdout: "", stderr: `error: ${message}\n` });
}

describe("mc link names the missing object and the fix", () => {
  test("linkerd-config missing", async () => {
    await target("mc-noconfig");
    await expectError(
      ["link", "--cluster-name", "east", "--namespace", "mc-noconfig", "-L", "bare"],
      "ConfigMap bare/linkerd-config on east not found: install Linkerd's control plane first, or pass --linkerd-namespace if it runs elsewhere",
    );
  });

  test("the remote access ServiceAccount missing", async () => {
    await target("mc-nosa", without("ServiceAccount", SA));
    await expectError(
      ["link", "--cluster-name", "east", "--namespace", "mc-nosa"],
      `ServiceAccount mc-nosa/${SA} on east not found: run mc install (or mc allow --service-account-name ${SA}) on east first`,
    );
  });

  test("its token Secret missing", async () => {
    await target("mc-notoken", without("Secret"));
    await expectError(
      ["link", "--cluster-name", "east", "--namespace", "mc-notoken"],
      `no token Secret for ServiceAccount mc-notoken/${SA} on east: apply the Secret ${SA}-token that mc install renders (type kubernetes.io/service-account-token, annotation kubernetes.io/service-account.name=${SA})`,
    );
  });

  test("the gateway Service missing", async () => {
    await target("mc-nogw", without("Service", "linkerd-gateway"));
    await expectError(
      ["link", "--cluster-name", "east", "--namespace", "mc-nogw"],
      "gateway Service mc-nogw/linkerd-gateway on east not found: run mc install on east, pass --gateway-name/--gateway-namespace, or --gateway=false for a link without a gateway",
    );
  });

  test("the gateway with no ingress address yet", async () => {
    await target("mc-noaddr", undefined, "ClusterIP");
    await expectError(
      ["link", "--cluster-name", "east", "--namespace", "mc-noaddr"],
      "gateway Service mc-noaddr/linkerd-gateway on east is of type ClusterIP, which has no ingress address: pass --gateway-addresses with addresses the source can reach",
    );
  });

  test("the gateway without its identity annotation", async () => {
    await target(
      "mc-noid",
      gatewayAnnotations((a) => delete a["mirror.linkerd.io/gateway-identity"]),
    );
    await expectError(
      ["link", "--cluster-name", "east", "--namespace", "mc-noid"],
      "gateway Service mc-noid/linkerd-gateway on east has no mirror.linkerd.io/gateway-identity annotation: re-run mc install on the target",
    );
  });

  test("the gateway with an unreadable probe period", async () => {
    await target(
      "mc-badperiod",
      gatewayAnnotations((a) => (a["mirror.linkerd.io/probe-period"] = "often")),
    );
    await expectError(
      ["link", "--cluster-name", "east", "--namespace", "mc-badperiod"],
      `gateway Service mc-badperiod/linkerd-gateway on east annotation mirror.linkerd.io/probe-period is "often": want seconds ("3") or a Go duration ("3s") of at least 1s and at most 1h; fix the annotation or re-run mc install --gateway-probe-seconds`,
    );
  });

  test("a gateway-less link does not read the gateway at all", async () => {
    await target("mc-gwless", without("Service", "linkerd-gateway"));
    const r = await runMc(["--kubeconfig", kubeconfig, "link", "--cluster-name", "east", "--namespace", "mc-gwless", "--gateway=false"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).not.toContain("gatewayAddress");
    expect(r.stdout).not.toContain("probe-gateway-east");
    // Flat/federated use only: no gateway selector and no probe, the two other selectors as given.
    const link = r.stdout.split("---\n").find((doc) => doc.includes("kind: Link\n"))!;
    expect(link).not.toMatch(/^\s+selector:/m);
    expect(link).not.toContain("probeSpec");
    expect(link).toContain("remoteDiscoverySelector:\n    matchLabels:\n      mirror.linkerd.io/exported: remote-discovery");
    expect(link).toContain("federatedServiceSelector:\n    matchLabels:\n      mirror.linkerd.io/federated: member");
  });

  test("an unreachable cluster is one line naming it", async () => {
    const dead = join(mkdtempSync(join(tmpdir(), "mc-dead-")), "dead");
    writeFileSync(dead, sb.kubeconfigWith({ server: "http://127.0.0.1:1" }));
    const r = await runMc(["--kubeconfig", dead, "link", "--cluster-name", "east"]);
    expect([r.code, r.stdout]).toEqual([1, ""]);
    expect(r.stderr.split("\n")).toHaveLength(2);
    expect(r.stderr).toStartWith(
      "error: get configmaps linkerd/linkerd-config on east: the connection to http://127.0.0.1:1 was refused; is the API server running, and are the context and kubeconfig the right ones?",
    );
  });
});

describe("mc install and mc allow read the cluster unless --ignore-cluster", () => {
  test("mc install without linkerd-config says to install Linkerd or pass --ignore-cluster", async () => {
    await expectError(
      ["install", "-L", "bare"],
      "ConfigMap bare/linkerd-config on east not found: install Linkerd's control plane first, or pass --linkerd-namespace if it runs elsewhere, or --ignore-cluster to render from flags and defaults",
    );
  });

  test("mc install takes the trust domain from linkerd-config", async () => {
    fakeLinkerd(sb, { linkerdNamespace: "l5d-custom", trustDomain: "root.example" });
    const r = await runMc(["--kubeconfig", kubeconfig, "install", "-L", "l5d-custom"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("identity: linkerd-gateway.linkerd-multicluster.serviceaccount.identity.l5d-custom.root.example");
  });

  test("mc allow refuses an account that already exists", async () => {
    await target("mc-allow");
    await expectError(
      ["allow", "--namespace", "mc-allow", "--service-account-name", SA],
      `ServiceAccount mc-allow/${SA} already exists on east: choose another --service-account-name, or pass --ignore-cluster to render it anyway`,
    );
  });

  test("mc allow renders a new account", async () => {
    const r = await runMc(["--kubeconfig", kubeconfig, "allow", "--namespace", "mc-allow", "--service-account-name", "remote-west"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toContain("name: remote-west-token");
  });
});
