// desiredMirror: what the source cluster should hold for one target Service — the mirror Service and its Endpoints through the gateway, or
// (headless) per-pod endpoint mirrors, or a remote-discovery mirror without Endpoints, or nothing, or a problem to report. Pure: plain
// objects in, plain objects out (docs/linkerd-compatibility.md#controller).
import type { Link } from "../../model/link.ts";
import type { MirrorSettings } from "../../model/mirror-settings.ts";
import { CLUSTER_NAME, LINK_UID, REMOTE_GATEWAY_IDENTITY } from "../../model/labels.ts";
import { DEFAULT_MIRROR_NAME_TEMPLATE, mirrorNameOf } from "../../model/mirror-names.ts";
import { PROBE_PORT_NAME } from "../../model/names.ts";
import { isHeadless } from "../../model/service.ts";
import { desiredHeadless, hostnamesOf, type HeadlessDesired } from "./headless.ts";
import { endpointsAnnotations, mirrorAnnotations, mirrorLabels, ownLabels, remoteFqName } from "./metadata.ts";
import { gatewayPorts, gatewaySubsets, mirrorPorts } from "./ports.ts";
import { exportMode, remoteDiscoveryLabels } from "./remote-discovery.ts";
import type { EndpointsObject, MirrorProblem, ResolvedGateway, ServiceObject, ServicePort } from "../types.ts";

export interface RemoteState {
  /** The target Service; undefined when it is gone (or not selected). */
  service: ServiceObject | undefined;
  endpoints: EndpointsObject | undefined;
}

/** The controller's flags, and what the source cluster holds that changes the decision. */
export interface DesiredOptions
  extends Pick<MirrorSettings, "enableHeadlessServices" | "enableNamespaceCreation">,
    Partial<Pick<MirrorSettings, "mirrorNameTemplate">> {
  /** Whether the Service's namespace exists in the source cluster. */
  namespaceExists: boolean;
  /** false: `--namespace-selector` does not select the target's namespace, so nothing is exported from it. */
  namespaceSelected?: boolean;
  /** Kind of the mirror that exists now, if any: a headless mirror stays headless while its target has no endpoints. */
  currentMirror?: "headless" | "clusterIP";
}

/** Everything desiredMirror decides from. */
export interface DesiredInput extends DesiredOptions {
  link: Link;
  /** The target Service. */
  key: { namespace: string; name: string };
  /** The mirror's namespace (`--namespace-map`); default the target's. */
  localNamespace?: string;
  /** The mirror's name and why it can have none (read.ts, from the template and the target's annotation); default Linkerd's `<svc>-<cluster>`. */
  mirrorName?: string;
  nameProblem?: string;
  remote: RemoteState;
  /** null: the Link has no gateway (nothing is mirrored in gateway mode; remote discovery needs none). */
  gateway: ResolvedGateway | null;
  /** The gateway's liveness from the prober: mirror Endpoints are not ready while it is false. */
  alive: boolean;
}

interface NamespaceObject {
  apiVersion: "v1";
  kind: "Namespace";
  metadata: { name: string; labels: Record<string, string> };
}

/** An Event to write on the target Service (Linkerd writes these to the target cluster). */
interface RemoteEvent {
  reason: "ServiceMirroringSkipped";
  message: string;
}

export interface DesiredMirror {
  /** The mirror's namespace: the target's, or what `--namespace-map` maps it to. */
  namespace: string;
  /** The target Service's name and the mirror's. */
  remoteName: string;
  mirrorName: string;
  /** null: no mirror should exist (not exported, or it cannot be made). */
  service: ServiceObject | null;
  /** The Endpoints of a regular mirror; null for none, and for headless mirrors (see `headless`). */
  endpoints: EndpointsObject | null;
  headless: HeadlessDesired | null;
  createNamespace: NamespaceObject | null;
  /** Exported but not mirrored: why. */
  problem: MirrorProblem | null;
  /** Exported (headless, gateway mode) but nothing to mirror until the target has endpoints. */
  waiting?: true;
  remoteEvent: RemoteEvent | null;
}

