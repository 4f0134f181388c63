// A resourceVersion the server has not reached (a client resuming against a server restored from
// an older etcd copy), through the real kubectl: kube-apiserver accepts the watch and stays silent
// (its watch cache sends nothing at or below the requested resourceVersion, bookmarks included).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { hasKubectl, kubectlFor, needsKubectl, type Kubectl } from "../helpers/kubectl.ts";

let sb: Sandbox;
let kubectl: Kubectl;
beforeAll(async () => {
  sb = await startSandbox({ name: "restored", bookmarkMs: 200 });
  kubectl = kubectlFor(sb.kubeconfig);
});
afterAll(() => sb?.stop());

test.skipIf(!hasKubectl)(needsKubectl("kubectl get --raw of a watch from a resourceVersion not reached: exit 0, nothing but whitespace, even with bookmarks asked for and writes meanwhile"), async () => {
  const ahead = Number(sb.store.resourceVersion) + 1000;
  const watching = kubectl(["get", "--raw", `/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=${ahead}`]);
  const created = await kubectl(["create", "configmap", "meanwhile", "-n", "default"]);
  expect(created.code).toBe(0);
  const r = await watching;
  expect(r.code).toBe(0);
  expect(r.stderr).toBe("");
  expect(r.stdout.trim()).toBe(""); // kube sends no byte; the sandbox one "\n" (Bun sends headers with the first chunk)
});
