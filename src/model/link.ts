// The Link as mc uses it: one internal shape for every served version (v1alpha1..3), parsed once with valibot.
import * as v from "valibot";
import { UserError } from "../errors.ts";
import { formatDuration } from "./duration.ts";
import { DEFAULT_PROBE_FAILURE_THRESHOLD, DEFAULT_PROBE_TIMEOUT_MS, LinkSchema, type ParsedLink } from "./link-schema.ts";
import { LINK_GROUP, LINK_KIND } from "./names.ts";
import { matchesLabels, toSelectorObject, type LabelSelector } from "./selector.ts";

// The Link as mc uses it: one internal shape for every served version (v1alpha1..3), parsed
// once with valibot — durations to milliseconds, ports to numbers, selectors parsed, CRD
// defaults applied (a Link read from a cluster that does not default still gets them) — and
// a bad Link rejected with the field path and the fix (docs/linkerd-compatibility.md#link-spec);
// and written back as a v1alpha3 spec (`toLinkSpecObject`). A new spec field is its LinkSpec
// member, its schema entry (link-schema.ts) and its line in toLinkSpecObject; `mc link` takes it from a flag
// row. Pure.

/** The Link resource, shaped like src/kube's ResourceType (model imports nothing from src/kube). */
export const linkResource = { apiVersion: `${LINK_GROUP}/v1alpha3`, kind: LINK_KIND, plural: "links", namespaced: true } as const;

interface GatewaySpec {
  /** `spec.gatewayAddress` split on commas: IPs or hostnames. */
  addresses: string[];
  port: number;
  /** mTLS identity of the gateway proxy; "" when the Link names none. */
  identity: string;
}

interface ProbeSpec {
  path: string;
  port: number;
  periodMs: number;
  timeoutMs: number;
  failureThreshold: number;
}

/** mc's `status.gateway`, as the controller writes it. */
export interface GatewayStatus {
  alive?: boolean;
  latency?: { p50?: string; p95?: string; p99?: string };
  lastProbeTime?: string;
  consecutiveFailures?: number;
  lastTransitionTime?: string;
}

/** A Link's spec (docs/linkerd-compatibility.md#link-spec), parsed. */
export interface LinkSpec {
  targetClusterName: string;
  targetClusterDomain: string;
  targetClusterLinkerdNamespace: string;
  clusterCredentialsSecret: string;
  /** null: a gateway-less link (remote discovery / federated only). */
  gateway: GatewaySpec | null;
  /** null: no probing (no `probeSpec.path`). */
  probe: ProbeSpec | null;
  /** null selects nothing: a missing or empty selector never means "everything" (docs/linkerd-compatibility.md#selectors). */
  selector: LabelSelector | null;
  remoteDiscoverySelector: LabelSelector | null;
  federatedServiceSelector: LabelSelector | null;
  excludedAnnotations: string[];
  excludedLabels: string[];
}

export interface Link extends LinkSpec {
  apiVersion: string;
  name: string;
  namespace: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  annotations: Record<string, string>;
  /** The status as stored; the controller owns it. */
  status: { gateway?: GatewayStatus; mirrorServices?: unknown[]; federatedServices?: unknown[]; [key: string]: unknown };
}

/** Spec fields `mc link` reads from the target (linkerd-config, the gateway Service) or derives from the cluster name. */
type LinkFacts =
  | "targetClusterName"
  | "targetClusterDomain"
  | "targetClusterLinkerdNamespace"
  | "clusterCredentialsSecret"
  | "gateway"
  | "probe";

/** The rest of the spec — selectors, exclusions, and any field added to LinkSpec: what `mc link` takes from flags. */
export type LinkSpecOptions = Omit<LinkSpec, LinkFacts>;

export { DEFAULT_PROBE_FAILURE_THRESHOLD, DEFAULT_PROBE_TIMEOUT_MS } from "./link-schema.ts";

