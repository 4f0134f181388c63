// formatError: one line, secrets and tokens redacted.
import { describe, expect, test } from "bun:test";
import { formatError, redact } from "../src/errors.ts";

describe("redact", () => {
  test.each([
    ["Authorization: Bearer abc.def", "Authorization: Bearer <redacted>"],
    ['{"token":"s3cret","user":"x"}', '{"token":<redacted>,"user":"x"}'],
    ["token=s3cret", "token=<redacted>"],
    ["client-key-data: LS0tLS1C", "client-key-data: <redacted>"],
    ["eyJhbGciOiJSUzI1NiIs.eyJpc3MiOiJrdWJlcm5ldGVz.sig", "<redacted>"],
    ["AUTHORIZATION: BEARER abc.def", "AUTHORIZATION: BEARER <redacted>"],
    ["Password: hunter2", "Password: <redacted>"],
    ['"client-certificate-data":"LS0t"', '"client-certificate-data":<redacted>'],
    ["KUBECONFIG=apiVersion", "KUBECONFIG=<redacted>"],
    ["key -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- end", "key <redacted> end"],
  ])("hides the credential in %p", (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  test.each([
    "kubeconfig ./nope.kubeconfig: no such file",
    'kubeconfig /k/east.kubeconfig: context "nope" not found',
    "/var/run/secrets/kubernetes.io/serviceaccount/token: no such file",
    "--kubeconfig: needs a value",
  ])("leaves file names and flags alone: %p", (text) => {
    expect(redact(text)).toBe(text);
  });

  test("formatError folds a message onto one line and redacts it", () => {
    expect(formatError(new Error("failed:\n  Bearer xyz\n  again"))).toBe("failed: Bearer <redacted> again");
  });
});
