// `mc sandbox` with its fault flags, RBAC and durable storage, driven from outside by the real kubectl: `--data` survives `kill -9` and a
// restart on the same `--port` (objects, counter, CA and token kept, so the old kubeconfig still works), `--fail-rate` (seeded with
// MC_FAULT_SEED), `--conflict-rate`, `--forget-history`, `--drop-watches-every`, `--latency`, `--enforce-rbac`.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasKubectl, kubectlFor, needsKubectl } from "../helpers/kubectl.ts";
import { MC, spawnUntil, type Until } from "../helpers/mc.ts";

const dir = mkdtempSync(join(tmpdir(), "mc-sandbox-faults-"));
const procs: Bun.Subprocess[] = [];
afterAll(() => procs.forEach((p) => p.kill("SIGKILL")));

async function start(
  name: string,
  extra: string[],
  env: Record<string, string> = {},
): Promise<Until & { url: string; kubeconfig: string; port: number }> {
  const path = join(dir, `${name}.kubeconfig`);
  const run = await spawnUntil(
    ["bun", MC, "sandbox", "--name", name, "--kubeconfig", path, ...extra],
    new RegExp(`sandbox ${name} ready at (\\S+)`),
    { env: { ...process.env, NO_COLOR: "1", ...env } },
  );
  procs.push(run.proc);
  const url = run.match[1]!;
  return { ...run, url, port: Number(new URL(url).port), kubeconfig: readFileSync(path, "utf8") };
}

const configMap = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: default}\ndata: {k: v}\n`;

describe.skipIf(!hasKubectl)("mc sandbox faults from outside", () => {
  test(
    needsKubectl("--data: kill -9 and a restart on the same --port resume with everything stored; the old kubeconfig still works"),
    async () => {
      const data = join(dir, "east.db");
      const first = await start("durable", ["--tls", "--port", "0", "--data", data]);
      const kubectl = kubectlFor(first.kubeconfig);
      expect(await kubectl(["create", "-f", "-"], { stdin: configMap("before") })).toMatchObject({ code: 0 });
      const rv = (await kubectl(["get", "configmap", "before", "-o", "jsonpath={.metadata.resourceVersion}"])).stdout;
      first.proc.kill("SIGKILL");
      expect(await first.proc.exited).not.toBe(0);
      const second = await start("durable", ["--tls", "--port", String(first.port), "--data", data]);
      expect(second.url).toBe(first.url);
      // The kubeconfig written by the first process: same CA, same admin token.
      expect(await kubectl(["get", "configmap", "before", "-o", "jsonpath={.metadata.resourceVersion} {.data.k}"])).toMatchObject({
        code: 0,
        stdout: `${rv} v`,
      });
      expect(await kubectl(["create", "-f", "-"], { stdin: configMap("after") })).toMatchObject({ code: 0 });
      const next = Number((await kubectl(["get", "configmap", "after", "-o", "jsonpath={.metadata.resourceVersion}"])).stdout);
      expect(next).toBeGreaterThan(Number(rv));
      second.proc.kill("SIGTERM");
      expect(await second.proc.exited).toBe(0);
    },
  );

  test(needsKubectl("--fail-rate 1 with MC_FAULT_SEED: a seeded mix of failures; discovery still works"), async () => {
    const sb = await start("failing", ["--fail-rate", "1"], { MC_FAULT_SEED: "1" });
    const r = await kubectlFor(sb.kubeconfig)(["get", "configmaps", "-n", "default"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("Error from server (InternalError): Internal error occurred: the sandbox is injecting failures\n");
  });

  test(needsKubectl("--conflict-rate 1: a replace carrying the resourceVersion is refused with 409; a create is not"), async () => {
    const sb = await start("conflicting", ["--conflict-rate", "1"]);
    const kubectl = kubectlFor(sb.kubeconfig);
    expect(await kubectl(["create", "-f", "-"], { stdin: configMap("c") })).toMatchObject({ code: 0 });
    const current = (await kubectl(["get", "configmap", "c", "-o", "yaml"])).stdout;
    const r = await kubectl(["replace", "-f", "-"], { stdin: current.replace("k: v", "k: w") });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'Error from server (Conflict): error when replacing "STDIN": Operation cannot be fulfilled on configmaps "c": the object has been modified',
    );
  });

  test(
    needsKubectl(
      "--forget-history: a list at an exact resourceVersion is 410 Gone, a list not older than one is served, a watch from one ends in a 410 ERROR event; --drop-watches-every ends a watch; --latency slows every answer",
    ),
    async () => {
      const sb = await start("forgetful", ["--forget-history", "--drop-watches-every", "300ms", "--latency", "200ms"]);
      const kubectl = kubectlFor(sb.kubeconfig);
      const gone = await kubectl(["get", "--raw", "/api/v1/namespaces?resourceVersion=1&resourceVersionMatch=Exact"]);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toContain("Error from server (Expired): too old resource version: 1");
      // kube-apiserver serves a list "not older than" a resourceVersion from newer data: never 410.
      const notOlder = await kubectl(["get", "--raw", "/api/v1/namespaces?resourceVersion=1"]);
      expect(notOlder.code).toBe(0);
      expect(JSON.parse(notOlder.stdout)).toMatchObject({ kind: "NamespaceList" });
      const watchGone = await kubectl(["get", "--raw", "/api/v1/namespaces?watch=true&resourceVersion=1"]);
      expect(watchGone.code).toBe(0);
      expect(JSON.parse(watchGone.stdout.trim())).toMatchObject({ type: "ERROR", object: { code: 410, reason: "Expired" } });
      const started = performance.now();
      const watch = await kubectl(["get", "--raw", "/api/v1/namespaces/default/configmaps?watch=true"]);
      expect(watch.code).toBe(0); // the server ended the stream
      expect(performance.now() - started).toBeGreaterThanOrEqual(200);
    },
  );

  test(needsKubectl("--enforce-rbac: https, the admin token may do anything, an unbound service account nothing"), async () => {
    const sb = await start("strict", ["--enforce-rbac"]);
    expect(sb.url).toStartWith("https://");
    const kubectl = kubectlFor(sb.kubeconfig);
    expect(await kubectl(["auth", "can-i", "*", "*"])).toMatchObject({ code: 0, stdout: "yes\n" });
    await kubectl(["create", "serviceaccount", "nobody"]);
    const secret = `apiVersion: v1\nkind: Secret\nmetadata: {name: nobody-token, namespace: default, annotations: {kubernetes.io/service-account.name: nobody}}\ntype: kubernetes.io/service-account-token\n`;
    expect(await kubectl(["create", "-f", "-"], { stdin: secret })).toMatchObject({ code: 0 });
    const token = Buffer.from(
      (await kubectl(["get", "secret", "nobody-token", "-o", "jsonpath={.data.token}"])).stdout,
      "base64",
    ).toString();
    const asNobody = kubectlFor(sb.kubeconfig.replace(/token: .*/, `token: ${token}`));
    expect(await asNobody(["auth", "can-i", "list", "pods"])).toMatchObject({ code: 1, stdout: "no\n" });
    const r = await asNobody(["get", "pods"]);
    expect(r.stderr).toBe(
      'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:default:nobody" cannot list resource "pods" in API group "" in the namespace "default"\n',
    );
  });
});
