// `mc sandbox` as a process: kubeconfig first, then the ready line; TLS with a token and with a
// client certificate, driven by kubectl and client-node.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as k8s from "@kubernetes/client-node";
import YAML from "yaml";
import { hasKubectl, needsKubectl, kubectlFor } from "../helpers/kubectl.ts";
import { anchorSet } from "../../src/checker/anchors.ts";
import { mc, mcUntil } from "../helpers/mc.ts";

const dir = mkdtempSync(join(tmpdir(), "mc-sandbox-cmd-"));
const procs: Bun.Subprocess[] = [];
afterAll(() => procs.forEach((p) => p.kill()));

async function start(name: string, extra: string[] = []) {
  const path = join(dir, `${name}.kubeconfig`);
  const run = await mcUntil(
    ["sandbox", "--name", name, "--port", "0", "--kubeconfig", path, ...extra],
    new RegExp(`sandbox ${name} ready at (\\S+)`),
  );
  procs.push(run.proc);
  return { ...run, path, url: run.match[1]!, kubeconfig: readFileSync(path, "utf8") };
}

describe("mc sandbox", () => {
  test("writes its kubeconfig before it reports ready, then serves kubectl", async () => {
    const sb = await start("east");
    const cfg = YAML.parse(sb.kubeconfig);
    expect(cfg["current-context"]).toBe("east");
    expect(cfg.clusters[0]).toMatchObject({ name: "east", cluster: { server: sb.url } });
    expect(cfg.users[0].name).toBe("east");
    expect(sb.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    if (hasKubectl) {
      const r = await kubectlFor(sb.kubeconfig)(["get", "namespace", "default", "-o", "name"]);
      expect(r).toMatchObject({ code: 0, stdout: "namespace/default\n", stderr: "" });
    }
  });

  test("stops cleanly on SIGTERM", async () => {
    const sb = await start("stopper");
    sb.proc.kill("SIGTERM");
    expect(await sb.proc.exited).toBe(0);
  });

  describe("with --tls", () => {
    test("client-node connects with CA + token and with the client-certificate context", async () => {
      const sb = await start("secure", ["--tls"]);
      expect(sb.url).toStartWith("https://");
      for (const context of ["secure", "secure-cert"]) {
        const kc = new k8s.KubeConfig();
        kc.loadFromString(sb.kubeconfig);
        kc.setCurrentContext(context);
        const ns = await kc.makeApiClient(k8s.CoreV1Api).listNamespace();
        expect(ns.items.map((n) => n.metadata?.name)).toContain("kube-system");
      }
    });

    test.skipIf(!hasKubectl)(
      needsKubectl("kubectl connects with CA + token and with the client certificate, and a wrong token is refused"),
      async () => {
        const sb = await start("secure2", ["--tls"]);
        const kubectl = kubectlFor(sb.kubeconfig);
        expect(await kubectl(["get", "ns", "default", "-o", "name"])).toMatchObject({ code: 0, stdout: "namespace/default\n", stderr: "" });
        expect(
          await kubectl(["--context", "secure2-cert", "create", "-f", "-"], {
            stdin: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n",
          }),
        ).toMatchObject({ code: 0, stderr: "" });
        const wrong = kubectlFor(sb.kubeconfig.replace(/token: .*/, "token: nope"));
        const r = await wrong(["get", "ns"]);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain("error: You must be logged in to the server");
      },
    );
  });

  describe("with --linkerd", () => {
    const linkerdConfig = async (kubeconfig: string) => {
      const r = await kubectlFor(kubeconfig)(["-n", "linkerd", "get", "configmap", "linkerd-config", "-o", "jsonpath={.data.values}"]);
      expect(r).toMatchObject({ code: 0, stderr: "" });
      return YAML.parse(r.stdout) as { identityTrustAnchorsPEM: string; identityTrustDomain: string; clusterDomain: string };
    };

    test.skipIf(!hasKubectl)(
      needsKubectl(
        "two sandboxes started at once with one --trust-anchor file share the anchor written there, with Linkerd's namespace and policy CRDs",
      ),
      async () => {
        const anchor = join(dir, "shared-anchor.pem");
        const [a, b] = await Promise.all([
          start("la", ["--tls", "--linkerd", "--trust-anchor", anchor]),
          start("lb", ["--tls", "--linkerd", "--trust-anchor", anchor]),
        ]);
        const pem = readFileSync(anchor, "utf8");
        expect(anchorSet(pem).size).toBe(1);
        for (const sb of [a, b]) {
          expect(await linkerdConfig(sb.kubeconfig)).toMatchObject({
            identityTrustAnchorsPEM: pem,
            identityTrustDomain: "cluster.local",
            clusterDomain: "cluster.local",
          });
          const crds = await kubectlFor(sb.kubeconfig)([
            "get",
            "crd",
            "servers.policy.linkerd.io",
            "authorizationpolicies.policy.linkerd.io",
            "-o",
            "name",
          ]);
          expect(crds).toMatchObject({
            code: 0,
            stdout:
              "customresourcedefinition.apiextensions.k8s.io/servers.policy.linkerd.io\ncustomresourcedefinition.apiextensions.k8s.io/authorizationpolicies.policy.linkerd.io\n",
          });
        }
        const said = [a, b].map((sb) => sb.stderr().match(/trust anchor (generated and written to|read from) /)?.[1]).sort();
        expect(said).toEqual(["generated and written to", "read from"]);
      },
    );

    test.skipIf(!hasKubectl)(
      needsKubectl("without --trust-anchor each sandbox has an anchor of its own, and says it is not saved"),
      async () => {
        const sb = await start("lc", ["--linkerd"]);
        expect(anchorSet((await linkerdConfig(sb.kubeconfig)).identityTrustAnchorsPEM).size).toBe(1);
        expect(sb.stderr()).toContain("trust anchor generated, not saved: --trust-anchor FILE shares one");
      },
    );

    test("--trust-anchor without --linkerd, or a file that holds no certificate, is one line and exit 1, and no kubeconfig is written", async () => {
      const kubeconfig = join(dir, "never.kubeconfig");
      const alone = await mc(["sandbox", "--trust-anchor", join(dir, "x.pem"), "--kubeconfig", kubeconfig]);
      expect(alone).toMatchObject({
        code: 1,
        stdout: "",
        stderr: "error: --trust-anchor: only means something with --linkerd; add --linkerd or leave --trust-anchor out\n",
      });
      const junk = join(dir, "junk.pem");
      writeFileSync(junk, "hello\n");
      const bad = await mc(["sandbox", "--linkerd", "--trust-anchor", junk, "--kubeconfig", kubeconfig]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toBe(
        `error: --trust-anchor: ${junk} holds no PEM certificate (-----BEGIN CERTIFICATE-----): pass Linkerd's trust anchor file, or a path that does not exist yet to have one generated there\n`,
      );
      expect(existsSync(kubeconfig)).toBe(false);
      expect(existsSync(join(dir, "x.pem"))).toBe(false);
    });
  });
});
