// The printers of types without a built-in one: the apiserver's default convertor, and the
// columns a CustomResourceDefinition declares.
import { humanDuration } from "./human-duration.ts";
import { evalParsed, parseJsonPath } from "./jsonpath.ts";
import { col, CREATED_DESC, isRec, NAME, nameOf, timeMs } from "./cells.ts";
import type { Cell, Printer } from "./types.ts";
import type { PrinterColumn } from "../types.ts";

// ---------------------------------------------------------------------------------------------
// The default convertor (k8s.io/apiserver/pkg/registry/rest.defaultTableConvertor)

/** RFC3339 in UTC without fractional seconds, as Go's time.RFC3339 layout prints it. */
const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

export const defaultPrinter: Printer = {
  columns: [NAME, col("Created At", "date", CREATED_DESC)],
  cells: (o) => {
    const t = timeMs(o.metadata?.creationTimestamp);
    return [nameOf(o), t === undefined ? "0001-01-01T00:00:00Z" : rfc3339(t)];
  },
};

// ---------------------------------------------------------------------------------------------
// Custom resources (apiextensions-apiserver's tableconvertor)

/** CRD columns when a version declares none (serveDefaultColumnsIfEmpty). */
const DEFAULT_CRD_COLUMNS: PrinterColumn[] = [
  { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp", description: CREATED_DESC },
];

const crdPrinters = new WeakMap<PrinterColumn[], Printer>();

export function crdPrinter(declared: PrinterColumn[]): Printer {
  const cached = crdPrinters.get(declared);
  if (cached) return cached;
  const columns = declared.length > 0 ? declared : DEFAULT_CRD_COLUMNS;
  const paths = columns.map((c) => {
    try {
      return parseJsonPath(c.jsonPath);
    } catch {
      return undefined; // kube refuses such a CRD; print nothing rather than fail the list
    }
  });
  const printer: Printer = {
    columns: [
      NAME,
      ...columns.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? "",
        description: c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
        priority: c.priority ?? 0,
      })),
    ],
    cells: (o, now) => [
      nameOf(o),
      ...columns.map((c, i) => {
        const path = paths[i];
        if (!path) return null;
        let results: unknown[];
        try {
          results = evalParsed(o, path);
        } catch {
          return null;
        }
        if (results.length === 0) return null;
        return crdCell(c.type, results[0], now);
      }),
    ],
  };
  crdPrinters.set(declared, printer);
  return printer;
}

/** cellForJSONValue, plus jsonpath's PrintResults for string columns. */
function crdCell(type: string, value: unknown, now: Date): Cell {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "string":
      return goText(value);
    case "integer":
      return typeof value === "number" ? Math.trunc(value) : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "date": {
      if (typeof value !== "string") return null;
      if (value === "" || value === "null") return "<unknown>";
      const t = Date.parse(value);
      return Number.isNaN(t) || !/^\d{4}-\d{2}-\d{2}T/.test(value) ? "<invalid>" : humanDuration(now.getTime() - t);
    }
  }
  return null;
}

/** How Go's jsonpath prints one value: text for scalars, compact JSON for maps and slices. */
function goText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number") return goNumber(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  return goJson(value);
}

/**
 * fmt.Print of a decoded JSON number: int64 as an integer, float64 as %v, i.e. strconv's shortest
 * %g, which switches to an exponent below 1e-4 and from 1e6 up (1234567.5 → "1.2345675e+06").
 */
function goNumber(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 2 ** 63) return BigInt(v).toString();
  if (!Number.isFinite(v)) return v > 0 ? "+Inf" : v < 0 ? "-Inf" : "NaN";
  const [mant = "", expText = "0"] = v.toExponential().split("e");
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) return `${mant}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  return String(v);
}

/** encoding/json's Marshal: map keys sorted, <, > and & escaped. */
function goJson(value: unknown): string {
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (isRec(v))
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sorted(v[k])]),
      );
    return v;
  };
  return (JSON.stringify(sorted(value)) ?? "null").replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
