// What `bun run fidelity` found the sandbox doing differently from kube-apiserver v1.37.2, fixed,
// each through the real kubectl as kube answers it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { hasKubectl, kubectlFor, needsKubectl, type Kubectl } from "../helpers/kubectl.ts";

let sb: Sandbox;
let kubectl: Kubectl;
beforeAll(async () => {
  sb = await startSandbox({ name: "fixes" });
  kubectl = kubectlFor(sb.kubeconfig);
  await kubectl(["create", "namespace", "f"]);
});
afterAll(() => sb?.stop());

const run = (args: string[], stdin?: string) => kubectl([...args, "-n", "f"], stdin === undefined ? {} : { stdin });
const svc = (name: string, extra: string) =>
  `apiVersion: v1\nkind: Service\nmetadata: { name: ${name} }\nspec:\n  ports: [{ name: http, port: 80 }]\n${extra}`;

describe.skipIf(!hasKubectl)(needsKubectl("sandbox answers kube-apiserver v1.37.2 gives"), () => {
  test("empty labels and annotations are not kept (Go drops an empty map), so a second apply of them configures", async () => {
    const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: e, labels: {}, annotations: {} }\ndata: { a: '1' }\n";
    expect((await run(["create", "-f", "-"], cm)).code).toBe(0);
    expect((await run(["get", "cm", "e", "-o", "jsonpath={.metadata.labels}{.metadata.annotations}"])).stdout).toBe("");
  });

  test("a Service port out of range is 422, in kube's words", async () => {
    const r = await run(["apply", "-f", "-"], svc("bad", "").replace("port: 80", "port: 70000"));
    expect(r).toMatchObject({
      code: 1,
      stderr: 'The Service "bad" is invalid: spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive\n',
    });
  });

  test("a LoadBalancer gets allocateLoadBalancerNodePorts: true; a load-balancer ingress on a ClusterIP Service is refused", async () => {
    expect((await run(["apply", "-f", "-"], svc("lb", "  type: LoadBalancer\n"))).code).toBe(0);
    expect((await run(["get", "svc", "lb", "-o", "jsonpath={.spec.allocateLoadBalancerNodePorts}"])).stdout).toBe("true");
    expect((await run(["apply", "-f", "-"], svc("plain", ""))).code).toBe(0);
    const r = await run([
      "patch",
      "svc",
      "plain",
      "--subresource=status",
      "--type",
      "merge",
      "-p",
      '{"status":{"loadBalancer":{"ingress":[{"hostname":"lb.example.com"}]}}}',
    ]);
    expect(r).toMatchObject({
      code: 1,
      stderr:
        "The Service \"plain\" is invalid: status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'\n",
    });
  });

  test("a Deployment's pod template gets the PodSpec and container defaults", async () => {
    const dep =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: d }\nspec:\n  replicas: 0\n  selector: { matchLabels: { app: d } }\n  template:\n    metadata: { labels: { app: d } }\n    spec:\n      containers: [{ name: a, image: 'nginx:1' }, { name: b, image: busybox }]\n";
    expect((await run(["apply", "-f", "-"], dep)).code).toBe(0);
    const t = JSON.parse((await run(["get", "deployment", "d", "-o", "jsonpath={.spec.template.spec}"])).stdout);
    expect(t).toMatchObject({
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      securityContext: {},
      schedulerName: "default-scheduler",
    });
    expect(
      t.containers.map((c: Record<string, string>) => [c.imagePullPolicy, c.terminationMessagePath, c.terminationMessagePolicy]),
    ).toEqual([
      ["IfNotPresent", "/dev/termination-log", "File"],
      ["Always", "/dev/termination-log", "File"],
    ]);
  });

  test("a Secret without a type is Opaque, and a type field selector finds it", async () => {
    expect((await run(["create", "secret", "generic", "s", "--from-literal=a=b"])).code).toBe(0);
    expect((await run(["get", "secrets", "--field-selector", "type=Opaque", "-o", "name"])).stdout).toBe("secret/s\n");
  });

  test("resourceVersionMatch without a resourceVersion is 422", async () => {
    const r = await kubectl(["get", "--raw", "/api/v1/namespaces/f/configmaps?resourceVersionMatch=NotOlderThan"]);
    expect(r).toMatchObject({
      code: 1,
      stderr:
        'The ListOptions "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided\n',
    });
  });

  test("a bad name cites kube's regex; a body of another kind cannot be converted", async () => {
    const bad = await run(["create", "configmap", "Bad_Name"]);
    expect(bad.stderr).toBe(
      `error: failed to create configmap: ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n`,
    );
    const kind = await kubectl(["create", "--raw", "/api/v1/namespaces/f/configmaps", "-f", "-"], {
      stdin: '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}',
    });
    expect(kind.stderr).toBe(
      'Error from server (BadRequest): Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion\n',
    );
  });

  test("an Endpoints address that is no IP is named twice; an EndpointSlice address of the other family once, on the list", async () => {
    const ep =
      "apiVersion: v1\nkind: Endpoints\nmetadata: { name: noip }\nsubsets: [{ addresses: [{ ip: web.example.com }], ports: [{ port: 80 }] }]\n";
    expect((await run(["apply", "-f", "-"], ep)).stderr).toBe(
      'The Endpoints "noip" is invalid: \n* subsets[0].addresses[0].ip: Invalid value: "web.example.com": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)\n* subsets[0].addresses[0].ip: Invalid value: "web.example.com": must be a valid IP address\n',
    );
    const slice =
      "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: { name: fam }\naddressType: IPv4\nendpoints: [{ addresses: ['2001:db8::1'] }]\n";
    expect((await run(["apply", "-f", "-"], slice)).stderr).toBe(
      'The EndpointSlice "fam" is invalid: endpoints[0].addresses: Invalid value: "2001:db8::1": must be an IPv4 address\n',
    );
  });

  test("a Lease's duration must be above 0", async () => {
    const lease =
      "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: { name: lock }\nspec: { holderIdentity: a, leaseDurationSeconds: -1 }\n";
    expect(await run(["apply", "-f", "-"], lease)).toMatchObject({
      code: 1,
      stderr: 'The Lease "lock" is invalid: spec.leaseDurationSeconds: Invalid value: -1: must be greater than 0\n',
    });
  });
});
