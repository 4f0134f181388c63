// `mc sandbox` as a process: kubeconfig first, then the ready line; TLS with a token and with a
// client certificate, driven by kubectl and client-node.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as k8s from "@kubernetes/client-node";
import YAML from "yaml";
import { hasKubectl, needsKubectl, kubectlFor } from "../helpers/kubectl.ts";
import { mcUntil } from "../helpers/mc.ts";

const dir = mkdtempSync(join(tmpdir(), "mc-sandbox-cmd-"));
const procs: Bun.Subprocess[] = [];
afterAll(() => procs.forEach((p) => p.kill()));

async function start(name: string, extra: string[] = []) {
  const path = join(dir, `${name}.kubeconfig`);
  const run = await mcUntil(["sandbox", "--name", name, "--port", "0", "--kubeconfig", path, ...extra], new RegExp(`sandbox ${name} ready at (\\S+)`));
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

    test.skipIf(!hasKubectl)(needsKubectl("kubectl connects with CA + token and with the client certificate, and a wrong token is refused"), async () => {
      const sb = await start("secure2", ["--tls"]);
      const kubectl = kubectlFor(sb.kubeconfig);
      expect(await kubectl(["get", "ns", "default", "-o", "name"])).toMatchObject({ code: 0, stdout: "namespace/default\n", stderr: "" });
      expect(await kubectl(["--context", "secure2-cert", "create", "-f", "-"], { stdin: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n" })).toMatchObject({ code: 0, stderr: "" });
      const wrong = kubectlFor(sb.kubeconfig.replace(/token: .*/, "token: nope"));
      const r = await wrong(["get", "ns"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("error: You must be logged in to the server");
    });
  });
});
