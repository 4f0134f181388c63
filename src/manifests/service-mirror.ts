// The service mirror controller for one link (docs/linkerd-compatibility.md#link-controller; mc keeps Linkerd's PR4710 model of one
// controller per Link, emitted by `mc link`): RBAC for local mirrors, RBAC for its own Secret, Link, Link status and Lease, its
// ServiceAccount, the Deployment running `mc serve`, and the probe Service whose Endpoints the controller points at the target's gateway.
import * as L from "../model/labels.ts";
import {
  ADMIN_PORT,
  ADMIN_PORT_NAME,
  CONTROLLER_ENV,
  credentialsSecretName,
  LINK_GROUP,
  leaseName,
  localResourcesAccessName,
  PROBE_PORT_NAME,
  probeGatewayName,
  readRemoteCredsName,
  serviceMirrorName,
} from "../model/names.ts";
import { settingsArgs, type DeployedSettings } from "../model/mirror-settings.ts";
import { LINKERD_UID } from "./gateway.ts";
import { antiAffinity, object, restrictedContainer, type Manifest } from "./meta.ts";

/**
 * What the controller does in the source cluster, as RBAC rules: its mirror Services and
 * Endpoints are listed, watched, read, created, updated (never patched) and deleted; namespaces
 * are read. Linkerd's own link chart grants exactly these (and no patch), so a Link made by
 * Linkerd's CLI passes mc check.
 */
const LOCAL_MIRROR_RULES = [
  { apiGroups: [""], resources: ["endpoints", "services"], verbs: ["list", "get", "watch", "create", "delete", "update"] },
  { apiGroups: [""], resources: ["namespaces"], verbs: ["list", "get", "watch"] },
] as const;

/**
 * Events (on a skipped Service, on the Link): best effort — a denied Event is logged at debug
 * and mirroring goes on — so a role without this rule still works (Linkerd's grants none).
 */
const LOCAL_EVENT_RULES = [{ apiGroups: [""], resources: ["events"], verbs: ["create"] }] as const;

/** `mc serve --enable-namespace-creation` creates a missing namespace: a rule of its own, as Linkerd's chart renders it for `enableNamespaceCreation`. */
const NAMESPACE_CREATION_RULES = [{ apiGroups: [""], resources: ["namespaces"], verbs: ["create"] }] as const;

/**
 * The Multi-Cluster Services import (src/mcs/): ServiceImports and their status, and the MCS
 * EndpointSlices (listed, watched and written, never read one by one: not the slice mirrors' rule).
 * Optional as Events are: without them the import is off and mirroring goes on.
 */
export const LOCAL_MCS_RULES = [
  { apiGroups: ["multicluster.x-k8s.io"], resources: ["serviceimports"], verbs: ["list", "get", "watch", "create", "delete", "update"] },
  { apiGroups: ["multicluster.x-k8s.io"], resources: ["serviceimports/status"], verbs: ["update", "patch"] },
  { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "watch", "create", "delete", "update"] },
] as const;

/**
 * `mc serve --mirror-endpoint-slices`: mirrors' EndpointSlices, as their Endpoints (mc only, so
 * rendered only for a controller with the setting: Linkerd's role stays Linkerd's).
 */
const LOCAL_SLICE_RULES = [
  { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "get", "watch", "create", "delete", "update"] },
] as const;

/**
 * The rules of the controller's ClusterRole in the source, as mc renders them (with
 * `namespaceCreation`, for a controller run with --enable-namespace-creation; with
 * `endpointSlices`, for one run with --mirror-endpoint-slices).
 */
export const localAccessRules = (
  o: { namespaceCreation?: boolean; endpointSlices?: boolean } = {},
): Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }> =>
  [
    ...LOCAL_MIRROR_RULES,
    ...(o.endpointSlices ? LOCAL_SLICE_RULES : []),
    ...(o.namespaceCreation ? NAMESPACE_CREATION_RULES : []),
    ...LOCAL_EVENT_RULES,
    ...LOCAL_MCS_RULES,
  ].map((r) => ({
    apiGroups: [...r.apiGroups],
    resources: [...r.resources],
    verbs: [...r.verbs],
  }));

