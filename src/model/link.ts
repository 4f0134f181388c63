// The Link as mc uses it: one internal shape for every served version (v1alpha1..3), parsed once with valibot.
import * as v from "valibot";
import { UserError } from "../errors.ts";
import { isAddress, parsePort, splitList, unusableGatewayAddress } from "./address.ts";
import { duration, formatDuration, shortDuration } from "./duration.ts";
import { MAX_PROBE_PERIOD_MS, MAX_PROBE_TIMEOUT_MS, MIN_PROBE_PERIOD_MS, MIN_PROBE_TIMEOUT_MS } from "./limits.ts";
import { DEFAULT_CLUSTER_DOMAIN, DEFAULT_LINKERD_NAMESPACE, isDns1123Label, LINK_GROUP, LINK_KIND, LINK_VERSIONS } from "./names.ts";
import {
  fromSelectorObject,
  matchesLabels,
  SelectorError,
  toSelectorObject,
  type LabelSelector,
  type LabelSelectorObject,
} from "./selector.ts";

// The Link as mc uses it: one internal shape for every served version (v1alpha1..3), parsed
// once with valibot — durations to milliseconds, ports to numbers, selectors parsed, CRD
// defaults applied (a Link read from a cluster that does not default still gets them) — and
// a bad Link rejected with the field path and the fix (docs/linkerd-compatibility.md#link-spec);
// and written back as a v1alpha3 spec (`toLinkSpecObject`). A new spec field is its LinkSpec
// member, its schema entry and its line in toLinkSpecObject, here; `mc link` takes it from a flag
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

/** The CRD defaults of a probe spec. */
export const DEFAULT_PROBE_TIMEOUT_MS = 30_000;
export const DEFAULT_PROBE_FAILURE_THRESHOLD = 3;

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

// ------------------------------------------------------------------------------------------------
// The schema. Every scalar of a Link spec is a string, ports and numbers included.

const QUOTE = "(every Link spec value is a string: quote it)";
const text = (fallback: string) => v.optional(v.string(`must be a string ${QUOTE}`), fallback);
const optionalText = v.optional(v.string(`must be a string ${QUOTE}`), "");

/** A Go duration → ms, in [min, max] ms; with `emptyAs`, "" gives that value instead (for fields checked later). */
const goDuration = (example: string, min: number, tooSmall: string, max: number, tooLarge: string, emptyAs?: 0) =>
  v.pipe(
    v.string(`must be a string ${QUOTE}`),
    duration({
      message: `must be a Go duration such as "${example}"`,
      min,
      positive: true,
      tooSmall,
      max,
      tooLarge: `must be at most ${shortDuration(max)} (${tooLarge}), e.g. "${example}"`,
      bareNumber: "quoted",
      emptyAs,
    }),
  );

/** A port string → number; with `emptyAs`, "" gives that value instead (for fields checked later). */
const port = (example: string, emptyAs?: 0) =>
  v.pipe(
    v.string(`must be a string ${QUOTE}`),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      if (dataset.value === "" && emptyAs !== undefined) return emptyAs;
      const n = parsePort(dataset.value);
      if (n !== undefined) return n;
      addIssue({ message: `must be a port number 1-65535 written as a string, e.g. "${example}"` });
      return NEVER;
    }),
  );

const selector = v.optional(
  v.pipe(
    v.looseObject(
      {
        matchLabels: v.optional(v.record(v.string(), v.string("must be a string label value")), {}),
        matchExpressions: v.optional(
          v.array(
            v.looseObject({
              key: v.string("is required: the label key"),
              operator: v.picklist(["In", "NotIn", "Exists", "DoesNotExist"], "must be one of In, NotIn, Exists, DoesNotExist"),
              values: v.optional(v.array(v.string("must be a string")), []),
            }),
            "must be a list of {key, operator, values}",
          ),
          [],
        ),
      },
      "must be a label selector {matchLabels, matchExpressions}",
    ),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      try {
        const parsed = fromSelectorObject(dataset.value as LabelSelectorObject);
        return parsed.length === 0 ? null : parsed;
      } catch (err) {
        addIssue({ message: err instanceof SelectorError ? err.message : "is not a valid label selector" });
        return NEVER;
      }
    }),
  ),
  undefined,
);

