// GET /openapi/v2 as kube-openapi serves it: the document (v2.ts) built once per change of the served types, negotiated between JSON
// and gnostic protobuf, with an ETag and If-None-Match.
import { createHash } from "node:crypto";
import type { Registry } from "../resources.ts";
import type { ResourceType } from "../types.ts";
import { encodeGnostic, openapiV2Document, PROTOBUF_RETURNED } from "./v2.ts";

interface Served {
  types: ResourceType[];
  doc: ReturnType<typeof openapiV2Document>;
  json: string;
  etag: string;
  lastModified: string;
  proto?: Uint8Array;
}

const cache = new WeakMap<Registry, Served>();

const sameTypes = (a: readonly ResourceType[], b: readonly ResourceType[]) => a.length === b.length && a.every((t, i) => t === b[i]);

/** The document for the registry's current types, built once per change of them. */
function served(registry: Registry): Served {
  const types = registry.all();
  const hit = cache.get(registry);
  if (hit && sameTypes(hit.types, types)) return hit;
  const doc = openapiV2Document(types);
  const json = JSON.stringify(doc);
  const entry: Served = {
    types,
    doc,
    json,
    etag: createHash("sha512").update(json).digest("hex").toUpperCase(),
    lastModified: new Date().toUTCString(),
  };
  cache.set(registry, entry);
  return entry;
}

/** The encoded gnostic Document for the registry's current types (cached like the JSON). */
export function openapiV2Protobuf(registry: Registry): Uint8Array {
  const s = served(registry);
  s.proto ??= encodeGnostic(s.doc);
  return s.proto;
}

/** Media ranges of an Accept header, best first (q, then specificity), as goautoneg orders them. */
function acceptClauses(accept: string): { type: string; subtype: string }[] {
  return accept
    .split(",")
    .map((part, i) => {
      const [range = "", ...params] = part.trim().split(";");
      const [type = "", subtype = ""] = range.trim().toLowerCase().split("/");
      const qp = params.map((x) => x.trim()).find((x) => x.startsWith("q="));
      const q = qp ? Number(qp.slice(2)) : 1;
      return { type, subtype, q: Number.isFinite(q) ? q : 0, i };
    })
    .filter((c) => c.type !== "" && c.q > 0)
    .sort(
      (a, b) =>
        b.q - a.q || Number(a.type === "*") - Number(b.type === "*") || Number(a.subtype === "*") - Number(b.subtype === "*") || a.i - b.i,
    );
}

const OFFERS = [
  { subtype: "json", contentType: "application/json" },
  { subtype: "com.github.proto-openapi.spec.v2@v1.0+protobuf", contentType: PROTOBUF_RETURNED },
  { subtype: "com.github.proto-openapi.spec.v2.v1.0+protobuf", contentType: PROTOBUF_RETURNED },
] as const;

/**
 * GET /openapi/v2, negotiated as kube-openapi's handler does: JSON (also for a missing Accept or
 * `*\/*`) or gnostic protobuf, 406 otherwise; the ETag is the uppercase SHA-512 of the JSON for
 * both, and If-None-Match gets a 304.
 */
export function serveOpenapiV2(registry: Registry, req: Request): Response {
  const clauses = acceptClauses(req.headers.get("accept") || "*/*");
  const vary = { vary: "Accept, Accept-Encoding" };
  for (const clause of clauses) {
    const offer = OFFERS.find(
      (o) => (clause.type === "application" || clause.type === "*") && (clause.subtype === o.subtype || clause.subtype === "*"),
    );
    if (!offer) continue;
    const s = served(registry);
    const headers = { ...vary, "content-type": offer.contentType, etag: `"${s.etag}"`, "last-modified": s.lastModified };
    const inm = req.headers.get("if-none-match");
    if (inm?.split(",").some((e) => e.trim() === `"${s.etag}"` || e.trim() === "*")) return new Response(null, { status: 304, headers });
    const body = offer.subtype === "json" ? s.json : openapiV2Protobuf(registry);
    return new Response(body, { headers });
  }
  return new Response(null, { status: 406, headers: vary });
}
