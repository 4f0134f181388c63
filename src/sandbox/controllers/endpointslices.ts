// kube-controller-manager's EndpointSlice controller: a Service with a selector gets slices of the Pods it selects.
import { isDeepStrictEqual } from "node:util";
import { KeyedSync, keyOf, splitKey } from "./keyed-sync.ts";
import { MANAGED_BY_LABEL, SERVICE_NAME_LABEL } from "./endpointslice-mirror.ts";
import {
  belongsInEndpoints,
  endpointLabels,
  findPort,
  hostnameFor,
  isPodReady,
  nodeNameOf,
  podIP,
  podRef,
  podSelector,
  podsOf,
  serviceSpec,
  servicesOfPod,
} from "./service-pods.ts";
import type { LabelSelector } from "../selector.ts";
import type { KubeObject } from "../types.ts";
import type { Controller, ControllerContext } from "./controller.ts";

// kube-controller-manager's EndpointSlice controller (pkg/controller/endpointslice): a Service
// with a selector gets discovery.k8s.io/v1 slices of the Pods it selects — one endpoint per Pod
// with an IP (conditions ready/serving/terminating, hostname for a Pod whose subdomain is the
// Service, nodeName, targetRef), grouped by the ports they resolve to, at most 100 per slice, or
// one empty placeholder slice when there are none. Slices are labelled with the Service's labels,
// `kubernetes.io/service-name`, `endpointslice.kubernetes.io/managed-by:
// endpointslice-controller.k8s.io` (and the headless marker), owned by the Service, and go when
// it goes. Someone else's edit of such a slice is put back. Slices are found through the store's
// index by service-name, never by a scan.

const SLICE_CONTROLLER = "endpointslice-controller.k8s.io";
const MANAGER = "kube-controller-manager";
/** --max-endpoints-per-slice's default. */
const MAX_ENDPOINTS_PER_SLICE = 100;

interface SlicePort {
  name: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

interface SliceEndpoint {
  addresses: string[];
  conditions: { ready: boolean; serving: boolean; terminating: boolean };
  hostname?: string;
  nodeName: string;
  targetRef: ReturnType<typeof podRef>;
}

export interface DesiredSlice {
  addressType: "IPv4";
  ports: SlicePort[];
  endpoints: SliceEndpoint[];
}

/** The slices the controller wants for a Service and the Pods it selects (no names yet). Pure. */
export function desiredSlices(svc: KubeObject, pods: readonly KubeObject[]): DesiredSlice[] {
  const spec = serviceSpec(svc);
  const groups = new Map<string, DesiredSlice>();
  const sorted = [...pods].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0));
  for (const pod of sorted) {
    if (!belongsInEndpoints(pod)) continue;
    const ports: SlicePort[] = [];
    for (const p of spec.ports ?? []) {
      const port = findPort(pod, p);
      if (port !== undefined)
        ports.push({
          name: p.name ?? "",
          port,
          protocol: p.protocol ?? "TCP",
          ...(p.appProtocol !== undefined && { appProtocol: p.appProtocol }),
        });
    }
    const ready = isPodReady(pod);
    const hostname = hostnameFor(pod, svc);
    const endpoint: SliceEndpoint = {
      addresses: [podIP(pod)],
      conditions: { ready: ready || spec.publishNotReadyAddresses === true, serving: ready, terminating: false },
      ...(hostname && { hostname }),
      nodeName: nodeNameOf(pod),
      targetRef: podRef(pod),
    };
    const key = JSON.stringify(ports);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { addressType: "IPv4", ports, endpoints: [] }));
    group.endpoints.push(endpoint);
  }
  const out: DesiredSlice[] = [];
  for (const g of groups.values()) {
    for (let i = 0; i < g.endpoints.length; i += MAX_ENDPOINTS_PER_SLICE)
      out.push({ ...g, endpoints: g.endpoints.slice(i, i + MAX_ENDPOINTS_PER_SLICE) });
  }
  return out.length > 0 ? out : [{ addressType: "IPv4", ports: [], endpoints: [] }];
}

/** The labels of the slices this controller manages for Service `name`. */
const ownSlices = (name: string): LabelSelector => [
  { key: SERVICE_NAME_LABEL, op: "=", value: name },
  { key: MANAGED_BY_LABEL, op: "=", value: SLICE_CONTROLLER },
];

const isOwnSlice = (slice: KubeObject) =>
  slice.metadata.labels?.[MANAGED_BY_LABEL] === SLICE_CONTROLLER && slice.metadata.labels[SERVICE_NAME_LABEL] !== undefined;

export function endpointSlices(ctx: ControllerContext): Controller {
  const find = (group: string, plural: string) => ctx.registry.find(group, "v1", plural)!;
  const slices = () => find("discovery.k8s.io", "endpointslices");
  const sync = new KeyedSync((key) => {
    const [namespace, name] = splitKey(key);
    const svc = ctx.store.get(find("", "services"), namespace, name);
    const existing = ctx.store.list(slices(), { namespace, labels: ownSlices(name) });
    const desired = svc && podSelector(svc) ? desiredSlices(svc, podsOf(ctx.store, svc)) : [];
    const unused = new Set(existing);
    for (const d of desired) {
      const labels = { ...endpointLabels(svc!), [SERVICE_NAME_LABEL]: name, [MANAGED_BY_LABEL]: SLICE_CONTROLLER };
      const ownerReferences = [
        { apiVersion: "v1", kind: "Service", name, uid: svc!.metadata.uid ?? "", controller: true, blockOwnerDeletion: true },
      ];
      const match = [...unused].find((s) => isDeepStrictEqual(s.ports ?? [], d.ports)) ?? [...unused][0];
      if (match) {
        unused.delete(match);
        ctx.own.update(
          slices(),
          {
            ...match,
            metadata: { ...match.metadata, labels, ownerReferences },
            addressType: d.addressType,
            endpoints: d.endpoints,
            ports: d.ports,
          },
          MANAGER,
        );
      } else {
        const body = {
          apiVersion: "discovery.k8s.io/v1",
          kind: "EndpointSlice",
          metadata: { generateName: `${name}-`, namespace, labels, ownerReferences },
          addressType: d.addressType,
          endpoints: d.endpoints,
          ports: d.ports,
        };
        ctx.own.create(slices(), body, MANAGER);
      }
    }
    for (const s of unused) if (ctx.store.get(slices(), namespace, s.metadata.name!)) ctx.own.delete(slices(), namespace, s.metadata.name!);
  });
  const podChanged = (pod: KubeObject, previous?: KubeObject) => {
    for (const key of servicesOfPod(ctx.store, pod, previous)) sync.run(key);
  };
  const follow = (t: { group: string; kind: string }, obj: KubeObject, previous?: KubeObject) => {
    const namespace = obj.metadata.namespace!;
    if (t.group === "" && t.kind === "Service") sync.run(keyOf(namespace, obj.metadata.name!));
    else if (t.group === "" && t.kind === "Pod") podChanged(obj, previous);
    else if (t.kind === "EndpointSlice") {
      for (const s of [previous, obj]) if (s && isOwnSlice(s)) sync.run(keyOf(namespace, s.metadata.labels![SERVICE_NAME_LABEL]!));
    }
  };
  return {
    onWrite: follow,
    onDelete: (t, obj) => follow(t, obj),
  };
}
