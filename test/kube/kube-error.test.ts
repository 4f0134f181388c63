// KubeError: status, reason and a one-line message naming what was acted on.
import { describe, expect, test } from "bun:test";
import {
  AlreadyExistsError,
  ConflictError,
  describeTarget,
  KubeError,
  kubeErrorFromResponse,
  toKubeError,
} from "../../src/kube/kube-error.ts";

const status = (code: number, reason: string, message: string) =>
  JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", code, reason, message });

describe("KubeError", () => {
  test("names verb, target, code, reason and the server's message in one line", () => {
    const err = kubeErrorFromResponse("get", "services ns/web on east", 404, status(404, "NotFound", 'services "web" not found'));
    expect(err.message).toBe('get services ns/web on east: 404 NotFound: services "web" not found');
    expect(err).toMatchObject({ verb: "get", target: "services ns/web on east", code: 404, reason: "NotFound" });
    expect(err.isNotFound).toBe(true);
    expect(err.isRetryable).toBe(false);
  });

  test("a 409 AlreadyExists and a 409 Conflict are distinct typed errors, both conflicts and retryable", () => {
    const exists = kubeErrorFromResponse("create", "services ns/web on east", 409, status(409, "AlreadyExists", "x"));
    const conflict = kubeErrorFromResponse("update", "services ns/web on east", 409, status(409, "Conflict", "y"));
    expect(exists).toBeInstanceOf(AlreadyExistsError);
    expect(exists.isAlreadyExists).toBe(true);
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict.isAlreadyExists).toBe(false);
    for (const e of [exists, conflict]) {
      expect(e.isConflict).toBe(true);
      expect(e.isRetryable).toBe(true);
    }
  });

  test.each([
    [429, true],
    [500, true],
    [503, true],
    [400, false],
    [401, false],
    [403, false],
    [410, false],
    [422, false],
  ])("HTTP %d is retryable: %p", (code, retryable) => {
    expect(kubeErrorFromResponse("list", "services on east", code, "").isRetryable).toBe(retryable);
  });

  test("a body that is not a Status still gives the code's reason, and never its text", () => {
    const err = kubeErrorFromResponse("list", "services on east", 503, "<html>Authorization: Bearer abc</html>");
    expect(err.message).toBe("list services on east: 503 ServiceUnavailable");
  });

  test("Retry-After becomes retryAfterMs", () => {
    expect(kubeErrorFromResponse("list", "services on east", 429, "", "2").retryAfterMs).toBe(2000);
  });

  test("client-node's ApiException keeps code and Status but none of its message (headers, body)", () => {
    const apiException = Object.assign(
      new Error('HTTP-Code: 403\nMessage: x\nBody: {}\nHeaders: {"authorization":"Bearer eyJhbGciOi.secretpart.sig"}'),
      { code: 403, body: { kind: "Status", code: 403, reason: "Forbidden", message: "services is forbidden" } },
    );
    const err = toKubeError(apiException, "list", "services on east");
    expect(err.message).toBe("list services on east: 403 Forbidden: services is forbidden");
  });

  test("a refused connection is Unreachable, code 0, retryable, and says so in words with the server and the fix", () => {
    const err = toKubeError(
      Object.assign(new TypeError("Unable to connect"), { code: "ECONNREFUSED" }),
      "watch",
      "services on east",
      "https://10.1.2.3:6443",
    );
    expect(err.message).toBe(
      "watch services on east: the connection to https://10.1.2.3:6443 was refused; is the API server running, and are the context and kubeconfig the right ones? [ECONNREFUSED]",
    );
    expect(err).toMatchObject({ code: 0, reason: "Unreachable" });
    expect(err.isRetryable).toBe(true);
  });

  test.each([
    [
      "SELF_SIGNED_CERT_IN_CHAIN",
      "the certificate of https://east.example:6443 is signed by an unknown authority; the kubeconfig's certificate-authority(-data) is not this server's CA",
    ],
    ["UNABLE_TO_VERIFY_LEAF_SIGNATURE", "signed by an unknown authority"],
    ["FailedToOpenSocket", "the connection to https://east.example:6443 was refused"],
    ["ENOTFOUND", "the host east.example of https://east.example:6443 could not be resolved; check the cluster's server address"],
    ["ECONNRESET", "was closed before an answer (the server, or a proxy in front of it, closed it: restarting or stopping?)"],
    ["ConnectionClosed", "was closed before an answer (the server, or a proxy in front of it, closed it: restarting or stopping?)"],
    [
      "ERR_SSL_WRONG_VERSION_NUMBER",
      "failed before an answer; is it a Kubernetes API server, and does it speak https as the kubeconfig says?",
    ],
    ["CERT_HAS_EXPIRED", "has expired or is not valid yet"],
    ["ERR_TLS_CERT_ALTNAME_INVALID", "is not valid for east.example; use an address the certificate names, or set tls-server-name"],
    ["ETIMEDOUT", "timed out; is the server reachable from here"],
  ])("transport failure %s is explained in words, naming the server", (code, words) => {
    const err = toKubeError(Object.assign(new TypeError("failed"), { code }), "get", "services a/b on east", "https://east.example:6443");
    expect(err.message).toContain(words);
    expect(err.message).toEndWith(`[${code}]`);
    expect(err.message.startsWith("get services a/b on east: ")).toBe(true);
    expect(err.reason).toBe("Unreachable");
  });

  test("an unknown transport code stays as it was, short and one line", () => {
    const err = toKubeError(Object.assign(new TypeError("failed"), { code: "WeirdThing" }), "get", "t", "https://x:1");
    expect(err.message).toBe("get t: unreachable: WeirdThing");
  });

  test("a 401 says the credentials were rejected and what to check", () => {
    const err = kubeErrorFromResponse(
      "list",
      "services on east",
      401,
      '{"kind":"Status","code":401,"reason":"Unauthorized","message":"Unauthorized"}',
    );
    expect(err.message).toBe(
      "list services on east: 401 Unauthorized: the server rejected the credentials; the token or certificate in the kubeconfig is wrong, expired or revoked",
    );
  });

  test("an abort by the caller is not retryable; a timeout is", () => {
    const abort = toKubeError(new DOMException("aborted", "AbortError"), "get", "t");
    const timeout = toKubeError(new DOMException("timed out", "TimeoutError"), "get", "t");
    expect([abort.reason, abort.isRetryable]).toEqual(["Aborted", false]);
    expect([timeout.reason, timeout.isRetryable]).toEqual(["Timeout", true]);
  });

  test("a server message with a token in it is redacted and folded to one line", () => {
    const err = kubeErrorFromResponse("get", "t", 500, status(500, "InternalError", "boom\nAuthorization: Bearer abc.def"));
    expect(err.message).toBe("get t: 500 InternalError: boom Authorization: Bearer <redacted>");
    expect(err).toBeInstanceOf(KubeError);
  });
});

describe("describeTarget", () => {
  test.each([
    [{ plural: "services", cluster: "east", namespace: "ns", name: "web" }, "services ns/web on east"],
    [{ plural: "namespaces", cluster: "east", name: "ns" }, "namespaces ns on east"],
    [{ plural: "services", cluster: "east", namespace: "ns" }, "services in ns on east"],
    [{ plural: "services", cluster: "east" }, "services on east"],
  ])("%o reads %p", (t, text) => {
    expect(describeTarget(t)).toBe(text);
  });
});
