// kube-controller-manager's endpoints controller: a Service with a selector owns Endpoints computed from its Pods.
import { repackSubsets } from "./endpointslice-mirror.ts";
import { KeyedSync, keyOf, splitKey } from "./keyed-sync.ts";
import {
  belongsInEndpoints,
  endpointLabels,
  findPort,
  hostnameFor,
  isHeadless,
  isPodReady,
  nodeNameOf,
  podIP,
  podRef,
  podSelector,
  podsOf,
  serviceSpec,
  servicesOfPod,
} from "./service-pods.ts";
import type { KubeObject } from "../types.ts";
import type { Controller, ControllerContext } from "./controller.ts";

// kube-controller-manager's endpoints controller (pkg/controller/endpoint): a Service with a
// selector owns its same-named Endpoints, computed from the Pods it selects in its namespace —
// ready Pods under `addresses`, the rest under `notReadyAddresses` (all ready with
// publishNotReadyAddresses), named target ports resolved against each Pod's container ports
// (a Pod without the port is left out of that port), subsets repacked as kube does — and
// labelled with the Service's labels, plus `service.kubernetes.io/headless` for a headless one.
// A client's write to such Endpoints is overwritten and a deleted one comes back. Services
// without a selector keep whatever Endpoints their users write. Either way a deleted Service's
// Endpoints go with it (through the API, as a client's delete).

const MANAGER = "kube-controller-manager";

interface Address {
  ip: string;
  hostname?: string;
  nodeName: string;
  targetRef: ReturnType<typeof podRef>;
}

interface Port {
  name?: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

interface Subset {
  addresses?: Address[];
  notReadyAddresses?: Address[];
  ports?: Port[];
}

/** The subsets kube's syncService computes for a Service and the Pods it selects. Pure. */
export function desiredSubsets(svc: KubeObject, pods: readonly KubeObject[]): Subset[] {
  const spec = serviceSpec(svc);
  const tolerateUnready = spec.publishNotReadyAddresses === true;
  const subsets: Subset[] = [];
  for (const pod of pods) {
    if (!belongsInEndpoints(pod)) continue;
    const hostname = hostnameFor(pod, svc);
    const address: Address = { ip: podIP(pod), ...(hostname && { hostname }), nodeName: nodeNameOf(pod), targetRef: podRef(pod) };
    const where = tolerateUnready || isPodReady(pod) ? "addresses" : "notReadyAddresses";
    const ports = spec.ports ?? [];
    if (ports.length === 0) {
      if (isHeadless(svc)) subsets.push({ [where]: [address] });
      continue;
    }
    for (const p of ports) {
      const port = findPort(pod, p);
      if (port === undefined) continue;
      subsets.push({
        [where]: [address],
        ports: [
          {
            ...(p.name && { name: p.name }),
            port,
            protocol: p.protocol ?? "TCP",
            ...(p.appProtocol !== undefined && { appProtocol: p.appProtocol }),
          },
        ],
      });
    }
  }
  return (repackSubsets(subsets) as Subset[]).map((s) =>
    s.ports?.length
      ? s
      : { ...(s.addresses && { addresses: s.addresses }), ...(s.notReadyAddresses && { notReadyAddresses: s.notReadyAddresses }) },
  );
}

export function endpoints(ctx: ControllerContext): Controller {
  const type = (plural: string) => ctx.registry.find("", "v1", plural)!;
  const sync = new KeyedSync((key) => {
    const [namespace, name] = splitKey(key);
    const svc = ctx.store.peek(type("services"), namespace, name); // read only: no copy per Endpoints write
    if (!svc || !podSelector(svc)) return;
    const subsets = desiredSubsets(svc, podsOf(ctx.store, svc));
    const labels = endpointLabels(svc);
    const current = ctx.store.get(type("endpoints"), namespace, name);
    const meta: KubeObject["metadata"] = { ...(current?.metadata ?? { name, namespace }), labels };
    if (Object.keys(labels).length === 0) delete meta.labels;
    const next: KubeObject = { ...(current ?? { apiVersion: "v1", kind: "Endpoints" }), metadata: meta, subsets };
    if (subsets.length === 0) delete next.subsets;
    if (current) ctx.own.update(type("endpoints"), next, MANAGER);
    else ctx.own.create(type("endpoints"), next, MANAGER);
  });
  const podChanged = (pod: KubeObject, previous?: KubeObject) => {
    for (const key of servicesOfPod(ctx.store, pod, previous)) sync.run(key);
  };
  return {
    onWrite(t, obj, previous) {
      if (t.group !== "") return;
      if (t.kind === "Service" || t.kind === "Endpoints") sync.run(keyOf(obj.metadata.namespace!, obj.metadata.name!));
      else if (t.kind === "Pod") podChanged(obj, previous);
    },
    onDelete(t, obj) {
      if (t.group !== "") return;
      if (t.kind === "Service") {
        const ep = type("endpoints");
        if (ctx.store.get(ep, obj.metadata.namespace, obj.metadata.name!)) ctx.delete(ep, obj.metadata.namespace, obj.metadata.name!);
      } else if (t.kind === "Endpoints") sync.run(keyOf(obj.metadata.namespace!, obj.metadata.name!));
      else if (t.kind === "Pod") podChanged(obj);
    },
  };
}