/** Whether a controller runs with --enable-namespace-creation (its ClusterRole then grants namespaces create). */
export const createsNamespaces = (ctl: Pick<ControllerOptions, "settings">): boolean => ctl.settings?.enableNamespaceCreation === true;

/** Whether a controller runs with --mirror-endpoint-slices (its ClusterRole then grants endpointslices). */
export const writesSlices = (ctl: Pick<ControllerOptions, "settings">): boolean => ctl.settings?.mirrorEndpointSlices === true;

type LogFormat = "plain" | "json";

export interface ControllerOptions {
  image: string;
  logLevel: string;
  logFormat: LogFormat;
  /** HA: 3 replicas (one leader), anti-affinity, maxUnavailable 1, PodDisruptionBudget. */
  ha: boolean;
  /** The mirroring settings its `mc serve` runs with (the rest take their defaults), as args from the one table. */
  settings?: DeployedSettings;
  /** The container's requests and limits; default CONTROLLER_RESOURCES. */
  resources?: ContainerResources;
}

/** Kubernetes quantities (`100m`, `512Mi`); an absent one is not set. */
export interface ContainerResources {
  requests: { cpu?: string; memory?: string };
  limits: { cpu?: string; memory?: string };
}

/**
 * `mc serve`'s requests and limits, from `bun run bench memory` (bench/results/memory.md: RSS of
 * mc serve as a process, 62 MB idle, 85 MB with 1,000 mirrors, 159 MB with 10,000 and up to
 * 235 MB after churn). The request covers 1,000 mirrors; the memory limit 10,000 under churn
 * with twice the headroom; the CPU limit lets a liveness flip fan out.
 */
export const CONTROLLER_RESOURCES = {
  requests: { cpu: "100m", memory: "128Mi" },
  limits: { cpu: "1", memory: "512Mi" },
} as const satisfies ContainerResources;

export interface ServiceMirrorOptions {
  clusterName: string;
  namespace: string;
  /** The target gateway's probe port; null for a gateway-less link (no probe Service). */
  probePort: number | null;
  controller: ControllerOptions;
  version: string;
}

const RBAC = "rbac.authorization.k8s.io/v1";

export function renderServiceMirror(o: ServiceMirrorOptions): Manifest[] {
  const c = o.clusterName;
  const ns = o.namespace;
  const name = serviceMirrorName(c);
  const labels = { [L.COMPONENT]: L.COMPONENT_SERVICE_MIRROR, [L.CLUSTER_NAME]: c };
  const meta = (n: string, namespaced = true) => ({ name: n, ...(namespaced && { namespace: ns }), labels, version: o.version });
  const subjects = [{ kind: "ServiceAccount", name, namespace: ns }];
  const pods = { [L.COMPONENT]: L.COMPONENT_SERVICE_MIRROR_POD, [L.CLUSTER_NAME]: c };
  const ctl = o.controller;
  const probeService = o.probePort !== null ? probeGatewayName(c) : undefined;
  const args = controllerArgs(ns, { ...ctl, settings: { ...ctl.settings, ...(probeService && { probeService }) } });
  const out: Manifest[] = [
    object(RBAC, "ClusterRole", meta(localResourcesAccessName(c), false), {
      rules: localAccessRules({ namespaceCreation: createsNamespaces(ctl), endpointSlices: writesSlices(ctl) }),
    }),
    object(RBAC, "ClusterRoleBinding", meta(localResourcesAccessName(c), false), {
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: localResourcesAccessName(c) },
      subjects,
    }),
    object(RBAC, "Role", meta(readRemoteCredsName(c)), {
      rules: [
        { apiGroups: [""], resources: ["secrets"], resourceNames: [credentialsSecretName(c)], verbs: ["list", "get", "watch"] },
        { apiGroups: [LINK_GROUP], resources: ["links"], verbs: ["list", "get", "watch"] },
        { apiGroups: [LINK_GROUP], resources: ["links/status"], verbs: ["update", "patch"] },
        // create cannot be limited by name; everything else touches only this link's Lease.
        { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
        { apiGroups: ["coordination.k8s.io"], resources: ["leases"], resourceNames: [leaseName(c)], verbs: ["get", "update", "patch"] },
      ],
    }),
    object(RBAC, "RoleBinding", meta(readRemoteCredsName(c)), {
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: readRemoteCredsName(c) },
      subjects,
    }),
    ...controllerWorkload({
      meta: { name, namespace: ns, labels, version: o.version },
      pods,
      args: [...args, c],
      controller: ctl,
      portName: ADMIN_PORT_NAME,
    }),
  ];
  if (o.probePort !== null) out.push(renderProbeService({ clusterName: c, namespace: ns, probePort: o.probePort, version: o.version }));
  return out;
}

