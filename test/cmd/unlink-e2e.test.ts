// Two links (east, north) in one west, with their controllers' objects and mirrors: `mc unlink
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hasKubectl, needsKubectl, kubectlFor, type Kubectl } from "../helpers/kubectl.ts";
import { applyObjects } from "../helpers/apply.ts";
import { listing, multiclusterSetup, type Setup } from "../helpers/clusters.ts";
import { runMc } from "./run-mc.ts";

// --cluster-name east | kubectl delete -f -` leaves exactly north's objects and every unrelated
// one; `mc uninstall` refuses while north is linked, and after unlinking north removes every
// object `mc install` made, leaving west as it was before.

let s: Setup;
let kubectl: Kubectl;
/** Objects that have nothing to do with mc: they must survive unlink and uninstall. */
const UNRELATED = ["Service default/web", "Service default/web-south", "Namespace shop", "Service shop/cart"];

beforeAll(async () => {
  s = await multiclusterSetup({ targets: ["east", "north"] });
  applyObjects(s.west, [
    { apiVersion: "v1", kind: "Service", metadata: { name: "web", namespace: "default" }, spec: { ports: [{ port: 80 }] } },
    // Named like a mirror, but nobody's mirror: no labels.
    { apiVersion: "v1", kind: "Service", metadata: { name: "web-south", namespace: "default" }, spec: { ports: [{ port: 80 }] } },
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } },
    { apiVersion: "v1", kind: "Service", metadata: { name: "cart", namespace: "shop" }, spec: { ports: [{ port: 80 }] } },
  ]);
  kubectl = kubectlFor(s.west.kubeconfig);
  // A pod of the Deployment would stop with it; the in-process controller is stopped by hand.
  await s.controllers.get("east")!.stop();
});
afterAll(() => s.stop());

const EAST = [
  "Endpoints default/web-east",
  "Endpoints linkerd-multicluster/probe-gateway-east",
  "Secret linkerd-multicluster/cluster-credentials-east",
  "Secret linkerd/cluster-credentials-east",
  "Service default/web-east",
  "Service linkerd-multicluster/probe-gateway-east",
  "ServiceAccount linkerd-multicluster/linkerd-service-mirror-east",
  "apps/Deployment linkerd-multicluster/linkerd-service-mirror-east",
  "coordination.k8s.io/Lease linkerd-multicluster/service-mirror-write-east",
  "multicluster.linkerd.io/Link linkerd-multicluster/east",
  "rbac.authorization.k8s.io/ClusterRole linkerd-service-mirror-access-local-resources-east",
  "rbac.authorization.k8s.io/ClusterRoleBinding linkerd-service-mirror-access-local-resources-east",
  "rbac.authorization.k8s.io/Role linkerd-multicluster/linkerd-service-mirror-read-remote-creds-east",
  "rbac.authorization.k8s.io/RoleBinding linkerd-multicluster/linkerd-service-mirror-read-remote-creds-east",
];

const minus = (a: string[], b: string[]) => a.filter((x) => !b.includes(x));

