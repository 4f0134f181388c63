// What a real test cluster has no process for, done through its API as the admin: the kubelet's part and the cloud load balancer's.
import { Informer, isNotFound, resources, type KubeClient, type KubeObject } from "../../src/kube/index.ts";

// One Node (created Ready, with the `not-ready` taint that admission adds lifted: no
// node-lifecycle-controller runs to lift it); every Pod scheduled to it goes Running and Ready with an
// IP from 10.244.0.0/16 (once: a later status patch, as `kubectl patch pod --subresource=status`,
// stands); a Pod being deleted is deleted at once (its containers "stopped"), so namespaces finish
// terminating; a LoadBalancer Service gets the cluster's gateway-host address on its status
// subresource.

const nodeResource = { apiVersion: "v1", kind: "Node", plural: "nodes", namespaced: false } as const;

interface Pod extends KubeObject {
  spec?: { nodeName?: string; containers?: { name: string; image?: string }[] };
  status?: { phase?: string; podIP?: string; conditions?: { type: string; status: string }[] };
}

interface Service extends KubeObject {
  spec?: { type?: string };
  status?: { loadBalancer?: { ingress?: unknown[] } };
}

export interface StandIn {
  nodeName: string;
  stop(): Promise<void>;
}

export async function startStandIn(o: { client: KubeClient; name: string; loadBalancerIp: string }): Promise<StandIn> {
  const { client } = o;
  const nodeName = `${o.name}-node`;
  await ensureNode(client, nodeName);
  let nextIp = 1;
  const ips = new Map<string, string>();
  const podIp = (uid: string) => {
    let ip = ips.get(uid);
    if (!ip) {
      const n = nextIp++;
      ip = `10.244.${Math.floor(n / 250)}.${(n % 250) + 2}`;
      ips.set(uid, ip);
    }
    return ip;
  };
  const now = () => new Date().toISOString();
  const podStatus = (pod: Pod, ready: boolean) => {
    const t = now();
    const cond = (type: string, status: boolean) => ({ type, status: status ? "True" : "False", lastTransitionTime: t });
    return {
      status: {
        phase: "Running",
        hostIP: "10.213.255.1",
        podIP: podIp(pod.metadata.uid!),
        podIPs: [{ ip: podIp(pod.metadata.uid!) }],
        startTime: pod.metadata.creationTimestamp ?? t,
        conditions: [cond("PodScheduled", true), cond("Initialized", true), cond("ContainersReady", ready), cond("Ready", ready)],
        containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
          name: c.name,
          image: c.image ?? "",
          imageID: "",
          ready,
          started: true,
          restartCount: 0,
          state: { running: { startedAt: t } },
        })),
      },
    };
  };
  const warn = (what: string, err: unknown) => {
    if (!isNotFound(err)) console.error(`stand-in ${o.name}: ${what}: ${err instanceof Error ? err.message : String(err)}`);
  };
  const runPod = (pod: Pod) => {
    const { namespace, name, uid } = pod.metadata;
    if (pod.metadata.deletionTimestamp) {
      client
        .delete(resources.pod, namespace, name!, { gracePeriodSeconds: 0, preconditions: { uid } })
        .catch((e) => warn(`delete pod ${namespace}/${name}`, e));
      return;
    }
    if (pod.spec?.nodeName !== nodeName) return;
    // Started once; readiness is then whatever a status patch says (`kubectl patch pod --subresource=status`).
    if (pod.status?.phase === "Running" && pod.status.podIP) return;
    client
      .patch(resources.pod, namespace, name!, podStatus(pod, true), { subresource: "status", type: "merge" })
      .catch((e) => warn(`pod status ${namespace}/${name}`, e));
  };
  const runService = (svc: Service) => {
    if (svc.spec?.type !== "LoadBalancer" || svc.status?.loadBalancer?.ingress?.length) return;
    const { namespace, name } = svc.metadata;
    client
      .patch(
        resources.service,
        namespace,
        name!,
        { status: { loadBalancer: { ingress: [{ ip: o.loadBalancerIp }] } } },
        { subresource: "status", type: "merge" },
      )
      .catch((e) => warn(`load balancer of ${namespace}/${name}`, e));
  };
  const pods = new Informer<Pod>({ client, resource: resources.pod });
  const services = new Informer<Service>({ client, resource: resources.service });
  pods.on((e) => {
    if (e.type !== "deleted") runPod(e.object);
  });
  services.on((e) => {
    if (e.type !== "deleted") runService(e.object);
  });
  pods.start();
  services.start();
  await Promise.all([pods.synced, services.synced]);
  return {
    nodeName,
    async stop() {
      await Promise.all([pods.stop(), services.stop()]);
    },
  };
}

async function ensureNode(client: KubeClient, name: string): Promise<void> {
  try {
    await client.get(nodeResource, undefined, name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await client.create(nodeResource, {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name, labels: { "kubernetes.io/hostname": name, "kubernetes.io/os": "linux" } },
    });
  }
  const t = new Date().toISOString();
  const capacity = { cpu: "64", memory: "256Gi", pods: "5000" };
  await client.patch(
    nodeResource,
    undefined,
    name,
    {
      status: {
        capacity,
        allocatable: capacity,
        addresses: [
          { type: "InternalIP", address: "10.213.255.1" },
          { type: "Hostname", address: name },
        ],
        conditions: [
          {
            type: "Ready",
            status: "True",
            reason: "KubeletReady",
            message: "stand-in kubelet",
            lastHeartbeatTime: t,
            lastTransitionTime: t,
          },
        ],
        nodeInfo: {
          kubeletVersion: "v1.37.2",
          containerRuntimeVersion: "stand-in://1",
          operatingSystem: "linux",
          architecture: "amd64",
          kernelVersion: "",
          osImage: "",
          kubeProxyVersion: "",
          machineID: "",
          systemUUID: "",
          bootID: "",
        },
      },
    },
    { subresource: "status", type: "merge" },
  );
  // Admission (TaintNodesByCondition) gave it node.kubernetes.io/not-ready; the node lifecycle controller that would lift it does not run.
  await client.patch(nodeResource, undefined, name, { spec: { taints: null } }, { type: "merge" });
}
