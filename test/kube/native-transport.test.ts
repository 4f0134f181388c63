// A kubeconfig with a CA and a bearer token (what mc link hands a source cluster, and what a pod's
// service account is) connects without loading client-node — ≈40 MB of an idle mc serve's
// memory — and still talks TLS with the token. In a fresh process, since test files share one.
import { expect, test } from "bun:test";
import { join } from "node:path";

test("connect() over TLS with a CA and a token never loads @kubernetes/client-node", async () => {
  const root = join(import.meta.dir, "..", "..");
  const script = `
    import { startSandbox } from "${root}/src/sandbox/index.ts";
    import { connectKubeconfigText, resources } from "${root}/src/kube/index.ts";
    const sb = await startSandbox({ name: "native", tls: true });
    const client = await connectKubeconfigText(sb.kubeconfig, "sandbox kubeconfig");
    const list = await client.list(resources.namespace);
    const loaded = Object.keys(require.cache).some((k) => k.includes("@kubernetes/client-node"));
    console.log(JSON.stringify({ namespaces: list.items.length, loaded }));
    await sb.stop();
  `;
  const proc = Bun.spawn(["bun", "-e", script], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect({ code, err }).toEqual({ code: 0, err: "" });
  const r = JSON.parse(out.trim().split("\n").pop()!);
  expect(r.namespaces).toBeGreaterThan(0);
  expect(r.loaded).toBe(false);
});
