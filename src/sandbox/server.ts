// HTTP front of the sandbox: kube-apiserver's URL layout, content negotiation (JSON, Table),
// authentication by bearer token, warnings, and Status bodies for every failure.
import YAML from "yaml";
import { parseFieldSelector, parseLabelSelector, SelectorError } from "./selector.ts";
import type { Api } from "./api.ts";
import { apiGroup, apiGroupList, apiResourceList, apiVersions, SERVER_VERSION } from "./discovery.ts";
import { openapiDocument, openapiIndex } from "./openapi.ts";
import { serveOpenapiV2 } from "./openapi-v2.ts";
import { patchTypeFromContentType } from "./patch.ts";
import { decodeKubeProtobuf, PROTOBUF_CONTENT_TYPE, ProtobufDecodeError } from "./protobuf.ts";
import { SANDBOX_ADMIN, serviceAccountUser, type UserInfo } from "./rbac.ts";
import { toTable, wantsTable } from "./table.ts";
import { ApiError, apiVersionOf, errors, type KubeObject, type ResourceType } from "./types.ts";
import type { WatchHub } from "./watch.ts";
import type { FieldValidation } from "./admission.ts";

export interface Faults {
  /** Fraction of API requests (0..1) answered 503 before they reach the store. */
  failRate: number;
  /** Extra latency added to every API request, in ms. */
  delayMs: number;
}

export interface HandlerContext {
  api: Api;
  hub: WatchHub;
  /** Tokens accepted besides service-account tokens; empty = no authentication (plain http). */
  adminTokens: Set<string>;
  /** The connection presented a client certificate signed by the sandbox CA. */
  certVerified: boolean;
  faults: Faults;
  serverAddress(): string;
  /** Called on watch requests so Bun's idle timeout does not cut a quiet stream. */
  keepOpen(req: Request): void;
}

interface Route {
  type: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

const statusResponse = (err: ApiError) => json(err.toStatus(), err.code);

function warningHeaders(warnings: string[]): Record<string, string> {
  return warnings.length ? { warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(", ") } : {};
}

/** Parses /api/v1/... and /apis/<g>/<v>/... into a resource route. */
function route(api: Api, segments: string[]): Route | undefined {
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === "api" && segments.length >= 3) {
    group = "";
    version = segments[1]!;
    rest = segments.slice(2);
  } else if (segments[0] === "apis" && segments.length >= 4) {
    group = segments[1]!;
    version = segments[2]!;
    rest = segments.slice(3);
  } else return undefined;
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3 && api.registry.find(group, version, rest[2]!)) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const type = api.registry.find(group, version, rest[0]!);
  if (!type) return undefined;
  if (rest.length > 3) return undefined;
  return { type, namespace, name: rest[1], subresource: rest[2] };
}