const ProbeSchema = v.optional(
  v.looseObject(
    {
      path: optionalText,
      port: v.optional(port("4191", 0), ""),
      period: v.optional(
        goDuration(
          "3s",
          MIN_PROBE_PERIOD_MS,
          `must be at least ${formatDuration(MIN_PROBE_PERIOD_MS)} (shorter probes the gateway in a hot loop), e.g. "3s"`,
          MAX_PROBE_PERIOD_MS,
          "longer leaves a dead gateway unnoticed",
          0,
        ),
        "",
      ),
      // CRD defaults: timeout 30s, failureThreshold "3".
      timeout: v.optional(
        goDuration(
          "30s",
          MIN_PROBE_TIMEOUT_MS,
          `must be at least ${formatDuration(MIN_PROBE_TIMEOUT_MS)}, e.g. "30s"`,
          MAX_PROBE_TIMEOUT_MS,
          "a probe that long tells nothing",
        ),
        formatDuration(DEFAULT_PROBE_TIMEOUT_MS),
      ),
      failureThreshold: v.optional(
        v.pipe(
          v.string(`must be a string ${QUOTE}`),
          v.regex(/^[1-9]\d{0,8}$/, `must be a positive whole number written as a string, e.g. "3"`),
          v.transform(Number),
        ),
        String(DEFAULT_PROBE_FAILURE_THRESHOLD),
      ),
    },
    "must be an object {path, port, period, timeout, failureThreshold}",
  ),
  {},
);

const stringList = v.optional(v.array(v.string("must be a string"), "must be a list of strings"), []);

const SpecSchema = v.looseObject(
  {
    targetClusterName: v.pipe(
      text(""),
      v.nonEmpty("is required: the target cluster's name (mc link sets it from --cluster-name)"),
      v.check(isDns1123Label, "must be a DNS-1123 label (lowercase letters, digits, '-'; at most 63)"),
    ),
    targetClusterDomain: v.pipe(
      text(DEFAULT_CLUSTER_DOMAIN),
      v.transform((s) => s || DEFAULT_CLUSTER_DOMAIN),
    ),
    targetClusterLinkerdNamespace: v.pipe(
      text(DEFAULT_LINKERD_NAMESPACE),
      v.transform((s) => s || DEFAULT_LINKERD_NAMESPACE),
    ),
    clusterCredentialsSecret: v.pipe(
      text(""),
      v.nonEmpty("is required: the Secret with the target's kubeconfig, usually cluster-credentials-<cluster> (re-run mc link)"),
    ),
    gatewayAddress: v.pipe(
      optionalText,
      v.rawTransform(({ dataset, addIssue, NEVER }) => {
        if (dataset.value.trim() === "") return [];
        const list = splitList(dataset.value);
        const bad = list.find((a) => !isAddress(a));
        const unusable = list.map(unusableGatewayAddress).find((m) => m !== undefined);
        if (bad === undefined && unusable === undefined) return list;
        addIssue({
          message:
            bad !== undefined
              ? `must be comma-separated IPs or hostnames, e.g. "203.0.113.10,gw.example.com"; ${JSON.stringify(bad)} is neither`
              : unusable!,
        });
        return NEVER;
      }),
    ),
    gatewayPort: v.optional(port("4143", 0), ""),
    gatewayIdentity: optionalText,
    probeSpec: ProbeSchema,
    selector,
    remoteDiscoverySelector: selector,
    federatedServiceSelector: selector,
    excludedAnnotations: stringList,
    excludedLabels: stringList,
  },
  "must be an object",
);

const LinkSchema = v.looseObject({
  apiVersion: v.picklist(
    LINK_VERSIONS.map((ver) => `${LINK_GROUP}/${ver}`),
    `must be one of ${LINK_VERSIONS.map((ver) => `${LINK_GROUP}/${ver}`).join(", ")}`,
  ),
  kind: v.literal(LINK_KIND, `must be ${LINK_KIND}`),
  metadata: v.looseObject(
    {
      name: v.pipe(v.string("is required"), v.nonEmpty("is required")),
      namespace: v.optional(v.string(), ""),
      uid: v.optional(v.string()),
      resourceVersion: v.optional(v.string()),
      generation: v.optional(v.number()),
      creationTimestamp: v.optional(v.string()),
      annotations: v.optional(v.record(v.string(), v.string()), {}),
    },
    "must be an object",
  ),
  spec: v.pipe(
    v.optional(v.unknown(), null),
    v.check(
      (x) => typeof x === "object" && x !== null && !Array.isArray(x),
      "is required: an object with the link's fields (re-run mc link)",
    ),
    SpecSchema,
  ),
  status: v.optional(v.looseObject({}), {}),
});

type Parsed = v.InferOutput<typeof LinkSchema>;

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

function toLink(p: Parsed, where: string): Link {
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