const NO_PORTS_MESSAGE = "Skipped mirroring service: object spec has no exposed ports";
const MISSING_NAMESPACE_MESSAGE = "Skipped mirroring service: namespace does not exist";

/** Whether the target has at least one ready endpoint (Linkerd's "non-empty"). */
export function hasReadyEndpoints(ep: EndpointsObject | undefined): boolean {
  return (ep?.subsets ?? []).some((s) => (s.addresses?.length ?? 0) > 0);
}

export function desiredMirror(opts: DesiredInput): DesiredMirror {
  const { link, remote, gateway, alive, key } = opts;
  const cluster = link.targetClusterName;
  const local = opts.localNamespace ?? key.namespace;
  const out: DesiredMirror = {
    namespace: local,
    remoteName: key.name,
    mirrorName: opts.mirrorName ?? mirrorNameOf(DEFAULT_MIRROR_NAME_TEMPLATE, key, cluster).name,
    service: null,
    endpoints: null,
    headless: null,
    createNamespace: null,
    problem: null,
    remoteEvent: null,
  };
  const svc = remote.service;
  const mode = opts.namespaceSelected === false ? null : exportMode(link, svc, gateway !== null);
  if (!svc || !mode) return out;
  if (!opts.namespaceExists) {
    if (!opts.enableNamespaceCreation) {
      out.problem = { reason: "MissingNamespace", message: `namespace ${local} does not exist in the source cluster` };
      out.remoteEvent = { reason: "ServiceMirroringSkipped", message: MISSING_NAMESPACE_MESSAGE };
      return out;
    }
    out.createNamespace = { apiVersion: "v1", kind: "Namespace", metadata: { name: local, labels: ownLabels(cluster, link.uid) } };
  }
  const invalid = invalidTarget(svc, opts.mirrorName ? opts.nameProblem : mirrorNameOf(DEFAULT_MIRROR_NAME_TEMPLATE, key, cluster).problem);
  if (invalid) {
    out.problem = { reason: "InvalidService", message: invalid };
    out.remoteEvent = {
      reason: "ServiceMirroringSkipped",
      message: invalid === NO_PORTS ? NO_PORTS_MESSAGE : `Skipped mirroring service: ${invalid}`,
    };
    out.createNamespace = null;
    return out;
  }
  const { fqName, labels, annotations, ports } = serviceParts(svc, link, mode, key);
  const meta = { name: out.mirrorName, namespace: local };
  if (mode === "remote-discovery" || !gateway) {
    // Linkerd's destination resolves a remote-discovery mirror's endpoints in the target: no Endpoints here.
    out.service = { apiVersion: "v1", kind: "Service", metadata: { ...meta, labels, annotations }, spec: { ports } };
    return out;
  }

  const kind = opts.enableHeadlessServices && isHeadless(svc) ? headlessKind(remote.endpoints, opts.currentMirror) : "clusterIP";
  if (kind === "wait") {
    out.createNamespace = null;
    out.waiting = true;
    return out; // a headless target with no endpoints yet: nothing to mirror until it has some
  }
  out.service = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { ...meta, labels, annotations },
    spec: { ports, ...(kind === "headless" && { clusterIP: "None" }) },
  };
  const epAnnotations = endpointsAnnotations(fqName, gateway.identity);
  if (kind === "headless") {
    out.headless = desiredHeadless({
      link,
      svc,
      endpoints: remote.endpoints,
      gateway,
      alive,
      mirrorName: out.mirrorName,
      namespace: local,
      template: opts.mirrorNameTemplate ?? DEFAULT_MIRROR_NAME_TEMPLATE,
      labels,
      annotations: epAnnotations,
    });
    return out;
  }
  const subsets = hasReadyEndpoints(remote.endpoints) ? gatewaySubsets(gateway, gatewayPorts(svc.spec?.ports, gateway.port), alive) : [];
  out.endpoints = { apiVersion: "v1", kind: "Endpoints", metadata: { ...meta, labels, annotations: epAnnotations }, subsets };
  return out;
}

