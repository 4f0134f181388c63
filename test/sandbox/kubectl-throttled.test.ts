// A sandbox shedding load as kube-apiserver's priority and fairness does (429, Retry-After, a
// plain-text body), through the real kubectl: client-go waits the Retry-After and sends the
// request again, so kubectl succeeds; a request shed every time is reported as kube's 429.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { seededRandom, startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { hasKubectl, kubectlFor, needsKubectl, type Kubectl } from "../helpers/kubectl.ts";

let sb: Sandbox;
let kubectl: Kubectl;
beforeAll(async () => {
  sb = await startSandbox({ name: "throttled" });
  kubectl = kubectlFor(sb.kubeconfig);
  expect((await kubectl(["create", "configmap", "kept", "-n", "default"])).code).toBe(0);
});
afterAll(() => sb?.stop());
afterEach(() => sb.control.clear());

test.skipIf(!hasKubectl)(
  needsKubectl(
    "kubectl get while half the requests are shed with 429: client-go waits each Retry-After (1 s) and retries, and the get succeeds",
  ),
  async () => {
    sb.control.faults.random = seededRandom(8);
    sb.control.faults.failWith = [429];
    sb.control.faults.failRate = 0.5;
    const before = sb.control.injected.failures;
    const t = performance.now();
    const r = await kubectl(["get", "configmap", "kept", "-n", "default", "-o", "name", "-v=6"]);
    const shed = sb.control.injected.failures - before;
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe("configmap/kept");
    expect(shed).toBeGreaterThan(0);
    // Each shed answer was seen by kubectl as a 429 and waited out.
    expect(r.stderr.match(/ 429 Too Many Requests /g)?.length).toBe(shed);
    expect(performance.now() - t).toBeGreaterThanOrEqual(shed * 1000 - 50);
  },
  30_000,
);

test.skipIf(!hasKubectl)(
  needsKubectl(
    "a request shed every time: kubectl gives up after client-go's 10 retries (11 requests) with kube's message for a 429 that is no Status",
  ),
  async () => {
    sb.control.faults.failWith = [429];
    sb.control.faults.failRate = 1;
    sb.control.faults.retryAfterSeconds = 0; // the 10 retries at once
    const before = sb.control.injected.failures;
    const r = await kubectl(["get", "configmap", "kept", "-n", "default", "-o", "name", "--request-timeout=0"]);
    expect(r.code).not.toBe(0);
    expect(sb.control.injected.failures - before).toBe(11);
    expect(r.stderr).toContain(
      "Error from server (TooManyRequests): the server has received too many requests and has asked us to try again later",
    );
  },
  30_000,
);
