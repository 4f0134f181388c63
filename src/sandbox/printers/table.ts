// Server-side Table conversion (meta.k8s.io/v1 Table) for `kubectl get`, as kube-apiserver does it.
import { crdPrinter, defaultPrinter } from "./crd.ts";
import { builtinPrinter } from "./list.ts";
import type { Printer, Table, TableOptions, TableRow } from "./types.ts";
import { deepCopy } from "../types.ts";
import type { KubeObject, ResourceType } from "../types.ts";

// Server-side Table conversion (meta.k8s.io/v1 Table), as kube-apiserver does for
// `kubectl get`: the column definitions and cells of k8s.io/kubernetes/pkg/printers/internalversion
// for the built-in types, apiextensions' tableconvertor for custom resources, and the apiserver's
// default convertor (NAME, CREATED AT) for every other type.
//
// kube-apiserver always prints the wide form (priority-1 columns included); kubectl hides
// priority > 0 unless `-o wide`. Cells are strings, integers, booleans or null (kubectl prints null
// as a blank cell).
//
// This module holds the Accept negotiation, the Table builder and the choice of printer; the
// built-in printers are listed in list.ts (each module exports its own), their shared readers
// and columns are in cells.ts, the shapes in types.ts.

// ---------------------------------------------------------------------------------------------
// Content negotiation

/**
 * The Table version an Accept header asks for, or undefined when plain JSON comes first.
 * Clauses are tried by q (then order), as kube does; a clause with `as=` that the server cannot
 * serve (another kind, group or version, or an unknown parameter) is skipped.
 */
export function wantsTable(accept: string | null): "v1" | "v1beta1" | undefined {
  if (!accept) return undefined;
  // Clients send the same few headers on every request: each is parsed once (a bounded cache).
  if (negotiated.has(accept)) return negotiated.get(accept);
  const answer = negotiate(accept);
  if (negotiated.size >= NEGOTIATED_MAX) negotiated.clear();
  negotiated.set(accept, answer);
  return answer;
}

const negotiated = new Map<string, "v1" | "v1beta1" | undefined>();
const NEGOTIATED_MAX = 64;

function negotiate(accept: string): "v1" | "v1beta1" | undefined {
  const clauses = accept
    .split(",")
    .map((raw, index) => {
      const [type = "", ...paramParts] = raw.split(";").map((s) => s.trim());
      const params = new Map<string, string>();
      for (const p of paramParts) {
        const eq = p.indexOf("=");
        if (eq > 0)
          params.set(
            p.slice(0, eq).trim().toLowerCase(),
            p
              .slice(eq + 1)
              .trim()
              .replace(/^"(.*)"$/, "$1"),
          );
      }
      const q = params.has("q") ? Number(params.get("q")) : 1;
      params.delete("q");
      return { type: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((c) => c.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { type, params } of clauses) {
    if (type !== "application/json" && type !== "application/*" && type !== "*/*") continue;
    const unknown = [...params.keys()].some((k) => !["as", "g", "v", "pretty", "stream"].includes(k));
    if (unknown) continue;
    const as = params.get("as");
    if (as === undefined) return undefined;
    const v = params.get("v");
    if (as === "Table" && params.get("g") === "meta.k8s.io" && (v === "v1" || v === "v1beta1")) return v;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Table building

/** Converts objects of one type into a Table, as kube-apiserver answers `Accept: ...;as=Table`. */
export function toTable(type: ResourceType, objects: KubeObject[], opts: TableOptions): Table {
  const version = opts.tableVersion ?? "v1";
  const groupVersion = `meta.k8s.io/${version}`;
  const printer = printerFor(type);
  const includeObject = opts.includeObject ?? "Metadata";

  const rows = objects.map((obj): TableRow => {
    let object: TableRow["object"];
    if (includeObject === "Object") object = deepCopy(obj);
    else if (includeObject === "None") object = null;
    else object = { kind: "PartialObjectMetadata", apiVersion: groupVersion, metadata: deepCopy(obj.metadata ?? {}) };
    const row: TableRow = { cells: printer.cells(obj, opts.now), object };
    const conditions = printer.conditions?.(obj);
    if (conditions) row.conditions = conditions;
    return row;
  });

  const metadata: Table["metadata"] = {};
  const listMeta = opts.listMeta ?? (objects.length === 1 ? { resourceVersion: objects[0]?.metadata?.resourceVersion } : {});
  if (listMeta.resourceVersion) metadata.resourceVersion = listMeta.resourceVersion;
  if (listMeta.continue) metadata.continue = listMeta.continue;
  if (listMeta.remainingItemCount !== undefined) metadata.remainingItemCount = listMeta.remainingItemCount;

  return {
    kind: "Table",
    apiVersion: groupVersion,
    metadata,
    columnDefinitions: opts.noHeaders ? [] : printer.columns.map((c) => ({ ...c })),
    rows,
  };
}

/** The printer for a type: its CRD's columns, a built-in printer, or the default convertor. */
function printerFor(type: ResourceType): Printer {
  if (type.crd) return crdPrinter(type.crd.printerColumns);
  return builtinPrinter(type.group, type.plural) ?? defaultPrinter;
}
