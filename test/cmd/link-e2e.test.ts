// End to end, as a user runs it: the real kubectl, the mc binary as a subprocess, two sandboxes that look like clusters running Linkerd
// (east over TLS, so service-account tokens authenticate).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectKubeconfigText, resources } from "../../src/kube/index.ts";
import { parseManifests } from "../../src/manifests/output.ts";
import { parseLink } from "../../src/model/link.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { hasKubectl, needsKubectl, kubectlFor, type Kubectl } from "../helpers/kubectl.ts";
import { fakeLinkerd } from "../helpers/linkerd.ts";
import { mc } from "../helpers/mc.ts";

//   mc install | kubectl apply -f -                                     (east and west)
//   mc --kubeconfig east link --cluster-name east | kubectl --kubeconfig west apply -f -

let east: Sandbox;
let west: Sandbox;
let eastKubectl: Kubectl;
let westKubectl: Kubectl;
let linkOutput = "";

async function ok(k: Kubectl, args: string[], stdin?: string): Promise<string> {
  const r = await k(args, { stdin });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} → ${r.code}: ${r.stderr}`);
  return r.stdout;
}

const getJson = async (k: Kubectl, args: string[]) => JSON.parse(await ok(k, [...args, "-o", "json"]));

beforeAll(async () => {
  if (!hasKubectl) return;
  [east, west] = await Promise.all([startSandbox({ name: "east", tls: true }), startSandbox({ name: "west" })]);
  fakeLinkerd(east, { trustDomain: "east.example", clusterDomain: "cluster.local" });
  fakeLinkerd(west, { trustDomain: "west.example" });
  eastKubectl = kubectlFor(east.kubeconfig);
  westKubectl = kubectlFor(west.kubeconfig);
  const installs = await Promise.all([
    mc(["--kubeconfig", eastKubectl.kubeconfigPath, "install"]),
    mc(["--kubeconfig", westKubectl.kubeconfigPath, "install"]),
  ]);
  for (const r of installs) if (r.code !== 0) throw new Error(`mc install failed: ${r.stderr}`);
  await Promise.all([
    ok(eastKubectl, ["apply", "-f", "-"], installs[0]!.stdout),
    ok(westKubectl, ["apply", "-f", "-"], installs[1]!.stdout),
  ]);
  const link = await mc(["--kubeconfig", eastKubectl.kubeconfigPath, "link", "--cluster-name", "east"]);
  if (link.code !== 0) throw new Error(`mc link failed: ${link.stderr}`);
  linkOutput = link.stdout;
  await ok(westKubectl, ["apply", "-f", "-"], linkOutput);
});
afterAll(() => Promise.all([east?.stop(), west?.stop()]));

describe.skipIf(!hasKubectl)(needsKubectl("mc install | kubectl apply, then mc link | kubectl apply on the source"), () => {
  test("the Link exists in west and kubectl shows its CLUSTER, ALIVE, LATENCY and AGE columns", async () => {
    const link = await getJson(westKubectl, ["get", "link", "east", "-n", "linkerd-multicluster"]);
    expect(link.spec).toMatchObject({
      targetClusterName: "east",
      gatewayAddress: "192.0.2.1", // the sandbox load balancer's (TEST-NET-1: data, never contacted)
      gatewayPort: "4143",
      gatewayIdentity: "linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.east.example",
      // the CRD's defaults, applied by the API server
      probeSpec: { path: "/ready", port: "4191", period: "3s", timeout: "30s", failureThreshold: "3" },
      selector: { matchLabels: { "mirror.linkerd.io/exported": "true" } },
    });
    // What the controller reads: the server's copy parses, with the server's defaults.
    expect(parseLink(link).probe).toEqual({ path: "/ready", port: 4191, periodMs: 3000, timeoutMs: 30_000, failureThreshold: 3 });
    const table = await ok(westKubectl, ["get", "links", "-n", "linkerd-multicluster"]);
    expect(table.split("\n")[0]!.split(/\s+/)).toEqual(["NAME", "CLUSTER", "ALIVE", "LATENCY", "AGE"]);
    expect(table).toMatch(/^east\s+east\s+/m);
  });

  test("both credentials Secrets exist, the Linkerd-namespace copy labelled for the destination controller", async () => {
    const mirror = await getJson(westKubectl, ["get", "secret", "cluster-credentials-east", "-n", "linkerd-multicluster"]);
    const copy = await getJson(westKubectl, ["get", "secret", "cluster-credentials-east", "-n", "linkerd"]);
    expect(mirror.type).toBe("mirror.linkerd.io/remote-kubeconfig");
    expect(copy.metadata.labels).toEqual({ "multicluster.linkerd.io/cluster-name": "east" });
    expect(copy.metadata.annotations).toMatchObject({
      "multicluster.linkerd.io/trust-domain": "east.example",
      "multicluster.linkerd.io/cluster-domain": "cluster.local",
    });
    expect(copy.data.kubeconfig).toBe(mirror.data.kubeconfig);
  });

  test("the controller objects exist in west", async () => {
    const names = async (kind: string, ns?: string) =>
      (await getJson(westKubectl, ["get", kind, ...(ns ? ["-n", ns] : []), "-l", "mirror.linkerd.io/cluster-name=east"])).items.map(
        (o: { metadata: { name: string } }) => o.metadata.name,
      );
    const [clusterRoles, clusterRoleBindings, roles, roleBindings, accounts, services, deployment] = await Promise.all([
      names("clusterroles"),
      names("clusterrolebindings"),
      names("roles", "linkerd-multicluster"),
      names("rolebindings", "linkerd-multicluster"),
      names("serviceaccounts", "linkerd-multicluster"),
      names("services", "linkerd-multicluster"),
      getJson(westKubectl, ["get", "deployment", "linkerd-service-mirror-east", "-n", "linkerd-multicluster"]),
    ]);
    expect({ clusterRoles, clusterRoleBindings, roles, roleBindings, accounts, services }).toEqual({
      clusterRoles: ["linkerd-service-mirror-access-local-resources-east"],
      clusterRoleBindings: ["linkerd-service-mirror-access-local-resources-east"],
      roles: ["linkerd-service-mirror-read-remote-creds-east"],
      roleBindings: ["linkerd-service-mirror-read-remote-creds-east"],
      accounts: ["linkerd-service-mirror-east"],
      services: ["probe-gateway-east"],
    });
    const container = deployment.spec.template.spec.containers[0];
    expect(container.args).toEqual([
      "serve",
      "--namespace=linkerd-multicluster",
      "--log-level=info",
      "--log-format=plain",
      "--event-requeue-limit=3",
      "--probe-service=probe-gateway-east",
      "east",
    ]);
    expect(container.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true });
  });

  test("the Secret's kubeconfig reaches east and lists services there with the minted token", async () => {
    const secret = await getJson(westKubectl, ["get", "secret", "cluster-credentials-east", "-n", "linkerd-multicluster"]);
    const text = Buffer.from(secret.data.kubeconfig, "base64").toString("utf8");
    expect(text).not.toContain(east.token!);
    const client = await connectKubeconfigText(text, "Secret cluster-credentials-east");
    const services = await client.list<{ metadata: { name: string } }>(resources.service, { namespace: "linkerd-multicluster" });
    expect(services.items.map((s) => s.metadata.name)).toContain("linkerd-gateway");
    // The token is the remote-access account's, minted by east; a wrong one is refused.
    const forged = await connectKubeconfigText(text.replace(/token: \S+/, "token: not-a-token"), "forged");
    await expect(forged.list(resources.service, { namespace: "default" })).rejects.toThrow(/401/);
  });

  test("mc link --enable-endpoint-slices renders the flag into the controller's args, a flag mc serve knows", async () => {
    const r = await mc(["--kubeconfig", eastKubectl.kubeconfigPath, "link", "--cluster-name", "east", "--enable-endpoint-slices"]);
    expect(r.code).toBe(0);
    const deployment = parseManifests(r.stdout).find((m) => m.kind === "Deployment") as unknown as {
      spec: { template: { spec: { containers: Array<{ args: string[] }> } } };
    };
    expect(deployment.spec.template.spec.containers[0]!.args).toEqual([
      "serve",
      "--namespace=linkerd-multicluster",
      "--log-level=info",
      "--log-format=plain",
      "--event-requeue-limit=3",
      "--enable-endpoint-slices",
      "--probe-service=probe-gateway-east",
      "east",
    ]);
    // Known to mc serve: without a Link name it fails on that, not on the flag.
    expect(await mc(["serve", "--enable-endpoint-slices"])).toEqual({
      code: 1,
      stdout: "",
      stderr: "error: LINK_NAME: is required: the Link to serve, e.g. mc serve --namespace linkerd-multicluster east\n",
    });
  });

  test("mc link run again prints the same bundle, and re-applying it changes nothing", async () => {
    const again = await mc(["--kubeconfig", eastKubectl.kubeconfigPath, "link", "--cluster-name", "east"]);
    expect(again.stdout).toBe(linkOutput);
    const applied = await ok(westKubectl, ["apply", "-f", "-"], again.stdout);
    expect(applied.split("\n").filter((l) => l && !l.endsWith(" unchanged"))).toEqual([]);
  });
});

describe.skipIf(!hasKubectl)(needsKubectl("mc as a subprocess"), () => {
  test("a bad flag or a missing object exits 1 with one line on stderr and nothing on stdout", async () => {
    const [badFlag, missing] = await Promise.all([
      mc(["--kubeconfig", eastKubectl.kubeconfigPath, "link", "--cluster-name", "East"]),
      mc(["--kubeconfig", eastKubectl.kubeconfigPath, "link", "--cluster-name", "east", "-L", "nowhere"]),
    ]);
    expect(badFlag).toEqual({
      code: 1,
      stdout: "",
      stderr: `error: --cluster-name: must be a DNS-1123 label (lowercase letters, digits, '-'), got "East"\n`,
    });
    expect(missing).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "error: ConfigMap nowhere/linkerd-config on east not found: install Linkerd's control plane first, or pass --linkerd-namespace if it runs elsewhere\n",
    });
  });
});