/** A request body as kube-apiserver decodes it: JSON, YAML, or Kubernetes protobuf (kubectl's typed clients send it). */
async function readBody(req: Request, contentType: string): Promise<unknown> {
  if (contentType.startsWith(PROTOBUF_CONTENT_TYPE)) {
    try {
      return decodeKubeProtobuf(new Uint8Array(await req.arrayBuffer()));
    } catch (err) {
      if (err instanceof ProtobufDecodeError && err.reason === "UnsupportedType") throw errors.unsupportedMediaType(err.message);
      throw errors.badRequest(`the request body could not be decoded: ${(err as Error).message}`);
    }
  }
  if (contentType.includes("cbor")) {
    throw errors.unsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf`);
  }
  return parseBody(await req.text(), contentType);
}

function parseBody(text: string, contentType: string): unknown {
  if (text.trim() === "") throw errors.badRequest("the request body is empty");
  try {
    return contentType.includes("yaml") ? YAML.parse(text) : JSON.parse(text);
  } catch (err) {
    throw errors.badRequest(`the request body could not be decoded: ${(err as Error).message}`);
  }
}

function fieldValidationOf(q: URLSearchParams): FieldValidation {
  const v = q.get("fieldValidation");
  if (v === null || v === "") return "Warn"; // kube-apiserver's default since 1.23
  if (v !== "Strict" && v !== "Warn" && v !== "Ignore") throw errors.badRequest(`fieldValidation must be one of Strict, Warn or Ignore, got "${v}"`);
  return v;
}

function dryRunOf(q: URLSearchParams): boolean {
  const v = q.getAll("dryRun");
  if (v.some((x) => x !== "All")) throw errors.badRequest(`unsupported dryRun value: only "All" is allowed`);
  return v.length > 0;
}

/** Who is asking: the admin (plain http, verified client certificate, admin token) or a service account; undefined = 401. */
function authenticate(ctx: HandlerContext, req: Request): UserInfo | undefined {
  if (ctx.adminTokens.size === 0 || ctx.certVerified) return SANDBOX_ADMIN;
  const header = req.headers.get("authorization");
  if (!header) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(header);
  if (!m) return undefined;
  if (ctx.adminTokens.has(m[1]!)) return SANDBOX_ADMIN;
  const account = ctx.api.tokens.get(m[1]!);
  return account === undefined ? undefined : serviceAccountUser(account);
}

export async function handle(ctx: HandlerContext, req: Request): Promise<Response> {
  try {
    const url = new URL(req.url);
    const segments = url.pathname.split("/").filter((s) => s !== "").map(decodeURIComponent);
    if (["/healthz", "/livez", "/readyz"].includes(url.pathname)) return new Response("ok");
    const user = authenticate(ctx, req);
    if (!user) return statusResponse(errors.unauthorized());
    if (url.pathname === "/version") return json(SERVER_VERSION);
    const discovery = serveDiscovery(ctx, segments, url, req);
    if (discovery) return discovery;
    if (ctx.faults.delayMs > 0) await Bun.sleep(ctx.faults.delayMs);
    if (ctx.faults.failRate > 0 && Math.random() < ctx.faults.failRate) {
      return statusResponse(new ApiError(503, "ServiceUnavailable", "the sandbox is injecting failures"));
    }
    const r = route(ctx.api, segments);
    if (!r) return statusResponse(new ApiError(404, "NotFound", "the server could not find the requested resource"));
    return await serveResource(ctx, req, url, r, user);
  } catch (err) {
    if (err instanceof ApiError) return statusResponse(err);
    if (err instanceof SelectorError) return statusResponse(errors.badRequest(err.message));
    return statusResponse(errors.internal(`sandbox error: ${(err as Error).message}`));
  }
}

function serveDiscovery(ctx: HandlerContext, s: string[], url: URL, req: Request): Response | undefined {
  const { api } = ctx;
  if (s[0] === "api" && s.length === 1) return json(apiVersions(ctx.serverAddress()));
  if (s[0] === "api" && s.length === 2) return jsonOr404(apiResourceList(api.registry, s[1]!));
  if (s[0] === "apis" && s.length === 1) return json(apiGroupList(api.registry));
  if (s[0] === "apis" && s.length === 2) return jsonOr404(apiGroup(api.registry, s[1]!));
  if (s[0] === "apis" && s.length === 3) return jsonOr404(apiResourceList(api.registry, `${s[1]}/${s[2]}`));
  if (s[0] === "openapi" && s[1] === "v3") {
    if (s.length === 2) return json(openapiIndex(api.registry.all()));
    const gv = s[2] === "api" ? s.slice(3).join("/") : s.slice(3).join("/");
    return jsonOr404(openapiDocument(gv, api.registry.typesIn(gv)));
  }
  if (s[0] === "openapi" && s[1] === "v2" && s.length === 2) return serveOpenapiV2(api.registry, req);
  if (s[0] === "openapi" || url.pathname === "/swagger.json") return statusResponse(new ApiError(404, "NotFound", "the server could not find the requested resource"));
  return undefined;
}

function jsonOr404(body: object | undefined): Response {
  return body ? json(body) : statusResponse(new ApiError(404, "NotFound", "the server could not find the requested resource"));
}

/** Lists omit each item's apiVersion and kind for built-in types, as kube-apiserver does. */
function listItem(type: ResourceType, obj: KubeObject): KubeObject {
  if (type.crd) return obj;
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return rest as KubeObject;
}

async function serveResource(ctx: HandlerContext, req: Request, url: URL, r: Route, user: UserInfo): Promise<Response> {
  const { api } = ctx;
  const q = url.searchParams;
  const { type, namespace, name, subresource } = r;
  if (subresource !== undefined && !(subresource === "status" && type.subresources.status)) {
    return statusResponse(new ApiError(404, "NotFound", "the server could not find the requested resource"));
  }
  const table = wantsTable(req.headers.get("accept"));
  const method = req.method.toUpperCase();
  const fieldManager = q.get("fieldManager") ?? undefined;
  const render = (obj: KubeObject) => (table ? toTable(type, [obj], { now: new Date(), tableVersion: table, includeObject: (q.get("includeObject") as "Object" | "Metadata" | "None" | null) ?? undefined }) : obj);

  if (method === "GET" && name === undefined) {
    const labels = parseLabelSelector(q.get("labelSelector") ?? "");
    const fields = parseFieldSelector(q.get("fieldSelector") ?? "");
    for (const f of fields) {
      if (f.field !== "metadata.name" && f.field !== "metadata.namespace" && !(type.kind === "Secret" && f.field === "type") && !(type.kind === "Event" && f.field.startsWith("involvedObject."))) {
        throw errors.badRequest(`"${f.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
      }
    }
    const filter = { namespace: type.namespaced ? namespace : undefined, labels, fields };
    if (q.get("watch") === "true" || q.get("watch") === "1") {
      ctx.keepOpen(req);
      const timeout = q.get("timeoutSeconds");
      const body = ctx.hub.stream(
        {
          type,
          ...filter,
          resourceVersion: q.get("resourceVersion") ?? undefined,
          bookmarks: q.get("allowWatchBookmarks") === "true",
          timeoutSeconds: timeout ? Number(timeout) : undefined,
          sendInitialEvents: q.get("sendInitialEvents") === "true",
          render: (o) => render(api.served(type, o)),
        },
        req.signal,
      );
      return new Response(body, { headers: { "content-type": "application/json", "transfer-encoding": "chunked" } });
    }
    return listResponse(ctx, type, filter, q, table);
  }
  if (method === "GET") return json(render(api.get(type, namespace, name!)));

  const dryRun = dryRunOf(q);
  const fieldValidation = fieldValidationOf(q);
  const contentType = req.headers.get("content-type") ?? "application/json";
  if (method === "POST" && name === undefined) {
    const body = (await readBody(req, contentType)) as KubeObject;
    const result = api.create(type, namespace, body, { dryRun, fieldManager, fieldValidation, user });
    return json(result.object, type.kind === "SelfSubjectAccessReview" ? 201 : 201, warningHeaders(result.warnings));
  }
  if (method === "PUT" && name !== undefined) {
    const body = (await readBody(req, contentType)) as KubeObject;
    const result = api.update(type, namespace, name, body, { dryRun, fieldManager, fieldValidation, subresource: subresource as "status" | undefined });
    return json(result.object, 200, warningHeaders(result.warnings));
  }
  if (method === "PATCH" && name !== undefined) {
    const patchType = patchTypeFromContentType(contentType);
    if (!patchType) throw errors.unsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`);
    const body = parseBody(await req.text(), patchType === "apply" ? "yaml" : "json");
    const force = q.get("force") === "true";
    const result = api.patch(type, namespace, name, patchType, body, { dryRun, fieldManager, fieldValidation, subresource: subresource as "status" | undefined, force });
    return json(result.object, result.created ? 201 : 200, warningHeaders(result.warnings));
  }
  if (method === "DELETE") {
    const raw = new Uint8Array(await req.arrayBuffer());
    type DeleteBody = { preconditions?: { uid?: string; resourceVersion?: string }; dryRun?: string[] };
    const opts: DeleteBody =
      raw.length === 0
        ? {}
        : contentType.startsWith(PROTOBUF_CONTENT_TYPE)
          ? (decodeKubeProtobuf(raw) as unknown as DeleteBody)
          : (parseBody(new TextDecoder().decode(raw), "json") as DeleteBody);
    const dry = dryRun || (opts.dryRun ?? []).includes("All");
    if (name === undefined) {
      const labels = parseLabelSelector(q.get("labelSelector") ?? "");
      const fields = parseFieldSelector(q.get("fieldSelector") ?? "");
      const gone = api.deleteCollection(type, { namespace: type.namespaced ? namespace : undefined, labels, fields }, { dryRun: dry });
      return json({ kind: type.listKind, apiVersion: apiVersionOf(type), metadata: { resourceVersion: api.store.resourceVersion }, items: gone.map((o) => listItem(type, o)) });
    }
    const gone = api.delete(type, namespace, name, { dryRun: dry, preconditions: opts.preconditions });
    if (type.crd || type.kind === "Namespace") return json(type.kind === "Namespace" ? { ...gone, status: { phase: "Terminating" } } : gone);
    return json({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details: { name, group: type.group || undefined, kind: type.plural, uid: gone.metadata.uid } });
  }
  return statusResponse(errors.methodNotAllowed(`the server does not allow this method on the requested resource`));
}

/** A list, paged with limit/continue (the continue token carries the next key). */
function listResponse(ctx: HandlerContext, type: ResourceType, filter: Parameters<Api["list"]>[1], q: URLSearchParams, table: "v1" | "v1beta1" | undefined): Response {
  const all = ctx.api.list(type, filter);
  const limit = Number(q.get("limit") ?? "0");
  let start = 0;
  let listRv = ctx.api.store.resourceVersion;
  const token = q.get("continue");
  if (token) {
    let decoded: { rv: string; start: number };
    try {
      decoded = JSON.parse(Buffer.from(token, "base64url").toString());
    } catch {
      throw errors.badRequest("continue key is not valid: illegal base64 data");
    }
    start = decoded.start;
    listRv = decoded.rv;
  }
  let items = all.slice(start);
  const meta: Record<string, unknown> = { resourceVersion: listRv };
  if (limit > 0 && items.length > limit) {
    items = items.slice(0, limit);
    meta.continue = Buffer.from(JSON.stringify({ rv: listRv, start: start + limit })).toString("base64url");
    meta.remainingItemCount = all.length - start - limit;
  }
  if (table) {
    const includeObject = (q.get("includeObject") as "Object" | "Metadata" | "None" | null) ?? undefined;
    return json(toTable(type, items, { now: new Date(), includeObject, listMeta: meta as { resourceVersion?: string; continue?: string }, tableVersion: table }));
  }
  return json({ kind: type.listKind, apiVersion: apiVersionOf(type), metadata: meta, items: items.map((o) => listItem(type, o)) });
}