/** A Link that cannot be used: `field` is its path (`spec.probeSpec.period`), the message says the fix. */
export class LinkError extends UserError {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
    this.name = "LinkError";
  }
}

/** Whether labels are selected; a null selector selects nothing. */
export function isSelectedBy(selector: LabelSelector | null, labels: Record<string, string> | undefined): boolean {
  return selector !== null && matchesLabels(selector, labels);
}

/** Parses a Link object of any served version; throws LinkError naming the field and the fix. */
export function parseLink(obj: unknown): Link {
  const result = v.safeParse(LinkSchema, obj);
  const where = describe(obj);
  if (!result.success) {
    const issue = result.issues[0];
    const field = (issue.path ?? [])
      .map((p) => (typeof p.key === "number" ? `[${p.key}]` : `.${String(p.key)}`))
      .join("")
      .replace(/^\./, "");
    throw new LinkError(`${where}: ${field || "top level"}: ${issue.message}${got(issue.input)}`, field);
  }
  return toLink(result.output, where);
}

function toLink(p: ParsedLink, where: string): Link {
  const s = p.spec;
  const fail = (field: string, message: string) => new LinkError(`${where}: ${field}: ${message}`, field);
  let gateway: GatewaySpec | null = null;
  if (s.gatewayAddress.length > 0 || s.gatewayPort !== 0) {
    if (s.gatewayAddress.length === 0)
      throw fail(
        "spec.gatewayAddress",
        "is required when spec.gatewayPort is set: the gateway's IPs or hostnames (re-run mc link, or mc link --gateway-addresses)",
      );
    if (s.gatewayPort === 0)
      throw fail("spec.gatewayPort", 'is required when spec.gatewayAddress is set: the gateway\'s mc-gateway port, e.g. "4143"');
    gateway = { addresses: s.gatewayAddress, port: s.gatewayPort, identity: s.gatewayIdentity };
  }
  let probe: ProbeSpec | null = null;
  const ps = s.probeSpec;
  if (ps.path !== "") {
    if (!ps.path.startsWith("/")) throw fail("spec.probeSpec.path", `must start with "/", e.g. "/ready"${got(ps.path)}`);
    if (ps.port === 0)
      throw fail("spec.probeSpec.port", 'is required when spec.probeSpec.path is set: the gateway\'s mc-probe port, e.g. "4191"');
    if (ps.period === 0) throw fail("spec.probeSpec.period", 'is required when spec.probeSpec.path is set: a Go duration, e.g. "3s"');
    probe = { path: ps.path, port: ps.port, periodMs: ps.period, timeoutMs: ps.timeout, failureThreshold: ps.failureThreshold };
  }
  const m = p.metadata;
  return {
    apiVersion: p.apiVersion,
    name: m.name,
    namespace: m.namespace,
    ...(m.uid !== undefined && { uid: m.uid }),
    ...(m.resourceVersion !== undefined && { resourceVersion: m.resourceVersion }),
    ...(m.generation !== undefined && { generation: m.generation }),
    ...(m.creationTimestamp !== undefined && { creationTimestamp: m.creationTimestamp }),
    annotations: m.annotations,
    targetClusterName: s.targetClusterName,
    targetClusterDomain: s.targetClusterDomain,
    targetClusterLinkerdNamespace: s.targetClusterLinkerdNamespace,
    clusterCredentialsSecret: s.clusterCredentialsSecret,
    gateway,
    probe,
    selector: s.selector ?? null,
    remoteDiscoverySelector: s.remoteDiscoverySelector ?? null,
    federatedServiceSelector: s.federatedServiceSelector ?? null,
    excludedAnnotations: s.excludedAnnotations,
    excludedLabels: s.excludedLabels,
    status: p.status as Link["status"],
  };
}

/**
 * A spec as a v1alpha3 Link carries it, every scalar a string
 * (docs/linkerd-compatibility.md#link-spec). Gateway fields, the probe and `selector` only with a
 * gateway (a gateway-less link has none, as Linkerd writes it); probe timeout and threshold only
 * when not the CRD defaults (Linkerd never writes them, so the Link also applies where the CRD
 * predates them); exclusions only when there are some.
 */
