// The pod printer (printPod in k8s.io/kubernetes/pkg/printers/internalversion/printers.go, wide form).
import { humanDuration } from "./human-duration.ts";
import { AGE, ageOf, col, has, int, list, NAME, nameOf, rec, type Rec, recs, str, timeMs, wide } from "./cells.ts";
import type { Cell, Printer, PrinterEntry, TableRowCondition } from "./types.ts";
import type { KubeObject } from "../types.ts";

const POD_SUCCEEDED: TableRowCondition[] = [
  { type: "Completed", status: "True", reason: "Succeeded", message: "The pod has completed successfully." },
];
const POD_FAILED: TableRowCondition[] = [{ type: "Completed", status: "True", reason: "Failed", message: "The pod failed." }];

const pods: Printer = {
  columns: [
    NAME,
    col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
    col("Status", "string", "The aggregate status of the containers in this pod."),
    col(
      "Restarts",
      "string",
      "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
    ),
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
};

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
      if (!str(terminated.reason))
        reason = int(terminated.signal) !== 0 ? `Init:Signal:${int(terminated.signal)}` : `Init:ExitCode:${int(terminated.exitCode)}`;
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
      else if (terminated)
        reason = int(terminated.signal) !== 0 ? `Signal:${int(terminated.signal)}` : `ExitCode:${int(terminated.exitCode)}`;
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

  const restartsText =
    restarts !== 0 && lastRestart !== 0 ? `${restarts} (${humanDuration(now.getTime() - lastRestart)} ago)` : String(restarts);

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

/** The pod printer. */
export const POD_PRINTERS: readonly PrinterEntry[] = [["", "pods", pods]];
