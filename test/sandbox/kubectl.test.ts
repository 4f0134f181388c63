// The sandbox's fidelity, proven by the real kubectl with its defaults (no --validate=false).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import YAML from "yaml";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { hasKubectl, needsKubectl, kubectlFor, strictCalls, type Kubectl, type KubectlResult } from "../helpers/kubectl.ts";

let sb: Sandbox;
let kubectl: Kubectl;

beforeAll(async () => {
  sb = await startSandbox({ name: "fidelity" });
  kubectl = kubectlFor(sb.kubeconfig);
  // The scenario's namespace comes from the API so that one failing kubectl verb does not fail the rest.
  sb.api.create(
    sb.api.registry.find("", "v1", "namespaces")!,
    undefined,
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "demo" } },
    { fieldManager: "test" },
  );
});
afterAll(() => sb?.stop());

/** Calls that must succeed with nothing on stderr (no warnings about the server). */
const { ok, getJson } = strictCalls(() => kubectl);

const service = (image = "v1", ports = [80, 443]) => `
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: demo
  labels: { app: web, version: "${image}" }
spec:
  selector: { app: web }
  ports:
${ports.map((p) => `  - name: p${p}\n    port: ${p}\n    targetPort: ${p}`).join("\n")}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: demo
spec:
  replicas: 1
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers:
      - name: web
        image: nginx:${image}
        ports: [{ containerPort: 80 }]
`;

const crd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: { kind: Widget, plural: widgets, singular: widget, listKind: WidgetList, shortNames: [wd] }
  versions:
  - name: v1
    served: true
    storage: true
    subresources: { status: {} }
    additionalPrinterColumns:
    - { name: Size, type: string, jsonPath: .spec.size }
    - { name: Age, type: date, jsonPath: .metadata.creationTimestamp }
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: { type: string, default: small }
              count: { type: integer }
          status:
            type: object
            properties:
              ready: { type: boolean }
