// HTTP front of the sandbox: kube-apiserver's URL layout (discovery, OpenAPI, resources),
// authentication by bearer token, authorization by RBAC when enforced, the request faults, and
// Status bodies for every failure. One resource's verbs are served by resource.ts.
import type { Api } from "../api.ts";
import { inflightFault, latencyFault, requestFault, Throttled } from "../faults.ts";
import { openapiDocument, openapiIndex } from "../openapi/v3.ts";
import { serveOpenapiV2 } from "../openapi/v2-serve.ts";
import { authenticate, type Authenticator } from "../auth/tokens.ts";
import { authorizePath, authorizeResource } from "../auth/authorize.ts";
import { SelectorError } from "../selector.ts";
import { ApiError, errors } from "../types.ts";
import { json, statusResponse, throttledResponse } from "./codec.ts";
import { apiGroup, apiGroupList, apiResourceList, apiVersions, SERVER_VERSION } from "./discovery.ts";
import { serveResource, type ResourceContext, type Route } from "./resource.ts";

export interface HandlerContext extends ResourceContext, Omit<Authenticator, "tokens"> {
  /** Authorize every request by RBAC (otherwise only SelfSubjectAccessReviews ask). */
  enforceRbac: boolean;
  serverAddress(): string;
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

/** API requests being served now (the maxInflight fault's seats). */
const seatsOf = new WeakMap<object, { inflight: number }>();

export async function handle(ctx: HandlerContext, req: Request): Promise<Response> {
  const url = new URL(req.url);
  if (["/healthz", "/livez", "/readyz"].includes(url.pathname)) return new Response("ok");
  // Watches are long-running: priority and fairness does not hold a seat for their stream.
  if (url.searchParams.get("watch") === "true" || url.searchParams.get("watch") === "1") return serve(ctx, req, url);
  let seats = seatsOf.get(ctx.control);
  if (!seats) seatsOf.set(ctx.control, (seats = { inflight: 0 }));
  const seat = inflightFault(ctx.control, seats);
  if (seat instanceof Throttled) return throttledResponse(seat.retryAfterSeconds);
  try {
    return await serve(ctx, req, url);
  } finally {
    seat();
  }
}

async function serve(ctx: HandlerContext, req: Request, url: URL): Promise<Response> {
  try {
    const segments = url.pathname
      .split("/")
      .filter((s) => s !== "")
      .map(decodeURIComponent);
    await latencyFault(ctx.control);
    const user = authenticate(
      { adminTokens: ctx.adminTokens, certVerified: ctx.certVerified, tokens: ctx.api.tokens },
      req.headers.get("authorization"),
    );
    if (!user) return statusResponse(errors.unauthorized());
    const r = route(ctx.api, segments);
    if (ctx.enforceRbac) {
      const denied = r
        ? authorizeResource(ctx.api.rbac, user, req.method, r, url.searchParams)
        : authorizePath(ctx.api.rbac, user, req.method, url.pathname);
      if (denied) return statusResponse(denied);
    }
    if (url.pathname === "/version") return json(SERVER_VERSION);
    const discovery = serveDiscovery(ctx, segments, url, req);
    if (discovery) return discovery;
    const fault = requestFault(ctx.control);
    if (fault) return fault instanceof Throttled ? throttledResponse(fault.retryAfterSeconds) : statusResponse(fault);
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
  if (s[0] === "openapi" || url.pathname === "/swagger.json")
    return statusResponse(new ApiError(404, "NotFound", "the server could not find the requested resource"));
  return undefined;
}

function jsonOr404(body: object | undefined): Response {
  return body ? json(body) : statusResponse(new ApiError(404, "NotFound", "the server could not find the requested resource"));
}
