// Built-in printers of the core group, pods aside (pods.ts):
// k8s.io/kubernetes/pkg/printers/internalversion/printers.go, wide form.
import {
  AGE,
  ageOf,
  col,
  formatLabels,
  has,
  int,
  isRec,
  joinHostPort,
  list,
  NAME,
  NAME_DESC,
  nameOf,
  rec,
  type Rec,
  recs,
  since,
  str,
  timeMs,
  wide,
} from "./cells.ts";
import type { KubeObject } from "../types.ts";
import type { Printer, PrinterEntry } from "./types.ts";

const namespaces: Printer = {
  columns: [NAME, col("Status", "string", "The status of the namespace"), AGE],
  cells: (o, now) => {
    const phase = str(rec(o.status).phase) || (o.metadata?.deletionTimestamp ? "Terminating" : "Active");
    return [nameOf(o), phase, ageOf(o, now)];
  },
};

const services: Printer = {
  columns: [
    NAME,
    col("Type", "string", "type determines how the Service is exposed."),
    col("Cluster-IP", "string", "clusterIP is the IP address of the service and is usually assigned randomly."),
    col(
      "External-IP",
      "string",
      "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.",
    ),
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
    return [
      nameOf(o),
      type,
      internalIP,
      serviceExternalIP(type, spec, rec(o.status)),
      ports || "<none>",
      ageOf(o, now),
      formatLabels(spec.selector),
    ];
  },
};

/** getServiceExternalIP, wide (no clipping of load-balancer addresses). */
function serviceExternalIP(type: string, spec: Rec, status: Rec): string {
  const externalIPs = list(spec.externalIPs).map(String);
  switch (type) {
    case "ClusterIP":
    case "NodePort":
      return externalIPs.length ? externalIPs.join(",") : "<none>";
    case "LoadBalancer": {
      const lb = [
        ...new Set(
          recs(rec(status.loadBalancer).ingress)
            .map((i) => str(i.ip) || str(i.hostname))
            .filter((s) => s !== ""),
        ),
      ].sort();
      if (externalIPs.length) return [...lb, ...externalIPs].join(",");
      return lb.length ? lb.join(",") : "<pending>";
    }
    case "ExternalName":
      return str(spec.externalName);
  }
  return "<unknown>";
}

const endpoints: Printer = {
  columns: [NAME, col("Endpoints", "string", "The set of all endpoints is the union of all subsets."), AGE],
  cells: (o, now) => [nameOf(o), formatEndpoints(o), ageOf(o, now)],
};

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

const secrets: Printer = {
  columns: [
    NAME,
    col("Type", "string", "Used to facilitate programmatic handling of secret data."),
    col("Data", "string", "Data contains the secret data."),
    AGE,
  ],
  cells: (o, now) => {
    const keys = new Set([...Object.keys(rec(o.data)), ...Object.keys(rec(o.stringData))]);
    return [nameOf(o), str(o.type) || "Opaque", keys.size, ageOf(o, now)];
  },
};

const configmaps: Printer = {
  columns: [NAME, col("Data", "string", "Data contains the configuration data."), AGE],
  cells: (o, now) => [nameOf(o), Object.keys(rec(o.data)).length + Object.keys(rec(o.binaryData)).length, ageOf(o, now)],
};

const serviceaccounts: Printer = {
  columns: [
    NAME,
    col(
      "Secrets",
      "string",
      "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.",
    ),
    AGE,
  ],
  cells: (o, now) => [nameOf(o), list(o.secrets).length, ageOf(o, now)],
};

const events: Printer = {
  columns: [
    col("Last Seen", "string", "The time at which the most recent occurrence of this event was recorded."),
    col("Type", "string", "Type of this event (Normal, Warning), new types could be added in the future"),
    col(
      "Reason",
      "string",
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    ),
    col("Object", "string", "The object that this event is about."),
    wide(
      "Subobject",
      "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.",
    ),
    wide("Source", "The component reporting this event. Should be a short machine understandable string."),
    col("Message", "string", "A human-readable description of the status of this operation."),
    wide("First Seen", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"),
    wide("Count", "The number of times this event has occurred."),
    col("Name", "string", NAME_DESC, { priority: 1, format: "name" }),
  ],
  cells: (o, now) => {
    const firstTimestamp =
      has(o.firstTimestamp) && timeMs(o.firstTimestamp) !== undefined ? since(o.firstTimestamp, now) : since(o.eventTime, now);
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
};

const nodes: Printer = {
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
      if (k.startsWith("node-role.kubernetes.io/") && k.length > "node-role.kubernetes.io/".length)
        roles.add(k.slice("node-role.kubernetes.io/".length));
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
};

/** The core group's printers (pods in pods.ts). */
export const CORE_PRINTERS: readonly PrinterEntry[] = [
  ["", "namespaces", namespaces],
  ["", "services", services],
  ["", "endpoints", endpoints],
  ["", "secrets", secrets],
  ["", "configmaps", configmaps],
  ["", "serviceaccounts", serviceaccounts],
  ["", "events", events],
  ["", "nodes", nodes],
];
