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

  test("a refused connection is Unreachable, code 0, retryable", () => {
    const err = toKubeError(Object.assign(new TypeError("Unable to connect"), { code: "ECONNREFUSED" }), "watch", "services on east");
    expect(err.message).toBe("watch services on east: unreachable: ECONNREFUSED");
    expect(err).toMatchObject({ code: 0, reason: "Unreachable" });
    expect(err.isRetryable).toBe(true);
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
