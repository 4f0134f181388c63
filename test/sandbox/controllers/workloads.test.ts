// The sandbox as kube-controller-manager and a kubelet, driven by the real kubectl: Deployments get ReplicaSets and running Pods, Services
// with a selector get Endpoints and EndpointSlices from those Pods (readiness, named ports, labels), selector-less Services keep
// hand-written Endpoints, and a LoadBalancer's address is assigned once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startSandbox, type Sandbox } from "../../../src/sandbox/index.ts";
import { hasKubectl, kubectlFor, needsKubectl, strictCalls, type Kubectl } from "../../helpers/kubectl.ts";

let sb: Sandbox;
let kubectl: Kubectl;

beforeAll(async () => {
  sb = await startSandbox({ name: "workloads" });
  kubectl = kubectlFor(sb.kubeconfig);
  sb.api.create(
    sb.api.registry.find("", "v1", "namespaces")!,
    undefined,
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "w" } },
    { fieldManager: "test" },
  );
});
afterAll(() => sb?.stop());

/** Calls that must succeed with nothing on stderr (no warnings about the server). */
const { ok, getJson } = strictCalls(() => kubectl);
type Obj = { metadata: { name: string; uid: string; [k: string]: any }; [k: string]: any };
const podsOf = async (selector: string): Promise<Obj[]> => (await getJson(["get", "pods", "-n", "w", "-l", selector])).items;
const ips = (addresses: Array<{ ip: string }> | undefined) => (addresses ?? []).map((a) => a.ip).sort();

const webDeployment = `
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: w }
spec:
  replicas: 2
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: nginx, image: nginx, ports: [{ name: http, containerPort: 8080 }] }] }
`;

const selectorService = `
apiVersion: v1
kind: Service
metadata: { name: web, namespace: w, labels: { app: web, mirror.linkerd.io/exported: "true" } }
spec:
  selector: { app: web }
  ports: [{ name: http, port: 80, targetPort: http }, { name: admin, port: 9990, targetPort: 9990 }]
`;

