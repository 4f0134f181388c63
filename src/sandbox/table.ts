// Server-side Table conversion (meta.k8s.io/v1 Table), as kube-apiserver does for
// `kubectl get`: the column definitions and cells of k8s.io/kubernetes/pkg/printers/internalversion
// for the built-in types, apiextensions' tableconvertor for custom resources, and the apiserver's
// default convertor (NAME, CREATED AT) for every other type.
//
// kube-apiserver always prints the wide form (priority-1 columns included); kubectl hides
// priority > 0 unless `-o wide`. Cells are strings, integers, booleans or null (kubectl prints null
// as a blank cell).
import { deepCopy } from "./types.ts";
import type { KubeObject, ObjectMeta, PrinterColumn, ResourceType } from "./types.ts";

export type Cell = string | number | boolean | null;

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface TableRow {
  cells: Cell[];
  conditions?: TableRowCondition[];
  object: KubeObject | PartialObjectMetadata | null;
}

export interface PartialObjectMetadata {
  apiVersion: string;
  kind: "PartialObjectMetadata";
  metadata: ObjectMeta;
}

export interface Table {
  kind: "Table";
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

export interface TableOptions {
  now: Date;
  /** What each row carries: PartialObjectMetadata (the default), the whole object, or null. */
  includeObject?: "None" | "Metadata" | "Object";
  /** The list's metadata; without it a single object's resourceVersion is used. */
  listMeta?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  tableVersion?: "v1" | "v1beta1";
  /** Leave out the column definitions (TableOptions.noHeaders; watch events after the first). */
  noHeaders?: boolean;
}

/** How one resource prints: its columns and, per object, one cell per column. */
export interface Printer {
  columns: TableColumnDefinition[];
  cells(obj: KubeObject, now: Date): Cell[];
  conditions?(obj: KubeObject): TableRowCondition[] | undefined;
}

// ---------------------------------------------------------------------------------------------
// Content negotiation

/**
 * The Table version an Accept header asks for, or undefined when plain JSON comes first.
 * Clauses are tried by q (then order), as kube does; a clause with `as=` that the server cannot
 * serve (another kind, group or version, or an unknown parameter) is skipped.
 */
export function wantsTable(accept: string | null): "v1" | "v1beta1" | undefined {
  if (!accept) return undefined;
  const clauses = accept
    .split(",")
    .map((raw, index) => {
      const [type = "", ...paramParts] = raw.split(";").map((s) => s.trim());
      const params = new Map<string, string>();
      for (const p of paramParts) {
        const eq = p.indexOf("=");
        if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1"));
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

const printers = new Map<string, Printer>();

/** Registers (or replaces) how objects of `group`/`plural` print. */
export function registerPrinter(group: string, plural: string, printer: Printer): void {
  printers.set(`${group}/${plural}`, printer);
}

/** The printer for a type: its CRD's columns, a built-in printer, or the default convertor. */
export function printerFor(type: ResourceType): Printer {
  if (type.crd) return crdPrinter(type.crd.printerColumns);
  return printers.get(`${type.group}/${type.plural}`) ?? defaultPrinter;
}

// ---------------------------------------------------------------------------------------------
// Durations and small readers

/** kubectl's duration.HumanDuration of `now - from`: 5s, 2m3s, 10m, 3h4m, 5d, 2y100d, ... */
export function humanAge(from: string | undefined, now: Date): string {
  if (!from) return "<unknown>";
  const t = Date.parse(from);
  if (Number.isNaN(t)) return "<invalid>";
  return humanDuration(now.getTime() - t);
}

/** duration.HumanDuration for a duration in milliseconds. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const y = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const rec = (v: unknown): Rec => (isRec(v) ? v : {});
const recs = (v: unknown): Rec[] => (Array.isArray(v) ? v.map(rec) : []);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const int = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : 0);
const has = (v: unknown): boolean => v !== undefined && v !== null;
const timeMs = (v: unknown): number | undefined => {
  const t = typeof v === "string" && v ? Date.parse(v) : Number.NaN;
  return Number.isNaN(t) ? undefined : t;
};

const nameOf = (o: KubeObject): string => o.metadata?.name ?? "";
const ageOf = (o: KubeObject, now: Date): string => humanAge(o.metadata?.creationTimestamp, now);
/** translateTimestampSince: "<unknown>" for a missing time. */
const since = (v: unknown, now: Date): string => {
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
const formatLabelSelector = (selector: unknown): string => formatSelector(selector) || "<none>";

/** layoutContainerCells: comma-joined container names and images. */
function containerCells(podSpec: unknown): [string, string] {
  const cs = recs(rec(podSpec).containers);
  return [cs.map((c) => str(c.name)).join(","), cs.map((c) => str(c.image)).join(",")];
}

/** net.JoinHostPort. */
const joinHostPort = (host: string, port: unknown): string => (host.includes(":") ? `[${host}]:${int(port)}` : `${host}:${int(port)}`);

/** "a,b,c + 2 more..." after three items; `empty` when there are none. */
function listWithMore(items: string[], count: number, max: number, empty: string): string {
  const ret = items.slice(0, max).join(",");
  if (count > max) return `${ret} + ${count - max} more...`;
  return ret === "" ? empty : ret;
}

/** An IntOrString as intstr.String() prints it. */
const intOrString = (v: unknown): string => (typeof v === "number" ? String(Math.trunc(v)) : str(v));

// ---------------------------------------------------------------------------------------------
// Column definitions

const NAME_DESC =
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const CREATED_DESC =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

function col(name: string, type: string, description: string, extra: { priority?: number; format?: string } = {}): TableColumnDefinition {
  return { name, type, format: extra.format ?? "", description, priority: extra.priority ?? 0 };
}
const NAME = col("Name", "string", NAME_DESC, { format: "name" });
const AGE = col("Age", "string", CREATED_DESC);
const wide = (name: string, description: string, type = "string"): TableColumnDefinition => col(name, type, description, { priority: 1 });
const CONTAINERS = wide("Containers", "Names of each container in the template.");
const IMAGES = wide("Images", "Images referenced by each container in the template.");

// ---------------------------------------------------------------------------------------------
// The default convertor (k8s.io/apiserver/pkg/registry/rest.defaultTableConvertor)

/** RFC3339 in UTC without fractional seconds, as Go's time.RFC3339 layout prints it. */
const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

const defaultPrinter: Printer = {
  columns: [NAME, col("Created At", "date", CREATED_DESC)],
  cells: (o) => {
    const t = timeMs(o.metadata?.creationTimestamp);
    return [nameOf(o), t === undefined ? "0001-01-01T00:00:00Z" : rfc3339(t)];
  },
};

// ---------------------------------------------------------------------------------------------
// Custom resources (apiextensions-apiserver's tableconvertor)

/** CRD columns when a version declares none (serveDefaultColumnsIfEmpty). */
const DEFAULT_CRD_COLUMNS: PrinterColumn[] = [{ name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp", description: CREATED_DESC }];

const crdPrinters = new WeakMap<PrinterColumn[], Printer>();

function crdPrinter(declared: PrinterColumn[]): Printer {
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
    if (isRec(v)) return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])]));
    return v;
  };
  return (JSON.stringify(sorted(value)) ?? "null").replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

// ---------------------------------------------------------------------------------------------
// Built-in printers (k8s.io/kubernetes/pkg/printers/internalversion/printers.go, wide form)

registerPrinter("", "namespaces", {
  columns: [NAME, col("Status", "string", "The status of the namespace"), AGE],
  cells: (o, now) => {
    const phase = str(rec(o.status).phase) || (o.metadata?.deletionTimestamp ? "Terminating" : "Active");
    return [nameOf(o), phase, ageOf(o, now)];
  },
});

registerPrinter("", "services", {
  columns: [
    NAME,
    col("Type", "string", "type determines how the Service is exposed."),
    col("Cluster-IP", "string", "clusterIP is the IP address of the service and is usually assigned randomly."),
    col("External-IP", "string", "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service."),
    col("Port(s)", "string", "The list of ports that are exposed by this service."),
    AGE,
    wide("Selector", "Route service traffic to pods with label keys and values matching this selector."),
  ],
  cells: (o, now) => {
    const spec = rec(o.spec);
    const type = str(spec.type) || "ClusterIP";
    const clusterIPs = list(spec.clusterIPs);
    const internalIP = str(clusterIPs[0]) || str(spec.clusterIP) || "<none>";
    const ports = recs(spec.ports)
      .map((p) => {
        const protocol = str(p.protocol) || "TCP";
        return int(p.nodePort) > 0 ? `${int(p.port)}:${int(p.nodePort)}/${protocol}` : `${int(p.port)}/${protocol}`;
      })
      .join(",");
    return [nameOf(o), type, internalIP, serviceExternalIP(type, spec, rec(o.status)), ports || "<none>", ageOf(o, now), formatLabels(spec.selector)];
  },
});

/** getServiceExternalIP, wide (no clipping of load-balancer addresses). */
function serviceExternalIP(type: string, spec: Rec, status: Rec): string {
  const externalIPs = list(spec.externalIPs).map(String);
  switch (type) {
    case "ClusterIP":
    case "NodePort":
      return externalIPs.length ? externalIPs.join(",") : "<none>";
    case "LoadBalancer": {
      const lb = [...new Set(recs(rec(status.loadBalancer).ingress).map((i) => str(i.ip) || str(i.hostname)).filter((s) => s !== ""))].sort();
      if (externalIPs.length) return [...lb, ...externalIPs].join(",");
      return lb.length ? lb.join(",") : "<pending>";
    }
    case "ExternalName":
      return str(spec.externalName);
  }
  return "<unknown>";
}

registerPrinter("", "endpoints", {
  columns: [NAME, col("Endpoints", "string", "The set of all endpoints is the union of all subsets."), AGE],
  cells: (o, now) => [nameOf(o), formatEndpoints(o), ageOf(o, now)],
});

/** formatEndpoints(endpoints, nil): the first three ip:port pairs, then "+ N more...". */
function formatEndpoints(o: KubeObject): string {
  const subsets = recs(o.subsets);
  if (subsets.length === 0) return "<none>";
  const max = 3;
  const items: string[] = [];
  let count = 0;
  for (const ss of subsets) {
    const addresses = recs(ss.addresses);
    const ports = recs(ss.ports);
    if (ports.length === 0) {
      count += addresses.length;
      for (const a of addresses) if (items.length < max) items.push(str(a.ip));
      continue;
    }
    for (const p of ports) {
      count += addresses.length;
      for (const a of addresses) if (items.length < max) items.push(joinHostPort(str(a.ip), p.port));
    }
  }
  const ret = items.join(",");
  return count > max ? `${ret} + ${count - max} more...` : ret;
}

const POD_SUCCEEDED: TableRowCondition[] = [{ type: "Completed", status: "True", reason: "Succeeded", message: "The pod has completed successfully." }];
const POD_FAILED: TableRowCondition[] = [{ type: "Completed", status: "True", reason: "Failed", message: "The pod failed." }];

registerPrinter("", "pods", {
  columns: [
    NAME,
    col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
    col("Status", "string", "The aggregate status of the containers in this pod."),
    col("Restarts", "string", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
    AGE,
    wide("IP", "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."),
    wide("Node", "NodeName indicates in which node this pod is scheduled."),
    wide("Nominated Node", "nominatedNodeName is set only when this pod preempts other pods on the node."),
    wide("Readiness Gates", "If specified, all readiness gates will be evaluated for pod readiness."),
  ],
  cells: podCells,
  conditions: (o) => {
    const phase = rec(o.status).phase;
    return phase === "Succeeded" ? POD_SUCCEEDED : phase === "Failed" ? POD_FAILED : undefined;
  },
});

const isRestartableInit = (c: Rec | undefined): boolean => c?.restartPolicy === "Always";
const finishedAt = (containerStatus: Rec): number | undefined => {
  const terminated = rec(containerStatus.lastState).terminated;
  return has(terminated) ? timeMs(rec(terminated).finishedAt) : undefined;
};

/** printPod: READY n/m, STATUS as kubectl derives it, RESTARTS "n (5m ago)", wide IP/NODE/... */
function podCells(pod: KubeObject, now: Date): Cell[] {
  const spec = rec(pod.spec);
  const status = rec(pod.status);
  const initContainers = recs(spec.initContainers);
  const conditions = recs(status.conditions);
  let restarts = 0;
  let restartableInitRestarts = 0;
  let totalContainers = recs(spec.containers).length;
  let readyContainers = 0;
  let lastRestart = 0;
  let lastRestartableInitRestart = 0;

  const phase = str(status.phase);
  let reason = str(status.reason) || phase;
  for (const c of conditions) if (c.type === "PodScheduled" && c.reason === "SchedulingGated") reason = "SchedulingGated";

  const initByName = new Map<string, Rec>();
  for (const c of initContainers) {
    initByName.set(str(c.name), c);
    if (isRestartableInit(c)) totalContainers++;
  }

  let initializing = false;
  const initStatuses = recs(status.initContainerStatuses);
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i]!;
    restarts += int(c.restartCount);
    const finished = finishedAt(c);
    if (finished !== undefined && finished > lastRestart) lastRestart = finished;
    const restartable = isRestartableInit(initByName.get(str(c.name)));
    if (restartable) {
      restartableInitRestarts += int(c.restartCount);
      if (finished !== undefined && finished > lastRestartableInitRestart) lastRestartableInitRestart = finished;
    }
    const state = rec(c.state);
    const terminated = has(state.terminated) ? rec(state.terminated) : undefined;
    const waiting = has(state.waiting) ? rec(state.waiting) : undefined;
    if (terminated && int(terminated.exitCode) === 0) continue;
    if (restartable && c.started === true) {
      if (c.ready === true) readyContainers++;
      continue;
    }
    if (terminated) {
      if (!str(terminated.reason)) reason = int(terminated.signal) !== 0 ? `Init:Signal:${int(terminated.signal)}` : `Init:ExitCode:${int(terminated.exitCode)}`;
      else reason = `Init:${str(terminated.reason)}`;
    } else if (waiting && str(waiting.reason) && waiting.reason !== "PodInitializing") {
      reason = `Init:${str(waiting.reason)}`;
    } else {
      reason = `Init:${i}/${initContainers.length}`;
    }
    initializing = true;
    break;
  }

  const initialized = conditions.some((c) => c.type === "Initialized" && c.status === "True");
  if (!initializing || initialized) {
    restarts = restartableInitRestarts;
    lastRestart = lastRestartableInitRestart;
    let hasRunning = false;
    const statuses = recs(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i]!;
      restarts += int(c.restartCount);
      const finished = finishedAt(c);
      if (finished !== undefined && finished > lastRestart) lastRestart = finished;
      const state = rec(c.state);
      const terminated = has(state.terminated) ? rec(state.terminated) : undefined;
      const waiting = has(state.waiting) ? rec(state.waiting) : undefined;
      if (waiting && str(waiting.reason)) reason = str(waiting.reason);
      else if (terminated && str(terminated.reason)) reason = str(terminated.reason);
      else if (terminated) reason = int(terminated.signal) !== 0 ? `Signal:${int(terminated.signal)}` : `ExitCode:${int(terminated.exitCode)}`;
      else if (c.ready === true && has(state.running)) {
        hasRunning = true;
        readyContainers++;
      }
    }
    if (reason === "Completed" && hasRunning) {
      reason = conditions.some((c) => c.type === "Ready" && c.status === "True") ? "Running" : "NotReady";
    }
  }

  if (pod.metadata?.deletionTimestamp && status.reason === "NodeLost") reason = "Unknown";
  else if (pod.metadata?.deletionTimestamp && phase !== "Succeeded" && phase !== "Failed") reason = "Terminating";

  const restartsText = restarts !== 0 && lastRestart !== 0 ? `${restarts} (${humanDuration(now.getTime() - lastRestart)} ago)` : String(restarts);

  const podIP = str(rec(list(status.podIPs)[0]).ip) || str(status.podIP) || "<none>";
  const readinessGates = recs(spec.readinessGates);
  let gates = "<none>";
  if (readinessGates.length > 0) {
    let trueConditions = 0;
    for (const g of readinessGates) {
      const c = conditions.find((c) => c.type === g.conditionType);
      if (c?.status === "True") trueConditions++;
    }
    gates = `${trueConditions}/${readinessGates.length}`;
  }
  return [
    nameOf(pod),
    `${readyContainers}/${totalContainers}`,
    reason,
    restartsText,
    ageOf(pod, now),
    podIP,
    str(spec.nodeName) || "<none>",
    str(status.nominatedNodeName) || "<none>",
    gates,
  ];
}

registerPrinter("", "secrets", {
  columns: [NAME, col("Type", "string", "Used to facilitate programmatic handling of secret data."), col("Data", "string", "Data contains the secret data."), AGE],
  cells: (o, now) => {
    const keys = new Set([...Object.keys(rec(o.data)), ...Object.keys(rec(o.stringData))]);
    return [nameOf(o), str(o.type) || "Opaque", keys.size, ageOf(o, now)];
  },
});

registerPrinter("", "configmaps", {
  columns: [NAME, col("Data", "string", "Data contains the configuration data."), AGE],
  cells: (o, now) => [nameOf(o), Object.keys(rec(o.data)).length + Object.keys(rec(o.binaryData)).length, ageOf(o, now)],
});

registerPrinter("", "serviceaccounts", {
  columns: [NAME, col("Secrets", "string", "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use."), AGE],
  cells: (o, now) => [nameOf(o), list(o.secrets).length, ageOf(o, now)],
});

registerPrinter("", "events", {
  columns: [
    col("Last Seen", "string", "The time at which the most recent occurrence of this event was recorded."),
    col("Type", "string", "Type of this event (Normal, Warning), new types could be added in the future"),
    col("Reason", "string", "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    col("Object", "string", "The object that this event is about."),
    wide("Subobject", "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement."),
    wide("Source", "The component reporting this event. Should be a short machine understandable string."),
    col("Message", "string", "A human-readable description of the status of this operation."),
    wide("First Seen", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"),
    wide("Count", "The number of times this event has occurred."),
    col("Name", "string", NAME_DESC, { priority: 1, format: "name" }),
  ],
  cells: (o, now) => {
    const firstTimestamp = has(o.firstTimestamp) && timeMs(o.firstTimestamp) !== undefined ? since(o.firstTimestamp, now) : since(o.eventTime, now);
    let lastTimestamp = has(o.lastTimestamp) && timeMs(o.lastTimestamp) !== undefined ? since(o.lastTimestamp, now) : firstTimestamp;
    let count = int(o.count);
    if (isRec(o.series)) {
      lastTimestamp = since(o.series.lastObservedTime, now);
      count = int(o.series.count);
    } else if (count === 0) count = 1;
    const involved = rec(o.involvedObject);
    const kind = str(involved.kind).toLowerCase();
    const target = str(involved.name) ? `${kind}/${str(involved.name)}` : kind;
    const source = rec(o.source);
    const component = str(source.component) || str(o.reportingController);
    const host = str(source.host) || str(o.reportingInstance);
    return [
      lastTimestamp,
      str(o.type),
      str(o.reason),
      target,
      str(involved.fieldPath),
      host ? `${component}, ${host}` : component,
      str(o.message).trim(),
      firstTimestamp,
      count,
      nameOf(o),
    ];
  },
});

registerPrinter("", "nodes", {
  columns: [
    NAME,
    col("Status", "string", "The status of the node"),
    col("Roles", "string", "The roles of the node"),
    AGE,
    col("Version", "string", "Kubelet Version reported by the node."),
    wide("Internal-IP", "List of addresses reachable to the node."),
    wide("External-IP", "List of addresses reachable to the node."),
    wide("OS-Image", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."),
    wide("Kernel-Version", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."),
    wide("Container-Runtime", "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2)."),
  ],
  cells: (o, now) => {
    const status = rec(o.status);
    const ready = recs(status.conditions).find((c) => c.type === "Ready");
    const states = ready ? [ready.status === "True" ? "Ready" : "NotReady"] : ["Unknown"];
    if (rec(o.spec).unschedulable === true) states.push("SchedulingDisabled");
    const roles = new Set<string>();
    for (const [k, v] of Object.entries(o.metadata?.labels ?? {})) {
      if (k.startsWith("node-role.kubernetes.io/") && k.length > "node-role.kubernetes.io/".length) roles.add(k.slice("node-role.kubernetes.io/".length));
      else if (k === "kubernetes.io/role" && v !== "") roles.add(v);
    }
    const info = rec(status.nodeInfo);
    const address = (type: string) => str(recs(status.addresses).find((a) => a.type === type)?.address) || "<none>";
    return [
      nameOf(o),
      states.join(","),
      [...roles].sort().join(",") || "<none>",
      ageOf(o, now),
      str(info.kubeletVersion),
      address("InternalIP"),
      address("ExternalIP"),
      str(info.osImage) || "<unknown>",
      str(info.kernelVersion) || "<unknown>",
      str(info.containerRuntimeVersion) || "<unknown>",
    ];
  },
});

registerPrinter("apps", "deployments", {
  columns: [
    NAME,
    col("Ready", "string", "Number of the pod with ready state"),
    col("Up-to-date", "string", "Total number of non-terminated pods targeted by this deployment that have the desired template spec."),
    col("Available", "string", "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment."),
    AGE,
    CONTAINERS,
    IMAGES,
    wide("Selector", "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment."),
  ],
  cells: (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const desired = has(spec.replicas) ? int(spec.replicas) : 1;
    const [names, images] = containerCells(rec(spec.template).spec);
    return [nameOf(o), `${int(status.readyReplicas)}/${desired}`, int(status.updatedReplicas), int(status.availableReplicas), ageOf(o, now), names, images, formatSelector(spec.selector)];
  },
});

registerPrinter("apps", "replicasets", {
  columns: [
    NAME,
    col("Desired", "integer", "Replicas is the number of desired pods."),
    col("Current", "integer", "Replicas is the most recently observed number of replicas."),
    col("Ready", "integer", "The number of ready replicas for this replica set."),
    AGE,
    CONTAINERS,
    IMAGES,
    wide("Selector", "Selector is a label query over pods that should match the replica count."),
  ],
  cells: (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const [names, images] = containerCells(rec(spec.template).spec);
    return [nameOf(o), has(spec.replicas) ? int(spec.replicas) : 1, int(status.replicas), int(status.readyReplicas), ageOf(o, now), names, images, formatLabelSelector(spec.selector)];
  },
});

registerPrinter("apps", "statefulsets", {
  columns: [NAME, col("Ready", "string", "Number of the pod with ready state"), AGE, CONTAINERS, IMAGES],
  cells: (o, now) => {
    const spec = rec(o.spec);
    const [names, images] = containerCells(rec(spec.template).spec);
    return [nameOf(o), `${int(rec(o.status).readyReplicas)}/${has(spec.replicas) ? int(spec.replicas) : 1}`, ageOf(o, now), names, images];
  },
});

registerPrinter("apps", "daemonsets", {
  columns: [
    NAME,
    col("Desired", "integer", "The total number of nodes that should be running the daemon pod."),
    col("Current", "integer", "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod."),
    col("Ready", "integer", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready."),
    col("Up-to-date", "integer", "The total number of nodes that are running updated daemon pod"),
    col("Available", "integer", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available."),
    col("Node Selector", "string", "NodeSelector is a selector which must be true for the pod to fit on a node."),
    AGE,
    CONTAINERS,
    IMAGES,
    wide("Selector", "A label query over pods that are managed by the daemon set."),
  ],
  cells: (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const podSpec = rec(rec(spec.template).spec);
    const [names, images] = containerCells(podSpec);
    return [
      nameOf(o),
      int(status.desiredNumberScheduled),
      int(status.currentNumberScheduled),
      int(status.numberReady),
      int(status.updatedNumberScheduled),
      int(status.numberAvailable),
      formatLabels(podSpec.nodeSelector),
      ageOf(o, now),
      names,
      images,
      formatLabelSelector(spec.selector),
    ];
  },
});

const roleBindingPrinter = (what: string): Printer => ({
  columns: [
    NAME,
    col("Role", "string", "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace."),
    AGE,
    wide("Users", `Users in the ${what}`),
    wide("Groups", `Groups in the ${what}`),
    wide("ServiceAccounts", `ServiceAccounts in the ${what}`),
  ],
  cells: (o, now) => {
    const roleRef = rec(o.roleRef);
    const users: string[] = [];
    const groups: string[] = [];
    const sas: string[] = [];
    for (const s of recs(o.subjects)) {
      if (s.kind === "ServiceAccount") sas.push(`${str(s.namespace)}/${str(s.name)}`);
      else if (s.kind === "User") users.push(str(s.name));
      else if (s.kind === "Group") groups.push(str(s.name));
    }
    return [nameOf(o), `${str(roleRef.kind)}/${str(roleRef.name)}`, ageOf(o, now), users.join(", "), groups.join(", "), sas.join(", ")];
  },
});
registerPrinter("rbac.authorization.k8s.io", "rolebindings", roleBindingPrinter("roleBinding"));
registerPrinter("rbac.authorization.k8s.io", "clusterrolebindings", roleBindingPrinter("clusterRoleBinding"));

registerPrinter("coordination.k8s.io", "leases", {
  columns: [NAME, col("Holder", "string", "holderIdentity contains the identity of the holder of a current lease."), AGE],
  cells: (o, now) => [nameOf(o), str(rec(o.spec).holderIdentity), ageOf(o, now)],
});

registerPrinter("discovery.k8s.io", "endpointslices", {
  columns: [
    NAME,
    col("AddressType", "string", "addressType specifies the type of address carried by this EndpointSlice."),
    col("Ports", "string", "ports specifies the list of network ports exposed by each endpoint in this slice."),
    col("Endpoints", "string", "endpoints is a list of unique endpoints in this slice."),
    AGE,
  ],
  cells: (o, now) => {
    const ports = recs(o.ports).map((p) => (has(p.port) ? String(int(p.port)) : has(p.name) ? str(p.name) : "*"));
    const addresses = recs(o.endpoints).flatMap((e) => list(e.addresses).map(String));
    return [nameOf(o), str(o.addressType), listWithMore(ports, ports.length, 3, "<unset>"), listWithMore(addresses, addresses.length, 3, "<unset>"), ageOf(o, now)];
  },
});

registerPrinter("policy", "poddisruptionbudgets", {
  columns: [
    NAME,
    col("Min Available", "string", "The minimum number of pods that must be available."),
    col("Max Unavailable", "string", "The maximum number of pods that may be unavailable."),
    col("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time."),
    AGE,
  ],
  cells: (o, now) => {
    const spec = rec(o.spec);
    return [
      nameOf(o),
      has(spec.minAvailable) ? intOrString(spec.minAvailable) : "N/A",
      has(spec.maxUnavailable) ? intOrString(spec.maxUnavailable) : "N/A",
      int(rec(o.status).disruptionsAllowed),
      ageOf(o, now),
    ];
  },
});

registerPrinter("batch", "jobs", {
  columns: [
    NAME,
    col("Status", "string", "Status of the job."),
    col("Completions", "string", "The number of pods which reached phase Succeeded."),
    col("Duration", "string", "Time required to complete the job."),
    AGE,
    CONTAINERS,
    IMAGES,
    wide("Selector", "A label query over pods that should match the pod count."),
  ],
  cells: (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const succeeded = int(status.succeeded);
    let completions: string;
    if (has(spec.completions)) completions = `${succeeded}/${int(spec.completions)}`;
    else completions = int(spec.parallelism) > 1 ? `${succeeded}/1 of ${int(spec.parallelism)}` : `${succeeded}/1`;
    const start = timeMs(status.startTime);
    const end = timeMs(status.completionTime);
    const duration = start === undefined ? "" : humanDuration((end ?? now.getTime()) - start);
    const conditions = recs(status.conditions);
    const cond = (type: string) => conditions.find((c) => c.type === type)?.status === "True";
    const state = cond("Complete")
      ? "Complete"
      : cond("Failed")
        ? "Failed"
        : o.metadata?.deletionTimestamp
          ? "Terminating"
          : cond("Suspended")
            ? "Suspended"
            : cond("FailureTarget")
              ? "FailureTarget"
              : "Running";
    const [names, images] = containerCells(rec(spec.template).spec);
    return [nameOf(o), state, completions, duration, ageOf(o, now), names, images, formatLabelSelector(spec.selector)];
  },
});

// roles, clusterroles and customresourcedefinitions use the default convertor (NAME, CREATED AT)
// in kube-apiserver too, so they need no entry here.

// ---------------------------------------------------------------------------------------------
// JSONPath (the subset of k8s.io/client-go/util/jsonpath that printer columns use)

/** A path that could not be parsed. */
export class JsonPathError extends Error {
  constructor(path: string, why: string) {
    super(`invalid JSONPath ${JSON.stringify(path)}: ${why}`);
    this.name = "JsonPathError";
  }
}

type Operand = { kind: "literal"; value: string | number | boolean | null } | { kind: "path"; root: "@" | "$"; segs: Segment[] };
type Segment =
  | { t: "field"; name: string }
  | { t: "recursive" }
  | { t: "wildcard" }
  | { t: "union"; items: (number | string)[] }
  | { t: "slice"; start?: number; end?: number; step?: number }
  | { t: "filter"; left: Operand & { kind: "path" }; op?: "==" | "!=" | "<" | "<=" | ">" | ">="; right?: Operand };

/** A parsed path, reusable across objects. */
export interface JsonPath {
  source: string;
  segs: Segment[];
}

const FIELD_END = new Set([".", "[", "]", "(", ")", ",", " ", "\t", "=", "!", "<", ">", "&", "|", "{", "}"]);

/**
 * Parses a JSONPath as CRD printer columns write it: `.spec.x`, `{.spec.x}`, `$.spec.x`,
 * `..name`, `.*`, `[0]`, `[-1]`, `[1:3]`, `[*]`, `['a.b']`, `[0,2]`, `[?(@.type=="Ready")]`,
 * `[?(@.port > 80)]`, `[?(@.name)]`, and `\.` for a dot inside a field name.
 */
export function parseJsonPath(path: string): JsonPath {
  let s = path.trim();
  if (s.startsWith("{") && s.endsWith("}")) s = s.slice(1, -1).trim();
  const p = new PathParser(path, s);
  if (p.peek() === "$") p.i++;
  const segs = p.segments(false);
  if (p.i < s.length) throw new JsonPathError(path, `unexpected ${JSON.stringify(s[p.i])} at ${p.i}`);
  return { source: path, segs };
}

class PathParser {
  i = 0;
  constructor(
    private readonly original: string,
    private readonly s: string,
  ) {}

  peek(offset = 0): string | undefined {
    return this.s[this.i + offset];
  }

  fail(why: string): never {
    throw new JsonPathError(this.original, why);
  }

  /** Segments until the end, or (inside a filter) until an operator, space or ')'. */
  segments(inFilter: boolean): Segment[] {
    const segs: Segment[] = [];
    while (this.i < this.s.length) {
      const c = this.peek();
      if (c === ".") {
        if (this.peek(1) === ".") {
          this.i += 2;
          segs.push({ t: "recursive" });
          if (this.peek() === "[") continue;
        } else {
          this.i++;
          if (this.i >= this.s.length || (inFilter && FIELD_END.has(this.peek()!))) continue; // "." alone: the current node
        }
        if (this.peek() === "*") {
          this.i++;
          segs.push({ t: "wildcard" });
        } else {
          const name = this.field();
          if (name === "") this.fail(`expected a field name at ${this.i}`);
          segs.push({ t: "field", name });
        }
      } else if (c === "[") {
        segs.push(this.bracket());
      } else if (inFilter) {
        break;
      } else {
        this.fail(`unexpected ${JSON.stringify(c)} at ${this.i}; a path starts with "."`);
      }
    }
    return segs;
  }

  field(): string {
    let name = "";
    while (this.i < this.s.length) {
      const c = this.s[this.i]!;
      if (c === "\\" && this.i + 1 < this.s.length) {
        name += this.s[this.i + 1];
        this.i += 2;
        continue;
      }
      if (FIELD_END.has(c)) break;
      name += c;
      this.i++;
    }
    return name;
  }

  bracket(): Segment {
    this.i++; // [
    this.skipSpace();
    if (this.peek() === "?") {
      this.i++;
      this.skipSpace();
      if (this.peek() !== "(") this.fail(`expected "(" after "?" at ${this.i}`);
      this.i++;
      const seg = this.filter();
      this.skipSpace();
      if (this.peek() !== ")") this.fail(`expected ")" at ${this.i}`);
      this.i++;
      this.expectClose();
      return seg;
    }
    if (this.peek() === "*") {
      this.i++;
      this.expectClose();
      return { t: "wildcard" };
    }
    // slice or union
    const items: (number | string | undefined)[] = [];
    const seps: string[] = [];
    for (;;) {
      this.skipSpace();
      const c = this.peek();
      if (c === "'" || c === '"') items.push(this.quoted());
      else if (c !== undefined && /[-+0-9]/.test(c)) items.push(this.number(true) as number);
      else items.push(undefined);
      this.skipSpace();
      const sep = this.peek();
      if (sep === "," || sep === ":") {
        seps.push(sep);
        this.i++;
        continue;
      }
      break;
    }
    this.expectClose();
    if (seps.includes(":")) {
      if (seps.includes(",") || items.length > 3 || items.some((v) => typeof v === "string")) this.fail("bad slice");
      const [start, end, step] = items as (number | undefined)[];
      if (step !== undefined && step <= 0) this.fail("slice step must be positive");
      return { t: "slice", start, end, step };
    }
    if (items.some((v) => v === undefined)) this.fail("empty subscript");
    return { t: "union", items: items as (number | string)[] };
  }

  filter(): Segment {
    this.skipSpace();
    const left = this.operand();
    if (left.kind !== "path") this.fail("a filter must start with @ or $");
    this.skipSpace();
    const op = ["==", "!=", "<=", ">=", "<", ">"].find((o) => this.s.startsWith(o, this.i)) as "==" | "!=" | "<" | "<=" | ">" | ">=" | undefined;
    if (!op) return { t: "filter", left };
    this.i += op.length;
    this.skipSpace();
    return { t: "filter", left, op, right: this.operand() };
  }

  operand(): Operand {
    const c = this.peek();
    if (c === "@" || c === "$") {
      this.i++;
      return { kind: "path", root: c, segs: this.segments(true) };
    }
    if (c === "'" || c === '"') return { kind: "literal", value: this.quoted() };
    if (c !== undefined && /[-+0-9]/.test(c)) return { kind: "literal", value: this.number(false) };
    for (const [word, value] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return { kind: "literal", value };
      }
    }
    return this.fail(`unexpected ${JSON.stringify(c ?? "end")} in filter at ${this.i}`);
  }

  quoted(): string {
    const q = this.s[this.i++];
    let out = "";
    while (this.i < this.s.length && this.s[this.i] !== q) {
      if (this.s[this.i] === "\\" && this.i + 1 < this.s.length) this.i++;
      out += this.s[this.i++];
    }
    if (this.i >= this.s.length) this.fail("unterminated string");
    this.i++;
    return out;
  }

  number(integer: boolean): number {
    const m = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?/.exec(this.s.slice(this.i));
    if (!m) this.fail(`expected a number at ${this.i}`);
    const value = Number(m[0]);
    if (integer && !Number.isInteger(value)) this.fail(`expected an integer at ${this.i}`);
    this.i += m[0].length;
    return value;
  }

  skipSpace(): void {
    while (this.peek() === " " || this.peek() === "\t") this.i++;
  }

  expectClose(): void {
    this.skipSpace();
    if (this.peek() !== "]") this.fail(`expected "]" at ${this.i}`);
    this.i++;
  }
}

/**
 * The first value `path` selects in `obj`, or undefined when it selects nothing — what a CRD
 * printer column shows (kube prints only the first match, so `.spec.ports[*].port` gives the
 * first port). Throws JsonPathError for a path that does not parse.
 */
export function evalJsonPath(obj: unknown, path: string): unknown {
  return evalParsed(obj, parseJsonPath(path))[0];
}

/** Every value `path` selects in `obj`, in document order. */
export function evalJsonPathAll(obj: unknown, path: string): unknown[] {
  return evalParsed(obj, parseJsonPath(path));
}

function evalParsed(root: unknown, path: JsonPath): unknown[] {
  return walk([root], path.segs, root);
}

function walk(start: unknown[], segs: Segment[], root: unknown): unknown[] {
  let cur = start;
  for (const seg of segs) {
    cur = seg.t === "recursive" ? cur.flatMap(selfAndDescendants) : cur.flatMap((v) => step(v, seg, root));
  }
  return cur;
}

function selfAndDescendants(v: unknown): unknown[] {
  const out: unknown[] = [v];
  if (Array.isArray(v)) for (const x of v) out.push(...selfAndDescendants(x));
  else if (isRec(v)) for (const x of Object.values(v)) out.push(...selfAndDescendants(x));
  return out;
}

function step(v: unknown, seg: Exclude<Segment, { t: "recursive" }>, root: unknown): unknown[] {
  switch (seg.t) {
    case "field":
      return isRec(v) && Object.hasOwn(v, seg.name) ? [v[seg.name]] : [];
    case "wildcard":
      return Array.isArray(v) ? v : isRec(v) ? Object.values(v) : [];
    case "union": {
      const out: unknown[] = [];
      for (const item of seg.items) {
        if (typeof item === "number" && Array.isArray(v)) {
          const idx = item < 0 ? v.length + item : item;
          if (idx >= 0 && idx < v.length) out.push(v[idx]);
        } else if (typeof item === "string" && isRec(v) && Object.hasOwn(v, item)) {
          out.push(v[item]);
        }
      }
      return out;
    }
    case "slice": {
      if (!Array.isArray(v)) return [];
      const n = v.length;
      const norm = (x: number | undefined, dflt: number) => (x === undefined ? dflt : x < 0 ? Math.max(0, n + x) : Math.min(n, x));
      const start = norm(seg.start, 0);
      const end = norm(seg.end, n);
      const out: unknown[] = [];
      for (let i = start; i < end; i += seg.step ?? 1) out.push(v[i]);
      return out;
    }
    case "filter": {
      if (!Array.isArray(v)) return [];
      return v.filter((el) => {
        const lefts = operandValues(seg.left, el, root);
        if (!seg.op) return lefts.length > 0;
        if (lefts.length !== 1) return false;
        const rights = operandValues(seg.right!, el, root);
        if (rights.length !== 1) return false;
        return compare(lefts[0], seg.op, rights[0]);
      });
    }
  }
}

function operandValues(o: Operand, current: unknown, root: unknown): unknown[] {
  if (o.kind === "literal") return [o.value];
  return walk([o.root === "@" ? current : root], o.segs, root);
}

function compare(a: unknown, op: "==" | "!=" | "<" | "<=" | ">" | ">=", b: unknown): boolean {
  switch (op) {
    case "==":
      return a === b;
    case "!=":
      return a !== b;
  }
  const ordered = (typeof a === "number" && typeof b === "number") || (typeof a === "string" && typeof b === "string");
  if (!ordered) return false;
  const x = a as number | string;
  const y = b as number | string;
  return op === "<" ? x < y : op === "<=" ? x <= y : op === ">" ? x > y : x >= y;
}
