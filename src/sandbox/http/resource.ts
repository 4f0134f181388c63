// One resource's verbs over HTTP: get, list (paged, as a Table when asked), watch, create,
// update, patch and delete, with their query parameters (dryRun, fieldManager, fieldValidation,
// labelSelector, fieldSelector, limit/continue, ...), answered through the Api.
import type { FieldValidation } from "../validation/builtin.ts";
import type { Api } from "../api.ts";
import { conflictFault, historyFault, laggingWatchFault, type SandboxControl } from "../faults.ts";
import { patchTypeFromContentType } from "../patch/patch.ts";
import { decodeKubeProtobuf, PROTOBUF_CONTENT_TYPE } from "../protobuf/decode.ts";
import type { UserInfo } from "../auth/rbac.ts";
import { parseFieldSelector, parseLabelSelector } from "../selector.ts";
import { toTable, wantsTable } from "../printers/table.ts";
import { ApiError, apiVersionOf, errors, type KubeObject, type ResourceType } from "../types.ts";
import { json, parseBody, readBody, statusResponse, warningHeaders } from "./codec.ts";
import { tooLargeResourceVersion, waitForResourceVersion, type WatchStreams } from "./watch.ts";

/** What serving a resource needs of the server. */
export interface ResourceContext {
  api: Api;
  watches: WatchStreams;
  /** Called on watch requests so Bun's idle timeout does not cut a quiet stream. */
  keepOpen(req: Request): void;
  /** The faults to apply (conflicts on writes, forgotten history). */
  control: Pick<SandboxControl, "faults" | "injected" | "served">;
  /** How long a list at a resourceVersion not reached yet waits for it (watch.ts TOO_LARGE_WAIT_MS). */
  tooLargeWaitMs: number;
}

export interface Route {
  type: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
}

function fieldValidationOf(q: URLSearchParams): FieldValidation {
  const v = q.get("fieldValidation");
  if (v === null || v === "") return "Warn"; // kube-apiserver's default since 1.23
  if (v !== "Strict" && v !== "Warn" && v !== "Ignore")
    throw errors.badRequest(`fieldValidation must be one of Strict, Warn or Ignore, got "${v}"`);
  return v;
}

function dryRunOf(q: URLSearchParams): boolean {
  const v = q.getAll("dryRun");
  if (v.some((x) => x !== "All")) throw errors.badRequest(`unsupported dryRun value: only "All" is allowed`);
  return v.length > 0;
}

/** Lists omit each item's apiVersion and kind for built-in types, as kube-apiserver does. */
function listItem(type: ResourceType, obj: KubeObject): KubeObject {
  if (type.crd) return obj;
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return rest as KubeObject;
}