describe.skipIf(!hasKubectl)(needsKubectl("Deployments, Pods, Endpoints and slices through kubectl"), () => {
  test("kubectl create deployment: a ReplicaSet and running, ready Pods with IPs; rollout status succeeds; the Deployment is Available", async () => {
    expect(await ok(["create", "deployment", "hello", "-n", "w", "--image=nginx", "--replicas=2", "--port=8080"])).toBe(
      "deployment.apps/hello created\n",
    );
    expect(await ok(["rollout", "status", "deployment/hello", "-n", "w", "--timeout=10s"])).toBe(
      'deployment "hello" successfully rolled out\n',
    );
    const pods = await ok(["get", "pods", "-n", "w", "-l", "app=hello", "-o", "wide"]);
    const rows = pods.trim().split("\n").slice(1);
    expect(rows).toHaveLength(2);
    for (const row of rows)
      expect(row).toMatch(/^hello-[b-z2-9]+-[b-z2-9]{5}\s+1\/1\s+Running\s+0\s+\d+s\s+10\.244\.\d+\.\d+\s+sandbox-node\s/);
    const rs = (await getJson(["get", "replicasets", "-n", "w", "-l", "app=hello"])).items as Obj[];
    expect(rs).toHaveLength(1);
    expect(rs[0]!.status).toMatchObject({ replicas: 2, readyReplicas: 2, availableReplicas: 2 });
    expect(rs[0]!.metadata.ownerReferences[0]).toMatchObject({ kind: "Deployment", name: "hello", controller: true });
    expect(await ok(["get", "deployment", "hello", "-n", "w"])).toMatch(
      /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\nhello\s+2\/2\s+2\s+2\s+\d+s\n$/,
    );
    const dep = await getJson(["get", "deployment", "hello", "-n", "w"]);
    expect(dep.status.conditions.find((c: { type: string }) => c.type === "Available")).toMatchObject({
      status: "True",
      reason: "MinimumReplicasAvailable",
    });
    expect(dep.status.observedGeneration).toBe(dep.metadata.generation);
    await ok(["delete", "deployment", "hello", "-n", "w"]);
    await ok(["apply", "-f", "-"], webDeployment);
    expect(await ok(["rollout", "status", "deployment/web", "-n", "w", "--timeout=10s"])).toBe(
      'deployment "web" successfully rolled out\n',
    );
  });

  test("a Service with a selector gets Endpoints from its Pods: named targetPort resolved, labelled with the Service's labels", async () => {
    await ok(["apply", "-f", "-"], selectorService);
    const pods = await podsOf("app=web");
    const ep = await getJson(["get", "endpoints", "web", "-n", "w"]);
    expect(ep.metadata.labels).toEqual({ app: "web", "mirror.linkerd.io/exported": "true" });
    expect(ep.subsets).toHaveLength(1);
    expect(ips(ep.subsets[0].addresses)).toEqual(pods.map((p) => p.status.podIP).sort());
    expect(ep.subsets[0].notReadyAddresses).toBeUndefined();
    expect(ep.subsets[0].ports.sort((a: { port: number }, b: { port: number }) => a.port - b.port)).toEqual([
      { name: "http", port: 8080, protocol: "TCP" },
      { name: "admin", port: 9990, protocol: "TCP" },
    ]);
    expect(ep.subsets[0].addresses[0]).toMatchObject({ nodeName: "sandbox-node", targetRef: { kind: "Pod", namespace: "w" } });
    expect(await ok(["describe", "service", "web", "-n", "w"])).toMatch(/Endpoints:\s+10\.244\.\d+\.\d+:8080,10\.244\.\d+\.\d+:8080/);
  });

  test("…and EndpointSlices labelled service-name and managed-by the EndpointSlice controller, with ready conditions", async () => {
    const slices = (await getJson(["get", "endpointslices", "-n", "w", "-l", "kubernetes.io/service-name=web"])).items as Obj[];
    expect(slices).toHaveLength(1);
    const slice = slices[0]!;
    expect(slice.metadata.labels).toEqual({
      app: "web",
      "mirror.linkerd.io/exported": "true",
      "kubernetes.io/service-name": "web",
      "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
    });
    expect(slice.metadata.name).toStartWith("web-");
    expect(slice.ports).toEqual([
      { name: "http", port: 8080, protocol: "TCP" },
      { name: "admin", port: 9990, protocol: "TCP" },
    ]);
    expect(slice.endpoints.map((e: { conditions: object }) => e.conditions)).toEqual([
      { ready: true, serving: true, terminating: false },
      { ready: true, serving: true, terminating: false },
    ]);
    expect((await getJson(["get", "service", "web", "-n", "w"])).metadata.uid).toBe(slice.metadata.ownerReferences[0].uid);
  });

  test("kubectl patch --subresource=status makes a Pod not ready: it moves to notReadyAddresses, its slice endpoint is not ready, the Deployment has 1/2", async () => {
    const [pod] = await podsOf("app=web");
    const ready = pod!.status.conditions.findIndex((c: { type: string }) => c.type === "Ready");
    const patch = JSON.stringify([{ op: "replace", path: `/status/conditions/${ready}/status`, value: "False" }]);
    expect(await ok(["patch", "pod", pod!.metadata.name, "-n", "w", "--subresource=status", "--type", "json", "-p", patch])).toBe(
      `pod/${pod!.metadata.name} patched\n`,
    );
    const ep = await getJson(["get", "endpoints", "web", "-n", "w"]);
    const notReady = ep.subsets.flatMap((s: { notReadyAddresses?: Array<{ ip: string }> }) => s.notReadyAddresses ?? []);
    expect(ips(notReady)).toEqual([pod!.status.podIP]);
    const [slice] = (await getJson(["get", "endpointslices", "-n", "w", "-l", "kubernetes.io/service-name=web"])).items as Obj[];
    const endpoint = slice!.endpoints.find((e: { addresses: string[] }) => e.addresses[0] === pod!.status.podIP);
    expect(endpoint.conditions).toEqual({ ready: false, serving: false, terminating: false });
    expect(await ok(["get", "deployment", "web", "-n", "w"])).toMatch(/\nweb\s+1\/2\s+2\s+1\s+/);
    // The kubelet does not put it back on its own; its test control does.
    expect((await getJson(["get", "pod", pod!.metadata.name, "-n", "w"])).status.conditions[ready].status).toBe("False");
    sb.api.kubelet.setPodReady("w", pod!.metadata.name, true);
    expect(ips((await getJson(["get", "endpoints", "web", "-n", "w"])).subsets[0].addresses)).toHaveLength(2);
    expect(await ok(["get", "pods", pod!.metadata.name, "-n", "w"])).toMatch(/\s1\/1\s+Running\s/);
  });

  test("the kubelet control makes a Pod not ready, as a failing readiness probe would", async () => {
    const [pod] = await podsOf("app=web");
    sb.api.kubelet.setPodReady("w", pod!.metadata.name, false);
    expect(await ok(["get", "pods", pod!.metadata.name, "-n", "w"])).toMatch(/\s0\/1\s+Running\s/);
    const ep = await getJson(["get", "endpoints", "web", "-n", "w"]);
    expect(ips(ep.subsets.flatMap((s: { notReadyAddresses?: Array<{ ip: string }> }) => s.notReadyAddresses ?? []))).toEqual([
      pod!.status.podIP,
    ]);
    sb.api.kubelet.setPodReady("w", pod!.metadata.name, true);
  });

  test("a client's write to a selector Service's Endpoints is overwritten; deleting them brings them back", async () => {
    const before = await getJson(["get", "endpoints", "web", "-n", "w"]);
    const forged = {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name: "web", namespace: "w", labels: { forged: "yes" } },
      subsets: [{ addresses: [{ ip: "10.9.9.9" }], ports: [{ port: 1 }] }],
    };
    await ok(["replace", "-f", "-"], JSON.stringify(forged));
    const after = await getJson(["get", "endpoints", "web", "-n", "w"]);
    expect(after.subsets).toEqual(before.subsets);
    expect(after.metadata.labels).toEqual(before.metadata.labels);
    await ok(["delete", "endpoints", "web", "-n", "w"]);
    expect((await getJson(["get", "endpoints", "web", "-n", "w"])).subsets).toEqual(before.subsets);
  });

  test("a selector-less Service keeps its hand-written Endpoints untouched, labels and all", async () => {
    const yaml = `
apiVersion: v1
kind: Service
metadata: { name: db, namespace: w, labels: { app: db } }
spec: { ports: [{ name: pg, port: 5432 }] }
---
apiVersion: v1
kind: Endpoints
metadata: { name: db, namespace: w }
subsets: [{ addresses: [{ ip: 192.0.2.10 }], ports: [{ name: pg, port: 5432 }] }]
`;
    await ok(["apply", "-f", "-"], yaml);
    const ep = await getJson(["get", "endpoints", "db", "-n", "w"]);
    expect(ep.metadata.labels).toBeUndefined();
    expect(ep.subsets).toEqual([{ addresses: [{ ip: "192.0.2.10" }], ports: [{ name: "pg", port: 5432 }] }]);
  });

  test("a deleted Pod is replaced and the Endpoints follow; a new template rolls out a new ReplicaSet; replicas scale", async () => {
    const [gone] = await podsOf("app=web");
    await ok(["delete", "pod", gone!.metadata.name, "-n", "w"]);
    const now = await podsOf("app=web");
    expect(now).toHaveLength(2);
    expect(now.map((p) => p.metadata.name)).not.toContain(gone!.metadata.name);
    expect(ips((await getJson(["get", "endpoints", "web", "-n", "w"])).subsets[0].addresses)).toEqual(
      now.map((p) => p.status.podIP).sort(),
    );

    await ok(["set", "image", "deployment/web", "-n", "w", "nginx=nginx:2"]);
    expect(await ok(["rollout", "status", "deployment/web", "-n", "w", "--timeout=10s"])).toBe(
      'deployment "web" successfully rolled out\n',
    );
    const sets = ((await getJson(["get", "replicasets", "-n", "w"])).items as Obj[]).map((r) => [
      r.spec.template.spec.containers[0].image,
      r.spec.replicas,
      r.metadata.annotations["deployment.kubernetes.io/revision"],
    ]);
    expect(sets.sort()).toEqual([
      ["nginx", 0, "1"],
      ["nginx:2", 2, "2"],
    ]);
    expect((await podsOf("app=web")).map((p) => p.spec.containers[0].image)).toEqual(["nginx:2", "nginx:2"]);

    await ok(["patch", "deployment", "web", "-n", "w", "-p", '{"spec":{"replicas":3}}']);
    expect(await podsOf("app=web")).toHaveLength(3);
    expect(ips((await getJson(["get", "endpoints", "web", "-n", "w"])).subsets[0].addresses)).toHaveLength(3);
  });

  test("a headless Service's Endpoints carry the Pods' hostnames and the headless label", async () => {
    const yaml = `
apiVersion: v1
kind: Service
metadata: { name: db-set, namespace: w, labels: { app: db-set } }
spec: { clusterIP: None, selector: { app: db-set }, ports: [{ name: pg, port: 5432 }] }
---
apiVersion: v1
kind: Pod
metadata: { name: db-set-0, namespace: w, labels: { app: db-set } }
spec: { hostname: db-set-0, subdomain: db-set, containers: [{ name: pg, image: postgres }] }
`;
    await ok(["apply", "-f", "-"], yaml);
    const ep = await getJson(["get", "endpoints", "db-set", "-n", "w"]);
    expect(ep.metadata.labels).toEqual({ app: "db-set", "service.kubernetes.io/headless": "" });
    expect(ep.subsets[0].addresses[0]).toMatchObject({ hostname: "db-set-0" });
    const [slice] = (await getJson(["get", "endpointslices", "-n", "w", "-l", "kubernetes.io/service-name=db-set"])).items as Obj[];
    expect(slice!.metadata.labels["service.kubernetes.io/headless"]).toBe("");
    expect(slice!.endpoints[0].hostname).toBe("db-set-0");
  });

  test("a selector Service with no Pods has empty Endpoints and one placeholder slice", async () => {
    await ok(["create", "service", "clusterip", "lonely", "-n", "w", "--tcp=80:8080"]);
    expect((await getJson(["get", "endpoints", "lonely", "-n", "w"])).subsets).toBeUndefined();
    const slices = (await getJson(["get", "endpointslices", "-n", "w", "-l", "kubernetes.io/service-name=lonely"])).items as Obj[];
    expect(slices.map((s) => s.endpoints)).toEqual([[]]);
  });

  test("a LoadBalancer gets 192.0.2.1 (TEST-NET-1: data, as a real server takes it in Endpoints) once; a hostname a client patches into its status stays through later writes", async () => {
    await ok(["create", "service", "loadbalancer", "gw", "-n", "w", "--tcp=4143:4143"]);
    expect((await getJson(["get", "service", "gw", "-n", "w"])).status.loadBalancer.ingress).toEqual([{ ip: "192.0.2.1", ipMode: "VIP" }]);
    const patch = '{"status":{"loadBalancer":{"ingress":[{"hostname":"gw.elb.example.com"}]}}}';
    await ok(["patch", "service", "gw", "-n", "w", "--subresource=status", "--type", "merge", "-p", patch]);
    await ok(["label", "service", "gw", "-n", "w", "tier=edge"]);
    expect((await getJson(["get", "service", "gw", "-n", "w"])).status.loadBalancer.ingress).toEqual([{ hostname: "gw.elb.example.com" }]);
    expect(await ok(["get", "service", "gw", "-n", "w"])).toContain("gw.elb.example.com");
  });

  test("deleting the Deployment deletes its ReplicaSets and Pods; deleting the Service its Endpoints and slices", async () => {
    expect(await ok(["delete", "deployment", "web", "-n", "w"])).toBe('deployment.apps "web" deleted\n');
    expect((await getJson(["get", "replicasets", "-n", "w"])).items).toEqual([]);
    expect(await podsOf("app=web")).toEqual([]);
    expect((await getJson(["get", "endpoints", "web", "-n", "w"])).subsets).toBeUndefined();
    await ok(["delete", "service", "web", "-n", "w"]);
    expect((await kubectl(["get", "endpoints", "web", "-n", "w"])).stderr).toContain("NotFound");
    expect((await getJson(["get", "endpointslices", "-n", "w", "-l", "kubernetes.io/service-name=web"])).items).toEqual([]);
  });
});