const NO_PORTS = "object spec has no exposed ports";

/** What a mirror takes from its target Service and its Link (frozen: shared by every plan made from them). */
interface ServiceParts {
  link: Link;
  mode: string;
  key: string;
  fqName: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  ports: ServicePort[];
}

/**
 * Kept per target Service object. A cached object is frozen and replaced, never changed, when the
 * target changes, so the same object (with the same Link) gives the same parts: a liveness flip
 * re-plans every mirror without deriving them again. An object that is not frozen is not kept.
 */
const partsOf = new WeakMap<ServiceObject, ServiceParts>();

function serviceParts(svc: ServiceObject, link: Link, mode: string, key: { namespace: string; name: string }): ServiceParts {
  const k = `${key.namespace}/${key.name}`;
  const hit = partsOf.get(svc);
  if (hit && hit.link === link && hit.mode === mode && hit.key === k) return hit;
  const cluster = link.targetClusterName;
  const fqName = remoteFqName(key.name, key.namespace, link.targetClusterDomain);
  const copied = mirrorLabels(svc.metadata.labels, link.excludedLabels, cluster, link.uid);
  const labels = mode === "remote-discovery" ? remoteDiscoveryLabels(copied, cluster, key.name) : copied;
  const annotations = mirrorAnnotations(svc.metadata.annotations, link.excludedAnnotations, {
    fqName,
    resourceVersion: svc.metadata.resourceVersion ?? "",
  });
  const ports = mirrorPorts(svc.spec?.ports);
  const parts: ServiceParts = { link, mode, key: k, fqName, labels, annotations, ports };
  if (Object.isFrozen(svc)) {
    Object.freeze(labels);
    Object.freeze(annotations);
    for (const p of ports) Object.freeze(p);
    Object.freeze(ports);
    partsOf.set(svc, parts);
  }
  return parts;
}

/**
 * Why a target Service cannot be mirrored, naming the field and the fix: no ports; an
 * ExternalName Service (no endpoints for the gateway to reach); a mirror name that is no Service
 * name — too long, or a bad annotation (`nameProblem`: reported, never truncated, since a
 * truncated name could collide).
 */
function invalidTarget(svc: ServiceObject, nameProblem: string | undefined): string | undefined {
  if ((svc.spec?.ports ?? []).length === 0) return NO_PORTS;
  if (svc.spec?.type === "ExternalName")
    return "spec.type: an ExternalName Service has no endpoints for the gateway to reach; export the Service it points at instead";
  return nameProblem;
}

/** Headless targets: per-pod mirrors when any address has a hostname, a regular mirror otherwise. */
function headlessKind(ep: EndpointsObject | undefined, current: DesiredOptions["currentMirror"]): "headless" | "clusterIP" | "wait" {
  const all = (ep?.subsets ?? []).flatMap((s) => [...(s.addresses ?? []), ...(s.notReadyAddresses ?? [])]);
  if (all.length === 0) return current ?? "wait";
  return hostnamesOf(all).length > 0 ? "headless" : "clusterIP";
}

/**
 * The gateway mirror: Endpoints of the probe Service pointing at the gateway, always ready
 * (docs/linkerd-compatibility.md#repair).
 */
export function desiredGatewayMirror(
  link: Link,
  gateway: ResolvedGateway | null,
  probeService: string,
  namespace: string,
): EndpointsObject | null {
  if (!gateway || !link.probe) return null;
  const ports = [{ name: PROBE_PORT_NAME, protocol: "TCP", port: link.probe.port }];
  return {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: {
      name: probeService,
      namespace,
      labels: { [CLUSTER_NAME]: link.targetClusterName, ...(link.uid && { [LINK_UID]: link.uid }) },
      annotations: gateway.identity ? { [REMOTE_GATEWAY_IDENTITY]: gateway.identity } : {},
    },
    subsets: gatewaySubsets(gateway, ports, true),
  };
}