/** The probe Service `probe-gateway-<c>` whose Endpoints the controller points at the target's gateway. */
export function renderProbeService(o: { clusterName: string; namespace: string; probePort: number; version: string }): Manifest {
  const c = o.clusterName;
  return object(
    "v1",
    "Service",
    {
      name: probeGatewayName(c),
      namespace: o.namespace,
      labels: { [L.MIRRORED_GATEWAY]: "true", [L.CLUSTER_NAME]: c },
      version: o.version,
    },
    {
      spec: { ports: [{ name: PROBE_PORT_NAME, port: o.probePort, protocol: "TCP" }] },
    },
  );
}

/** `mc serve`'s flags every controller Deployment passes: where and how it logs, then its mirroring settings (src/model/mirror-settings.ts). */
export function controllerArgs(namespace: string, ctl: ControllerOptions): string[] {
  return [
    "serve",
    `--namespace=${namespace}`,
    `--log-level=${ctl.logLevel}`,
    `--log-format=${ctl.logFormat}`,
    ...settingsArgs(ctl.settings ?? {}),
  ];
}

/**
 * A controller's ServiceAccount, the Deployment running `mc serve ARGS` under it (admin port
 * `portName`, probes on /ready and /live, Linkerd's pod annotations and security settings) and,
 * with HA, its PodDisruptionBudget — the per-link, local and shared controllers alike.
 */
export function controllerWorkload(o: {
  meta: { name: string; namespace: string; labels: Record<string, string>; version: string };
  pods: Record<string, string>;
  args: string[];
  controller: ControllerOptions;
  portName: string;
  env?: Array<{ name: string; value: string }>;
}): Manifest[] {
  const { meta, pods, controller: ctl } = o;
  const out = [
    object("v1", "ServiceAccount", meta),
    object("apps/v1", "Deployment", meta, {
      spec: {
        replicas: ctl.ha ? 3 : 1,
        revisionHistoryLimit: 10,
        selector: { matchLabels: pods },
        ...(ctl.ha && { strategy: { rollingUpdate: { maxUnavailable: 1 } } }),
        template: {
          metadata: {
            annotations: { [L.INJECT]: "enabled", [L.SAFE_TO_EVICT]: "true", [L.PROXY_WAIT_BEFORE_EXIT]: "0" },
            labels: { [L.EXTENSION]: L.EXTENSION_NAME, ...pods },
          },
          spec: {
            ...(ctl.ha && { affinity: antiAffinity(pods) }),
            containers: [
              {
                name: "service-mirror",
                image: ctl.image,
                args: o.args,
                env: [...Object.entries(CONTROLLER_ENV).map(([name, value]) => ({ name, value })), ...(o.env ?? [])],
                ports: [{ containerPort: ADMIN_PORT, name: o.portName }],
                readinessProbe: { httpGet: { path: "/ready", port: o.portName } },
                livenessProbe: { httpGet: { path: "/live", port: o.portName }, periodSeconds: 10, failureThreshold: 3 },
                securityContext: restrictedContainer(LINKERD_UID),
                resources: structuredClone<ContainerResources>(ctl.resources ?? CONTROLLER_RESOURCES),
              },
            ],
            securityContext: { seccompProfile: { type: "RuntimeDefault" } },
            serviceAccountName: meta.name,
          },
        },
      },
    }),
  ];
  if (ctl.ha) out.push(object("policy/v1", "PodDisruptionBudget", meta, { spec: { maxUnavailable: 1, selector: { matchLabels: pods } } }));
  return out;
}
