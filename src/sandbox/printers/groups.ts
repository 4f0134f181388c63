// Built-in printers of the named API groups: apps, batch, rbac, coordination, discovery and policy
// (k8s.io/kubernetes/pkg/printers/internalversion/printers.go, wide form).
import { humanDuration } from "./human-duration.ts";
import {
  AGE,
  ageOf,
  col,
  CONTAINERS,
  containerCells,
  formatLabels,
  formatLabelSelector,
  formatSelector,
  has,
  IMAGES,
  int,
  intOrString,
  list,
  listWithMore,
  NAME,
  nameOf,
  rec,
  recs,
  str,
  timeMs,
  wide,
} from "./cells.ts";
import type { Printer, PrinterEntry } from "./types.ts";

const deployments: Printer = {
  columns: [
    NAME,
    col("Ready", "string", "Number of the pod with ready state"),
    col("Up-to-date", "string", "Total number of non-terminated pods targeted by this deployment that have the desired template spec."),
    col("Available", "string", "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment."),
    AGE,
    CONTAINERS,
    IMAGES,
    wide(
      "Selector",
      "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.",
    ),
  ],
  cells: (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const desired = has(spec.replicas) ? int(spec.replicas) : 1;
    const [names, images] = containerCells(rec(spec.template).spec);
    return [
      nameOf(o),
      `${int(status.readyReplicas)}/${desired}`,
      int(status.updatedReplicas),
      int(status.availableReplicas),
      ageOf(o, now),
      names,
      images,
      formatSelector(spec.selector),
    ];
  },
};

const replicasets: Printer = {
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
    return [
      nameOf(o),
      has(spec.replicas) ? int(spec.replicas) : 1,
      int(status.replicas),
      int(status.readyReplicas),
      ageOf(o, now),
      names,
      images,
      formatLabelSelector(spec.selector),
    ];
  },
};

const statefulsets: Printer = {
  columns: [NAME, col("Ready", "string", "Number of the pod with ready state"), AGE, CONTAINERS, IMAGES],
  cells: (o, now) => {
    const spec = rec(o.spec);
    const [names, images] = containerCells(rec(spec.template).spec);
    return [nameOf(o), `${int(rec(o.status).readyReplicas)}/${has(spec.replicas) ? int(spec.replicas) : 1}`, ageOf(o, now), names, images];
  },
};

const daemonsets: Printer = {
  columns: [
    NAME,
    col("Desired", "integer", "The total number of nodes that should be running the daemon pod."),
    col("Current", "integer", "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod."),
    col(
      "Ready",
      "integer",
      "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.",
    ),
    col("Up-to-date", "integer", "The total number of nodes that are running updated daemon pod"),
    col(
      "Available",
      "integer",
      "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.",
    ),
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
};

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

const leases: Printer = {
  columns: [NAME, col("Holder", "string", "holderIdentity contains the identity of the holder of a current lease."), AGE],
  cells: (o, now) => [nameOf(o), str(rec(o.spec).holderIdentity), ageOf(o, now)],
};

const endpointslices: Printer = {
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
    return [
      nameOf(o),
      str(o.addressType),
      listWithMore(ports, ports.length, 3, "<unset>"),
      listWithMore(addresses, addresses.length, 3, "<unset>"),
      ageOf(o, now),
    ];
  },
};

const poddisruptionbudgets: Printer = {
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
};

const jobs: Printer = {
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
};

// roles, clusterroles and customresourcedefinitions use the default convertor (NAME, CREATED AT)
// in kube-apiserver too, so they need no entry here.

/** The named groups' printers. */
export const GROUP_PRINTERS: readonly PrinterEntry[] = [
  ["apps", "deployments", deployments],
  ["apps", "replicasets", replicasets],
  ["apps", "statefulsets", statefulsets],
  ["apps", "daemonsets", daemonsets],
  ["rbac.authorization.k8s.io", "rolebindings", roleBindingPrinter("roleBinding")],
  ["rbac.authorization.k8s.io", "clusterrolebindings", roleBindingPrinter("clusterRoleBinding")],
  ["coordination.k8s.io", "leases", leases],
  ["discovery.k8s.io", "endpointslices", endpointslices],
  ["policy", "poddisruptionbudgets", poddisruptionbudgets],
  ["batch", "jobs", jobs],
];