export function toLinkSpecObject(s: LinkSpec): Record<string, unknown> {
  const spec: Record<string, unknown> = {
    targetClusterName: s.targetClusterName,
    targetClusterDomain: s.targetClusterDomain,
    targetClusterLinkerdNamespace: s.targetClusterLinkerdNamespace,
    clusterCredentialsSecret: s.clusterCredentialsSecret,
  };
  if (s.gateway) {
    spec.gatewayAddress = s.gateway.addresses.join(",");
    spec.gatewayPort = String(s.gateway.port);
    spec.gatewayIdentity = s.gateway.identity;
    const p = s.probe;
    if (p) {
      spec.probeSpec = {
        path: p.path,
        port: String(p.port),
        period: formatDuration(p.periodMs),
        ...(p.timeoutMs !== DEFAULT_PROBE_TIMEOUT_MS && { timeout: formatDuration(p.timeoutMs) }),
        ...(p.failureThreshold !== DEFAULT_PROBE_FAILURE_THRESHOLD && { failureThreshold: String(p.failureThreshold) }),
      };
    }
    spec.selector = toSelectorObject(s.selector ?? []);
  }
  spec.remoteDiscoverySelector = toSelectorObject(s.remoteDiscoverySelector ?? []);
  spec.federatedServiceSelector = toSelectorObject(s.federatedServiceSelector ?? []);
  if (s.excludedAnnotations.length > 0) spec.excludedAnnotations = s.excludedAnnotations;
  if (s.excludedLabels.length > 0) spec.excludedLabels = s.excludedLabels;
  return spec;
}

/** A Link's selectors and exclusions (LinkSpecOptions): the spec without what `mc link` reads or derives. */
export function linkSpecOptions(link: Link): LinkSpecOptions {
  const { apiVersion, name, namespace, uid, resourceVersion, generation, creationTimestamp, annotations, status, ...spec } = link;
  const { targetClusterName, targetClusterDomain, targetClusterLinkerdNamespace, clusterCredentialsSecret, gateway, probe, ...options } =
    spec;
  return options;
}

/** The options of a Link that sets none: every selector selects nothing, nothing is excluded (the CRD's defaults). */
export function noLinkSpecOptions(): LinkSpecOptions {
  const bare = {
    apiVersion: `${LINK_GROUP}/v1alpha3`,
    kind: LINK_KIND,
    metadata: { name: "x" },
    spec: { targetClusterName: "x", clusterCredentialsSecret: "x" },
  };
  return linkSpecOptions(parseLink(bare));
}

/** `Link linkerd-multicluster/east`, from whatever metadata the object has. */
function describe(obj: unknown): string {
  const meta = (obj as { metadata?: { name?: unknown; namespace?: unknown } } | null)?.metadata;
  const name = typeof meta?.name === "string" ? meta.name : "";
  const ns = typeof meta?.namespace === "string" && meta.namespace ? `${meta.namespace}/` : "";
  return name ? `Link ${ns}${name}` : "Link";
}

/** `, got "3"` for scalars; nothing for objects or absent values. */
function got(input: unknown): string {
  if (input === undefined || input === null || input === "") return "";
  if (typeof input === "string" || typeof input === "number" || typeof input === "boolean") return `, got ${JSON.stringify(input)}`;
  return "";
}

/**
 * Of the Links that target one cluster, oldest first: by creationTimestamp, then by name (so every
 * controller that sees them agrees). The first mirrors the cluster; the others are refused — two
 * Links writing the same `<svc>-<cluster>` mirrors would undo each other's writes.
 */
export function oldestFirst<T extends { name: string; creationTimestamp?: string }>(links: readonly T[]): T[] {
  const key = (l: T) => l.creationTimestamp ?? "";
  return [...links].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