describe.skipIf(!hasKubectl)(needsKubectl("mc unlink and mc uninstall with two links"), () => {
  test("unlink of an unknown cluster is one line listing the Links that exist", async () => {
    const r = await runMc(["--kubeconfig", s.westKubeconfig, "unlink", "--cluster-name", "south"]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "error: --cluster-name: no Link linkerd-multicluster/south; Links on west: linkerd-multicluster/east, linkerd-multicluster/north (pass one of their names, or --namespace)\n",
    });
  });

  test("--only-controller prints only the controller's objects", async () => {
    const r = await runMc(["--kubeconfig", s.westKubeconfig, "unlink", "--cluster-name", "east", "--only-controller", "-o", "json"]);
    expect(r.code).toBe(0);
    const items = (JSON.parse(r.stdout) as { kind: string; items: { kind: string; metadata: { name: string } }[] }).items;
    expect(items.map((i) => `${i.kind} ${i.metadata.name}`)).toEqual([
      "Deployment linkerd-service-mirror-east",
      "Endpoints probe-gateway-east",
      "Service probe-gateway-east",
      "ClusterRoleBinding linkerd-service-mirror-access-local-resources-east",
      "RoleBinding linkerd-service-mirror-read-remote-creds-east",
      "ClusterRole linkerd-service-mirror-access-local-resources-east",
      "Role linkerd-service-mirror-read-remote-creds-east",
      "ServiceAccount linkerd-service-mirror-east",
    ]);
  });

  test("unlink east | kubectl delete -f - removes exactly east's objects; north's and unrelated ones stay", async () => {
    const before = listing(s.west);
    for (const x of [...EAST, ...UNRELATED]) expect(before).toContain(x);
    const r = await runMc(["--kubeconfig", s.westKubeconfig, "unlink", "--cluster-name", "east"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).not.toMatch(/^\s*(data|spec):/m);
    const del = await kubectl(["delete", "-f", "-"], { stdin: r.stdout });
    expect(del.stderr).toBe("");
    expect(del.code).toBe(0);
    const after = listing(s.west);
    // The cluster's controllers follow deleted objects: the EndpointSlice mirroring controller's
    // slices of deleted Endpoints and the garbage collector's ReplicaSet and Pod of the deleted
    // Deployment go too. They have generated names, so they are checked apart from the fixed list.
    const isSlice = (x: string) => x.startsWith("discovery.k8s.io/EndpointSlice ");
    const isWorkload = (x: string) => x.startsWith("apps/ReplicaSet ") || x.startsWith("Pod ");
    // Events (the controllers' reports on their Links, `<link>.<random>`) expire on their own; unlink leaves them.
    const isEvent = (x: string) => x.startsWith("Event ");
    const generated = (x: string) => isSlice(x) || isWorkload(x) || isEvent(x);
    const gone = minus(before, after);
    expect(gone.filter((x) => !generated(x)).sort()).toEqual(EAST);
    expect(
      gone
        .filter(isSlice)
        .map((x) => x.replace(/-[a-z0-9]{5}$/, ""))
        .sort(),
    ).toEqual([
      "discovery.k8s.io/EndpointSlice default/web-east",
      "discovery.k8s.io/EndpointSlice linkerd-multicluster/probe-gateway-east",
    ]);
    expect(
      gone
        .filter(isWorkload)
        .map((x) => x.replace(/-[b-z2-9]{5}$/, "").replace(/-[b-z2-9]{6,10}$/, ""))
        .sort(),
    ).toEqual(["Pod linkerd-multicluster/linkerd-service-mirror-east", "apps/ReplicaSet linkerd-multicluster/linkerd-service-mirror-east"]);
    expect(minus(after, before)).toEqual([]);
    expect(after.filter((x) => x.includes("north") && !generated(x)).length).toBe(EAST.length);
    expect(after.filter((x) => isSlice(x) && x.includes("north")).length).toBe(2);
    expect(after.filter((x) => isWorkload(x) && x.includes("north")).length).toBe(2);
  });

  test("uninstall refuses while north is linked, naming it, and prints nothing", async () => {
    const r = await runMc(["--kubeconfig", s.westKubeconfig, "uninstall"]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "error: Links still exist on west; unlink these clusters first: north (mc unlink --cluster-name <name> | kubectl delete -f -)\n",
    });
  });

  test("after unlinking north, uninstall | kubectl delete -f - leaves west as it was before mc install", async () => {
    await s.controllers.get("north")!.stop();
    const unlink = await runMc(["--kubeconfig", s.westKubeconfig, "unlink", "--cluster-name", "north"]);
    expect((await kubectl(["delete", "-f", "-"], { stdin: unlink.stdout })).code).toBe(0);
    const r = await runMc(["--kubeconfig", s.westKubeconfig, "uninstall"]);
    expect(r.code).toBe(0);
    const kinds = [...r.stdout.matchAll(/^kind: (\S+)$/gm)].map((m) => m[1]);
    expect(kinds.at(-1)).toBe("CustomResourceDefinition");
    const del = await kubectl(["delete", "-f", "-"], { stdin: r.stdout });
    expect(del.stderr).toBe("");
    expect(del.code).toBe(0);
    expect(listing(s.west)).toEqual([...s.baseline, ...UNRELATED].sort());
    const again = await runMc(["--kubeconfig", s.westKubeconfig, "uninstall"]);
    expect(again).toEqual({
      code: 1,
      stdout: "",
      stderr: "error: no resources labelled linkerd.io/extension=multicluster found to uninstall on west\n",
    });
  });
});
