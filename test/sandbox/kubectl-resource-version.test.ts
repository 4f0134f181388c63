// A resourceVersion the server has not reached, through the real kubectl: answered as kube-apiserver v1.37.2 answers it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { hasKubectl, kubectlFor, needsKubectl, type Kubectl } from "../helpers/kubectl.ts";

// A resourceVersion the server has not reached (a client resuming against a server restored from
// an older etcd copy), through the real kubectl: kube-apiserver accepts the watch and stays silent
// (its watch cache sends nothing at or below the requested resourceVersion, bookmarks included); and
// the one ERROR event (504, retry hint) its watch cache sends a watch-list it cannot serve yet (also
// as a fault for every resume). kube-apiserver v1.37.2 gave these answers (docs/decisions.md#d154).

let sb: Sandbox;
let kubectl: Kubectl;
beforeAll(async () => {
  sb = await startSandbox({ name: "restored", bookmarkMs: 200, tooLargeWaitMs: 300 });
  kubectl = kubectlFor(sb.kubeconfig);
});
afterAll(() => sb?.stop());

test.skipIf(!hasKubectl)(
  needsKubectl(
    "kubectl get --raw of a watch from a resourceVersion not reached: exit 0, nothing but whitespace, even with bookmarks asked for and writes meanwhile",
  ),
  async () => {
    const ahead = Number(sb.store.resourceVersion) + 1000;
    const watching = kubectl([
      "get",
      "--raw",
      `/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=${ahead}`,
    ]);
    const created = await kubectl(["create", "configmap", "meanwhile", "-n", "default"]);
    expect(created.code).toBe(0);
    const r = await watching;
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe(""); // kube sends no byte; the sandbox one "\n" (Bun sends headers with the first chunk)
  },
);

test.skipIf(!hasKubectl)(
  needsKubectl(
    "the lagging-watch-cache fault through kubectl: the raw watch is the one ERROR event kube-apiserver's watch cache sends (504, details.retryAfterSeconds), and kubectl get -w prints it as the server's Status",
  ),
  async () => {
    await kubectl(["create", "configmap", "before-lag", "-n", "default"]);
    sb.control.faults.watchRetryAfterSeconds = 3;
    try {
      const rv = sb.store.resourceVersion;
      const raw = await kubectl(["get", "--raw", `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`]);
      expect(raw.code).toBe(0);
      const lines = raw.stdout.split("\n").filter((l) => l.trim() !== "");
      expect(lines.map((l) => JSON.parse(l))).toEqual([
        {
          type: "ERROR",
          object: {
            kind: "Status",
            apiVersion: "v1",
            metadata: {},
            status: "Failure",
            message: `Timeout: Too large resource version: ${rv}, current: ${Number(rv) - 1}`,
            reason: "Timeout",
            code: 504,
            details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }], retryAfterSeconds: 3 },
          },
        },
      ]);
      // kubectl's watch (a list, then a watch from its resourceVersion) decodes the event as a Status and prints it.
      const watched = await kubectl(["get", "configmaps", "-n", "default", "-w", "--request-timeout=10s"]);
      expect(watched.code).toBe(0);
      expect(watched.stdout).toContain("before-lag");
      expect(watched.stdout).toMatch(
        /STATUS\s+REASON\s+MESSAGE\nFailure\s+Timeout\s+Timeout: Too large resource version: \d+, current: \d+\n$/,
      );
    } finally {
      sb.control.faults.watchRetryAfterSeconds = 0;
    }
  },
);

test.skipIf(!hasKubectl)(
  needsKubectl(
    "kubectl get --raw of a watch-list (sendInitialEvents) from a resourceVersion not reached: after the wait, one ERROR event, 504 Too large resource version with retryAfterSeconds 1, exit 0",
  ),
  async () => {
    const current = sb.store.resourceVersion;
    const ahead = Number(current) + 1000;
    const r = await kubectl([
      "get",
      "--raw",
      `/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=5&resourceVersion=${ahead}`,
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const events = r.stdout
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l));
    // What kube-apiserver v1.37.2 sent for the same request after its 3 s wait (current there: 240).
    expect(events).toEqual([
      {
        type: "ERROR",
        object: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: `Timeout: Too large resource version: ${ahead}, current: ${current}`,
          reason: "Timeout",
          details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }], retryAfterSeconds: 1 },
          code: 504,
        },
      },
    ]);
  },
);
