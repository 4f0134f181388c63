// A fake scheduler and kubelet: a Pod is bound to the sandbox's one node and starts at once — phase Running, an IP from the pod range,
// every container running and ready, conditions Ready/ContainersReady/Initialized/PodScheduled true. Nothing is ever run.
import type { Controller, ControllerContext } from "./controller.ts";
import type { KubeObject } from "../types.ts";

// After that the Pod's status is whatever its writers make it: `setPodReady` (the test control, what a
// failing readiness probe does) or a client's `kubectl patch --subresource=status`; the kubelet never
// puts it back.

const NODE_NAME = "sandbox-node";
const NODE_IP = "172.18.0.2";
/** The pod range (kube-controller-manager's --cluster-cidr): 10.244.0.0/16. */
const POD_RANGE = [10, 244] as const;
const POD_RANGE_SIZE = 256 * 256 - 2;

const isPod = (type: { kind: string; group: string }) => type.group === "" && type.kind === "Pod";
const now = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");

interface Container {
  name?: string;
  image?: string;
}

/** Hands out pod IPs in order, skipping any a Pod still holds (a store kept across a restart). */
class PodIPs {
  private next = 0;
  private readonly used = new Set<string>();

  hold(ip: string): void {
    this.used.add(ip);
  }

  release(ip: string): void {
    this.used.delete(ip);
  }

  allocate(): string {
    for (let tries = 0; tries < POD_RANGE_SIZE; tries++) {
      const n = (this.next++ % POD_RANGE_SIZE) + 2;
      const ip = `${POD_RANGE[0]}.${POD_RANGE[1]}.${n >> 8}.${n & 255}`;
      if (!this.used.has(ip)) {
        this.used.add(ip);
        return ip;
      }
    }
    throw new Error("the sandbox's pod range 10.244.0.0/16 is full");
  }
}

/** The status of a Pod that has just started: Running, ready, every container running. */
export function startedStatus(pod: KubeObject, ip: string, at = now()): Record<string, unknown> {
  const containers = (pod.spec as { containers?: Container[] } | undefined)?.containers ?? [];
  const condition = (type: string) => ({ type, status: "True", lastProbeTime: null, lastTransitionTime: at });
  return {
    phase: "Running",
    conditions: ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"].map(condition),
    hostIP: NODE_IP,
    hostIPs: [{ ip: NODE_IP }],
    podIP: ip,
    podIPs: [{ ip }],
    startTime: at,
    containerStatuses: containers.map((c) => ({
      name: c.name ?? "",
      state: { running: { startedAt: at } },
      ready: true,
      restartCount: 0,
      image: c.image ?? "",
      imageID: "",
      containerID: `containerd://${crypto.randomUUID().replaceAll("-", "")}`,
      started: true,
    })),
    qosClass: "BestEffort",
  };
}

/** The status after the Pod's readiness changed: Ready and ContainersReady follow, as do its containers. */
export function readinessStatus(pod: KubeObject, ready: boolean, at = now()): Record<string, unknown> {
  const status = structuredClone((pod.status as Record<string, unknown> | undefined) ?? {});
  const containerStatuses = (status.containerStatuses as Array<{ name: string; ready?: boolean }> | undefined) ?? [];
  for (const c of containerStatuses) c.ready = ready;
  const unready = containerStatuses.map((c) => c.name).join(" ");
  const conditions = (status.conditions as Array<Record<string, unknown>> | undefined) ?? [];
  for (const type of ["Ready", "ContainersReady"]) {
    let c = conditions.find((x) => x.type === type);
    if (!c) conditions.push((c = { type, lastProbeTime: null }));
    if (c.status === (ready ? "True" : "False")) continue;
    c.status = ready ? "True" : "False";
    c.lastTransitionTime = at;
    if (ready) {
      delete c.reason;
      delete c.message;
    } else {
      c.reason = "ContainersNotReady";
      c.message = `containers with unready status: [${unready}]`;
    }
  }
  status.conditions = conditions;
  return status;
}

export interface Kubelet extends Controller {
  /** Test control: the Pod's containers pass (or fail) their readiness probe. */
  setPodReady(namespace: string, name: string, ready: boolean): void;
}

export function kubelet(ctx: ControllerContext): Kubelet {
  const ips = new PodIPs();
  const pods = () => ctx.registry.find("", "v1", "pods")!;
  return {
    start() {
      // A store kept across a restart: its Pods keep their IPs.
      for (const pod of ctx.store.scan(pods())) {
        const ip = (pod.status as { podIP?: string } | undefined)?.podIP;
        if (ip) ips.hold(ip);
      }
    },
    admit(type, pod, previous) {
      if (!isPod(type) || previous) return;
      const spec = (pod.spec ??= {}) as { nodeName?: string };
      spec.nodeName ||= NODE_NAME;
      pod.status = startedStatus(pod, ips.allocate());
    },
    onDelete(type, pod) {
      const ip = (pod.status as { podIP?: string } | undefined)?.podIP;
      if (isPod(type) && ip) ips.release(ip);
    },
    setPodReady(namespace, name, ready) {
      const pod = ctx.store.get(pods(), namespace, name);
      if (!pod) throw new Error(`no pod ${namespace}/${name}`);
      ctx.own.update(pods(), { ...pod, status: readinessStatus(pod, ready) }, "kubelet", "status");
    },
  };
}
