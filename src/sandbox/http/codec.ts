// The wire side of every answer and request body: JSON responses, Status bodies for failures,
// Warning headers, and bodies decoded as kube-apiserver does (JSON, YAML, Kubernetes protobuf).
import YAML from "yaml";
import { decodeKubeProtobuf, PROTOBUF_CONTENT_TYPE, ProtobufDecodeError } from "../protobuf/decode.ts";
import { errors, type ApiError } from "../types.ts";

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

/** A failure as kube-apiserver sends it: the Status body, and Retry-After when the details ask for a wait. */
export const statusResponse = (err: ApiError) =>
  json(err.toStatus(), err.code, err.details?.retryAfterSeconds ? { "retry-after": String(err.details.retryAfterSeconds) } : {});

/**
 * A request shed by priority and fairness, as kube-apiserver answers it (k8s.io/apiserver
 * filters/priority-and-fairness.go → maxinflight.go tooManyRequests → net/http's http.Error): 429,
 * Retry-After, the flow schema's and priority level's UIDs, and a plain-text body — not a Status.
 */
export const throttledResponse = (retryAfterSeconds: number) =>
  new Response("Too many requests, please try again later.\n", {
    status: 429,
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "x-content-type-options": "nosniff",
      "retry-after": String(retryAfterSeconds),
      "x-kubernetes-pf-flowschema-uid": PF_FLOWSCHEMA_UID,
      "x-kubernetes-pf-prioritylevel-uid": PF_PRIORITYLEVEL_UID,
    },
  });

/** The UIDs the sandbox names for the flow schema and priority level of every request (kube's `global-default` ones have their own). */
const PF_FLOWSCHEMA_UID = "5a1c2c47-1f0e-4c7e-9f4a-0d6c2b7e0a01";
const PF_PRIORITYLEVEL_UID = "9b3e6d15-7c2a-4d8e-b1f5-3a4c9e8d7b02";

export function warningHeaders(warnings: string[]): Record<string, string> {
  return warnings.length ? { warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(", ") } : {};
}

/** A request body as kube-apiserver decodes it: JSON, YAML, or Kubernetes protobuf (kubectl's typed clients send it). */
export async function readBody(req: Request, contentType: string): Promise<unknown> {
  if (contentType.startsWith(PROTOBUF_CONTENT_TYPE)) {
    try {
      return decodeKubeProtobuf(new Uint8Array(await req.arrayBuffer()));
    } catch (err) {
      if (err instanceof ProtobufDecodeError && err.reason === "UnsupportedType") throw errors.unsupportedMediaType(err.message);
      throw errors.badRequest(`the request body could not be decoded: ${(err as Error).message}`);
    }
  }
  if (contentType.includes("cbor")) {
    throw errors.unsupportedMediaType(
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf`,
    );
  }
  return parseBody(await req.text(), contentType);
}

export function parseBody(text: string, contentType: string): unknown {
  if (text.trim() === "") throw errors.badRequest("the request body is empty");
  try {
    return contentType.includes("yaml") ? YAML.parse(text) : JSON.parse(text);
  } catch (err) {
    throw errors.badRequest(`the request body could not be decoded: ${(err as Error).message}`);
  }
}