export async function serveResource(ctx: ResourceContext, req: Request, url: URL, r: Route, user: UserInfo): Promise<Response> {
  const { api } = ctx;
  const q = url.searchParams;
  const { type, namespace, name, subresource } = r;
  if (subresource !== undefined && !(subresource === "status" && type.subresources.status)) {
    return statusResponse(new ApiError(404, "NotFound", "the server could not find the requested resource"));
  }
  const table = wantsTable(req.headers.get("accept"));
  const method = req.method.toUpperCase();
  const fieldManager = q.get("fieldManager") ?? undefined;
  const render = (obj: KubeObject) =>
    table
      ? toTable(type, [obj], {
          now: new Date(),
          tableVersion: table,
          includeObject: (q.get("includeObject") as "Object" | "Metadata" | "None" | null) ?? undefined,
        })
      : obj;

  if (method === "GET" && name === undefined) {
    const labels = parseLabelSelector(q.get("labelSelector") ?? "");
    const fields = parseFieldSelector(q.get("fieldSelector") ?? "");
    for (const f of fields) {
      if (
        f.field !== "metadata.name" &&
        f.field !== "metadata.namespace" &&
        !(type.kind === "Secret" && f.field === "type") &&
        !(type.kind === "Event" && f.field.startsWith("involvedObject."))
      ) {
        throw errors.badRequest(`"${f.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
      }
    }
    const filter = { namespace: type.namespaced ? namespace : undefined, labels, fields };
    if (q.get("resourceVersionMatch") && !q.get("resourceVersion")) {
      throw errors.invalid("ListOptions", "", [
        {
          field: "resourceVersionMatch",
          reason: "FieldValueForbidden",
          message: "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
        },
      ]);
    }
    const watching = q.get("watch") === "true" || q.get("watch") === "1";
    // Where kube-apiserver answers 410 for a history it no longer has: a watch from a resourceVersion, a list at exactly one.
    const match = q.get("resourceVersionMatch");
    const gone = historyFault(
      ctx.control,
      q.get("resourceVersion"),
      api.store.resourceVersion,
      watching || match === "Exact" || (!match && !!q.get("limit")),
    );
    if (gone && !watching) throw gone;
    let expired = watching ? (gone ?? laggingWatchFault(ctx.control, q.get("resourceVersion"))) : undefined;
    // A watch-list (sendInitialEvents) from a resourceVersion not reached waits for it as a list
    // does, then gets kube's 504 as its one ERROR event (cacher.go: waitUntilWatchCacheFreshAndForceAllEvents).
    const watchListRv = Number(q.get("resourceVersion") ?? "");
    if (
      watching &&
      !expired &&
      q.get("sendInitialEvents") === "true" &&
      Number.isInteger(watchListRv) &&
      watchListRv > 0 &&
      !(await waitForResourceVersion(api.store, watchListRv, ctx.tooLargeWaitMs))
    ) {
      expired = tooLargeResourceVersion(watchListRv, api.store.resourceVersion);
    }
    if (watching) {
      ctx.control.served.watches++;
      ctx.keepOpen(req);
      const timeout = q.get("timeoutSeconds");
      const body = ctx.watches.stream(
        {
          type,
          ...filter,
          resourceVersion: q.get("resourceVersion") ?? undefined,
          bookmarks: q.get("allowWatchBookmarks") === "true",
          timeoutSeconds: timeout ? Number(timeout) : undefined,
          sendInitialEvents: q.get("sendInitialEvents") === "true",
          render: (o) => render(api.served(type, o)),
          ...(!table && { shareKey: `${type.group}/${type.version}/${type.plural}` }),
          ...(expired && { expired }),
        },
        req.signal,
      );
      return new Response(body, { headers: { "content-type": "application/json", "transfer-encoding": "chunked" } });
    }
    const listRv = Number(q.get("resourceVersion") ?? "");
    if (Number.isInteger(listRv) && listRv > 0 && !(await waitForResourceVersion(api.store, listRv, ctx.tooLargeWaitMs))) {
      throw tooLargeResourceVersion(listRv, api.store.resourceVersion);
    }
    ctx.control.served.lists++;
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
    const conflict = conflictFault(ctx.control, type, name, body?.metadata?.resourceVersion);
    if (conflict) throw conflict;
    const result = api.update(type, namespace, name, body, {
      dryRun,
      fieldManager,
      fieldValidation,
      subresource: subresource as "status" | undefined,
    });
    return json(result.object, 200, warningHeaders(result.warnings));
  }
  if (method === "PATCH" && name !== undefined) {
    const patchType = patchTypeFromContentType(contentType);
    if (!patchType)
      throw errors.unsupportedMediaType(
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
      );
    const body = parseBody(await req.text(), patchType === "apply" ? "yaml" : "json");
    const conflict = conflictFault(ctx.control, type, name, patchResourceVersion(body));
    if (conflict) throw conflict;
    const force = q.get("force") === "true";
    const result = api.patch(type, namespace, name, patchType, body, {
      dryRun,
      fieldManager,
      fieldValidation,
      subresource: subresource as "status" | undefined,
      force,
    });
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
    const conflict = name === undefined ? undefined : conflictFault(ctx.control, type, name, opts.preconditions?.resourceVersion);
    if (conflict) throw conflict;
    if (name === undefined) {
      const labels = parseLabelSelector(q.get("labelSelector") ?? "");
      const fields = parseFieldSelector(q.get("fieldSelector") ?? "");
      const gone = api.deleteCollection(type, { namespace: type.namespaced ? namespace : undefined, labels, fields }, { dryRun: dry });
      return json({
        kind: type.listKind,
        apiVersion: apiVersionOf(type),
        metadata: { resourceVersion: api.store.resourceVersion },
        items: gone.map((o) => listItem(type, o)),
      });
    }
    const gone = api.delete(type, namespace, name, { dryRun: dry, preconditions: opts.preconditions });
    if (type.crd || type.kind === "Namespace")
      return json(type.kind === "Namespace" ? { ...gone, status: { phase: "Terminating" } } : gone);
    return json({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { name, group: type.group || undefined, kind: type.plural, uid: gone.metadata.uid },
    });
  }
  return statusResponse(errors.methodNotAllowed(`the server does not allow this method on the requested resource`));
}

/** The resourceVersion a patch carries: metadata.resourceVersion of a merge or apply patch, or a JSON patch's test/replace of it. */
function patchResourceVersion(body: unknown): unknown {
  if (Array.isArray(body))
    return (body as { path?: string; value?: unknown }[]).find((op) => op?.path === "/metadata/resourceVersion")?.value;
  return (body as { metadata?: { resourceVersion?: unknown } } | null)?.metadata?.resourceVersion;
}

/** A list, paged with limit/continue (the continue token carries the next key). */
function listResponse(
  ctx: ResourceContext,
  type: ResourceType,
  filter: Parameters<Api["list"]>[1],
  q: URLSearchParams,
  table: "v1" | "v1beta1" | undefined,
): Response {
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
    return json(
      toTable(type, items, {
        now: new Date(),
        includeObject,
        listMeta: meta as { resourceVersion?: string; continue?: string },
        tableVersion: table,
      }),
    );
  }
  return json({ kind: type.listKind, apiVersion: apiVersionOf(type), metadata: meta, items: items.map((o) => listItem(type, o)) });
}