`;

describe.skipIf(!hasKubectl)(needsKubectl("kubectl against the sandbox"), () => {
  test("version shows the server's version", async () => {
    const out = JSON.parse(await ok(["version", "-o", "json"]));
    expect(out.serverVersion.major).toBe("1");
    expect(out.serverVersion.gitVersion).toStartWith("v1.32");
  });

  test("api-resources lists the built-in types with short names and groups", async () => {
    const out = await ok(["api-resources"]);
    for (const line of [
      /^services\s+svc\s+v1\s+true\s+Service$/m,
      /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m,
      /^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m,
    ]) {
      expect(out).toMatch(line);
    }
  });

  test("create namespace, then get it by name", async () => {
    expect(await ok(["create", "namespace", "made-by-kubectl"])).toBe("namespace/made-by-kubectl created\n");
    const out = await ok(["get", "namespace", "made-by-kubectl"]);
    expect(out).toMatch(/^NAME\s+STATUS\s+AGE\nmade-by-kubectl\s+Active\s+\d+s\n$/);
  });

  test("kubectl create makes configmaps, secrets, deployments and services (protobuf bodies)", async () => {
    expect(await ok(["create", "configmap", "made", "-n", "demo", "--from-literal=a=b"])).toBe("configmap/made created\n");
    expect(await ok(["create", "secret", "generic", "made", "-n", "demo", "--from-literal=k=v"])).toBe("secret/made created\n");
    expect(await ok(["create", "deployment", "made", "-n", "demo", "--image=nginx", "--replicas=2", "--port=80"])).toBe(
      "deployment.apps/made created\n",
    );
    expect(await ok(["create", "service", "clusterip", "made", "-n", "demo", "--tcp=80:8080"])).toBe("service/made created\n");
    const secret = await getJson(["get", "secret", "made", "-n", "demo"]);
    expect(Buffer.from(secret.data.k, "base64").toString()).toBe("v");
    const svc = await getJson(["get", "service", "made", "-n", "demo"]);
    expect(svc.spec.ports[0]).toMatchObject({ port: 80, targetPort: 8080, protocol: "TCP" });
    expect((await getJson(["get", "deployment", "made", "-n", "demo"])).spec.replicas).toBe(2);
    for (const kind of ["configmap", "secret", "deployment", "service"]) await ok(["delete", kind, "made", "-n", "demo"]);
  });

  test("auth can-i answers yes", async () => {
    expect(await ok(["auth", "can-i", "list", "services"])).toBe("yes\n");
  });

  test("apply -f creates, then a changed apply updates with its last-applied annotation", async () => {
    expect(await ok(["apply", "-f", "-"], service())).toBe("service/web created\ndeployment.apps/web created\n");
    expect(await ok(["apply", "-f", "-"], service())).toBe("service/web unchanged\ndeployment.apps/web unchanged\n");
    expect(await ok(["apply", "-f", "-"], service("v2", [80]))).toBe("service/web configured\ndeployment.apps/web configured\n");
    const svc = await getJson(["get", "service", "web", "-n", "demo"]);
    expect(svc.spec.ports.map((p: { port: number }) => p.port)).toEqual([80]);
    expect(svc.metadata.labels.version).toBe("v2");
    expect(svc.spec.clusterIP).toMatch(/^10\./);
    const last = JSON.parse(svc.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]);
    expect(last.spec.ports).toHaveLength(1);
    const dep = await getJson(["get", "deployment", "web", "-n", "demo"]);
    expect(dep.spec.template.spec.containers[0].image).toBe("nginx:v2");
    expect(dep.metadata.generation).toBe(2);
  });

  test("apply --server-side creates and updates with field manager kubectl", async () => {
    const cm = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: settings, namespace: demo }\ndata: { mode: "${v}" }\n`;
    expect(await ok(["apply", "--server-side", "-f", "-"], cm("a"))).toBe("configmap/settings serverside-applied\n");
    expect(await ok(["apply", "--server-side", "-f", "-"], cm("b"))).toBe("configmap/settings serverside-applied\n");
    const got = await getJson(["get", "configmap", "settings", "-n", "demo", "--show-managed-fields"]);
    expect(got.data).toEqual({ mode: "b" });
    expect(got.metadata.managedFields.map((m: { manager: string; operation: string }) => `${m.manager}/${m.operation}`)).toContain(
      "kubectl/Apply",
    );
  });

  test("get -o yaml and -l select and print objects", async () => {
    const yaml = YAML.parse(await ok(["get", "service", "web", "-n", "demo", "-o", "yaml"]));
    expect(yaml.kind).toBe("Service");
    const byLabel = await getJson(["get", "services", "-n", "demo", "-l", "app=web"]);
    expect(byLabel.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["web"]);
    const none = await getJson(["get", "services", "-n", "demo", "-l", "app notin (web)"]);
    expect(none.items).toEqual([]);
  });

  test("get prints the usual service columns", async () => {
    const out = await ok(["get", "services", "-n", "demo"]);
    expect(out).toMatch(
      /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\nweb\s+ClusterIP\s+10\.\S+\s+<none>\s+80\/TCP\s+\d+s\n$/,
    );
  });

  test("label and annotate change metadata", async () => {
    expect(await ok(["label", "service", "web", "-n", "demo", "tier=front"])).toBe("service/web labeled\n");
    expect(await ok(["annotate", "service", "web", "-n", "demo", "note=hello"])).toBe("service/web annotated\n");
    expect(await ok(["label", "service", "web", "-n", "demo", "tier-"])).toBe("service/web unlabeled\n");
    const svc = await getJson(["get", "service", "web", "-n", "demo"]);
    expect(svc.metadata.labels.tier).toBeUndefined();
    expect(svc.metadata.annotations.note).toBe("hello");
  });

  test("patch with merge, json and strategic types", async () => {
    expect(await ok(["patch", "service", "web", "-n", "demo", "--type", "merge", "-p", '{"metadata":{"labels":{"m":"1"}}}'])).toBe(
      "service/web patched\n",
    );
    expect(
      await ok(["patch", "service", "web", "-n", "demo", "--type", "json", "-p", '[{"op":"add","path":"/metadata/labels/j","value":"2"}]']),
    ).toBe("service/web patched\n");
    expect(
      await ok([
        "patch",
        "deployment",
        "web",
        "-n",
        "demo",
        "--type",
        "strategic",
        "-p",
        '{"spec":{"template":{"spec":{"containers":[{"name":"side","image":"busybox"}]}}}}',
      ]),
    ).toBe("deployment.apps/web patched\n");
    const svc = await getJson(["get", "service", "web", "-n", "demo"]);
    expect(svc.metadata.labels).toMatchObject({ m: "1", j: "2" });
    const dep = await getJson(["get", "deployment", "web", "-n", "demo"]);
    expect(dep.spec.template.spec.containers.map((c: { name: string }) => c.name).sort()).toEqual(["side", "web"]);
  });

  test("patch --subresource=status changes only the status (and the Deployment controller puts its status back)", async () => {
    const out = await ok([
      "patch",
      "deployment",
      "web",
      "-n",
      "demo",
      "--subresource=status",
      "--type",
      "merge",
      "-p",
      '{"status":{"readyReplicas":0,"replicas":0,"availableReplicas":0},"spec":{"replicas":5}}',
    ]);
    expect(out).toBe("deployment.apps/web patched\n");
    const dep = await getJson(["get", "deployment", "web", "-n", "demo"]);
    expect(dep.status.readyReplicas).toBe(1);
    expect(dep.spec.replicas).toBe(1);
  });

  test("get --watch shows events another process writes", async () => {
    const watch = kubectl.spawn(["get", "configmaps", "-n", "demo", "--watch", "-o", "name"]);
    const reader = watch.stdout.getReader();
    let seen = "";
    const waitFor = async (text: string) => {
      while (!seen.includes(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`watch ended before "${text}": ${seen}`);
        seen += new TextDecoder().decode(value);
      }
    };
    await waitFor("configmap/settings");
    await ok(["apply", "-f", "-"], "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: watched, namespace: demo }\ndata: { a: b }\n");
    await waitFor("configmap/watched");
    watch.kill();
    await watch.exited;
  });

  test("delete by name and delete -l", async () => {
    await ok(["apply", "-f", "-"], "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: one, namespace: demo }\n");
    await ok(["label", "configmap", "one", "watched", "-n", "demo", "sweep=yes"]);
    expect(await ok(["delete", "configmap", "settings", "-n", "demo"])).toBe('configmap "settings" deleted\n');
    expect(await ok(["delete", "configmaps", "-n", "demo", "-l", "sweep=yes"])).toBe(
      'configmap "one" deleted\nconfigmap "watched" deleted\n',
    );
    const left = await getJson(["get", "configmaps", "-n", "demo"]);
    expect(left.items).toEqual([]);
  });

  test("a CRD, then a custom resource of it with defaults and printer columns", async () => {
    expect(await ok(["apply", "-f", "-"], crd)).toBe("customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\n");
    const cr = "apiVersion: example.com/v1\nkind: Widget\nmetadata: { name: w1, namespace: demo }\nspec: { count: 3 }\n";
    expect(await ok(["apply", "-f", "-"], cr)).toBe("widget.example.com/w1 created\n");
    const got = await getJson(["get", "widget", "w1", "-n", "demo"]);
    expect(got.spec).toEqual({ count: 3, size: "small" });
    expect(await ok(["get", "wd", "-n", "demo"])).toMatch(/^NAME\s+SIZE\s+AGE\nw1\s+small\s+\d+s\n$/);
    await ok(["patch", "widget", "w1", "-n", "demo", "--subresource=status", "--type", "merge", "-p", '{"status":{"ready":true}}']);
    expect((await getJson(["get", "widget", "w1", "-n", "demo"])).status).toEqual({ ready: true });
  });

  test("an unknown field is rejected by the server's strict validation", async () => {
    const bad = "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: bad, namespace: demo }\ndata: { a: b }\nbogus: 1\n";
    const r: KubectlResult = await kubectl(["apply", "-f", "-"], { stdin: bad });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('unknown field "bogus"');
  });

  test("get of a missing object prints kubectl's NotFound error", async () => {
    const r = await kubectl(["get", "service", "nope", "-n", "demo"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('Error from server (NotFound): services "nope" not found\n');
  });

  test("deleting a namespace removes what is in it", async () => {
    expect(await ok(["delete", "namespace", "demo"])).toBe('namespace "demo" deleted\n');
    const r = await kubectl(["get", "deployment", "web", "-n", "demo"]);
    expect(r.stderr).toContain("NotFound");
  });
});
