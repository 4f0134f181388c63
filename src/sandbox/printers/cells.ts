// What the printers share: tolerant readers of untyped object fields, kube's formatting of labels,
// selectors and a few other cells, and the column definitions most resources print.
import { humanAge, humanDuration } from "./human-duration.ts";
import type { TableColumnDefinition } from "./types.ts";
import type { KubeObject } from "../types.ts";

// ---------------------------------------------------------------------------------------------
// Readers and cells

export type Rec = Record<string, unknown>;
export const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
export const rec = (v: unknown): Rec => (isRec(v) ? v : {});
export const recs = (v: unknown): Rec[] => (Array.isArray(v) ? v.map(rec) : []);
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string => (typeof v === "string" ? v : "");
export const int = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : 0);
export const has = (v: unknown): boolean => v !== undefined && v !== null;
export const timeMs = (v: unknown): number | undefined => {
  const t = typeof v === "string" && v ? Date.parse(v) : Number.NaN;
  return Number.isNaN(t) ? undefined : t;
};

export const nameOf = (o: KubeObject): string => o.metadata?.name ?? "";
export const ageOf = (o: KubeObject, now: Date): string => humanAge(o.metadata?.creationTimestamp, now);
/** translateTimestampSince: "<unknown>" for a missing time. */
export const since = (v: unknown, now: Date): string => {
  const t = timeMs(v);
  return t === undefined ? "<unknown>" : humanDuration(now.getTime() - t);
};

/** labels.FormatLabels: sorted k=v pairs, "<none>" when empty. */
export function formatLabels(labels: unknown): string {
  const entries = Object.entries(rec(labels)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length ? entries.map(([k, v]) => `${k}=${String(v)}`).join(",") : "<none>";
}

/** metav1.LabelSelectorAsSelector(s).String(): "" for nil or empty, "<invalid>" for a bad operator. */
export function formatSelector(selector: unknown): string {
  if (!isRec(selector)) return "";
  const reqs: { key: string; text: string }[] = [];
  for (const [k, v] of Object.entries(rec(selector.matchLabels))) reqs.push({ key: k, text: `${k}=${String(v)}` });
  for (const e of recs(selector.matchExpressions)) {
    const key = str(e.key);
    const values = list(e.values).map(String).sort();
    switch (e.operator) {
      case "In":
        reqs.push({ key, text: `${key} in (${values.join(",")})` });
        break;
      case "NotIn":
        reqs.push({ key, text: `${key} notin (${values.join(",")})` });
        break;
      case "Exists":
        reqs.push({ key, text: key });
        break;
      case "DoesNotExist":
        reqs.push({ key, text: `!${key}` });
        break;
      default:
        return "<invalid>";
    }
  }
  return reqs
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => r.text)
    .join(",");
}

/** metav1.FormatLabelSelector: like formatSelector, "<none>" when empty. */
export const formatLabelSelector = (selector: unknown): string => formatSelector(selector) || "<none>";

/** layoutContainerCells: comma-joined container names and images. */
export function containerCells(podSpec: unknown): [string, string] {
  const cs = recs(rec(podSpec).containers);
  return [cs.map((c) => str(c.name)).join(","), cs.map((c) => str(c.image)).join(",")];
}

/** net.JoinHostPort. */
export const joinHostPort = (host: string, port: unknown): string =>
  host.includes(":") ? `[${host}]:${int(port)}` : `${host}:${int(port)}`;

/** "a,b,c + 2 more..." after three items; `empty` when there are none. */
export function listWithMore(items: string[], count: number, max: number, empty: string): string {
  const ret = items.slice(0, max).join(",");
  if (count > max) return `${ret} + ${count - max} more...`;
  return ret === "" ? empty : ret;
}

/** An IntOrString as intstr.String() prints it. */
export const intOrString = (v: unknown): string => (typeof v === "number" ? String(Math.trunc(v)) : str(v));

// ---------------------------------------------------------------------------------------------
// Column definitions

export const NAME_DESC =
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
export const CREATED_DESC =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

export function col(
  name: string,
  type: string,
  description: string,
  extra: { priority?: number; format?: string } = {},
): TableColumnDefinition {
  return { name, type, format: extra.format ?? "", description, priority: extra.priority ?? 0 };
}
export const NAME = col("Name", "string", NAME_DESC, { format: "name" });
export const AGE = col("Age", "string", CREATED_DESC);
export const wide = (name: string, description: string, type = "string"): TableColumnDefinition =>
  col(name, type, description, { priority: 1 });
export const CONTAINERS = wide("Containers", "Names of each container in the template.");
export const IMAGES = wide("Images", "Images referenced by each container in the template.");
