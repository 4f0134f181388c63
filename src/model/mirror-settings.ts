// The settings of mirroring, one row each: the `mc serve` flag (Linkerd's service-mirror name where it has one) with its one default, help
// and check, and how a controller Deployment rendered by `mc link` / `mc install` carries it. MirrorSettings has a field per row
// (src/cli/serve-flags.ts holds the two to each other); a new setting is a row, its field and the code that reads it. Pure.
import * as v from "valibot";
import { duration, formatDuration, shortDuration } from "./duration.ts";
import { MAX_REFRESH_PERIOD_MS, MAX_STATUS_INTERVAL_MS, MIN_REFRESH_PERIOD_MS, MIN_STATUS_INTERVAL_MS } from "./limits.ts";
import { DEFAULT_MIRROR_NAME_TEMPLATE, MIRROR_NAME_ANNOTATION, mirrorNameTemplate } from "./mirror-names.ts";
import { formatNamespaceMap, namespaceMap, namespaceSelector, objectName, probeAddressMap, unlessEmpty, wholeNumber } from "./values.ts";

/** Everything `mc serve` passes, whole, from its flags to the controller, prober and reconcile that read it. */
export interface MirrorSettings {
  /** Retries of a failing Service before it is reported in the Link status. */
  eventRequeueLimit: number;
  /** Milliseconds between re-resolutions of the gateway (each re-checks every mirror). */
  endpointRefreshPeriod: number;
  enableHeadlessServices: boolean;
  enableNamespaceCreation: boolean;
  /** Read the target's EndpointSlices instead of its Endpoints. */
  enableEndpointSlices: boolean;
  /** Give mirror Services discovery.k8s.io/v1 EndpointSlices instead of v1 Endpoints (mc only; off: Linkerd's Endpoints). */
  mirrorEndpointSlices: boolean;
  /** Mirrors' names: `{service}`, `{cluster}`, `{namespace}` filled in (default Linkerd's `{service}-{cluster}`; model/mirror-names.ts). */
  mirrorNameTemplate: string;
  /** A label selector on the target's Namespaces: only Services in those are mirrored ("" = every namespace, Linkerd's). */
  namespaceSelector: string;
  /** Target namespace -> local namespace its mirrors go to (mc only; a namespace not in it keeps its name, Linkerd's). */
  namespaceMap: Readonly<Record<string, string>>;
  /** The local probe Service of the gateway; undefined: `probe-gateway-<cluster>`. */
  probeService: string | undefined;
  probeDirect: boolean;
  /**
   * Where the gateway of a Link is probed instead (`host:port`, by Link name; "" for every Link) —
   * a stand-in gateway, a port-forward. Wins over probeDirect; the mirrors still point at the
   * Link's gateway address, which is then never contacted.
   */
  probeAddress: Readonly<Record<string, string>>;
  /** Milliseconds: the fastest a steady status.gateway is rewritten. */
  statusInterval: number;
  fastFailureDetection: boolean;
  /** Keys reconciled at once. */
  workers: number;
  /** Requests per second to each API server, client-side (a token bucket); 0: no client-side limit. */
  kubeApiQps: number;
  /** Requests the bucket lets through at once before --kube-api-qps paces them. */
  kubeApiBurst: number;
}

/**
 * How a controller Deployment carries a setting: always (`--event-requeue-limit=3`), only when it
 * is not the default, or never (a setting for a process outside the cluster); `text` writes a
 * non-boolean value as the flag takes it.
 */
export type Carried = { when: "always" | "changed"; text?: (value: never) => string } | { when: "never" };

/** A period of a loop: a Go duration in [min, max] ms (src/model/limits.ts), `why` and `whyMax` saying why. */
export const periodRow = (def: string, description: string, min: number, why: string, max: number, whyMax: string) =>
  ({
    type: "string",
    default: def,
    description,
    schema: v.pipe(
      v.string(),
      v.trim(),
      duration({
        message: "must be a positive Go duration such as 1m or 30s",
        min,
        positive: true,
        tooSmall: `must be at least ${formatDuration(min)} (${why})`,
        max,
        tooLarge: `must be at most ${shortDuration(max)} (${whyMax}), e.g. ${def}`,
      }),
    ),
  }) as const;

/** A non-negative number of requests per second (`20`, `2.5`). */
const rate = v.pipe(
  v.string(),
  v.trim(),
  v.regex(/^\d{1,6}(\.\d+)?$/, "must be a number of requests per second such as 50 (0: no client-side limit)"),
  v.transform(Number),
);

const asDuration = { text: (ms: number) => formatDuration(ms) };

/** The rows, by MirrorSettings field, in the order a Deployment's args list them. */
export const MIRROR_SETTINGS = {
  eventRequeueLimit: {
    flag: "event-requeue-limit",
    row: {
      type: "string",
      default: "3",
      description: "Retries of a failing Service before it is reported in the Link status",
      schema: wholeNumber(0, "retries"),
    },
    carried: { when: "always" },
  },
  endpointRefreshPeriod: {
    flag: "endpoint-refresh-period",
    row: periodRow(
      "1m",
      "How often the gateway address is re-resolved and every mirror re-checked",
      MIN_REFRESH_PERIOD_MS,
      "each period re-checks every mirror",
      MAX_REFRESH_PERIOD_MS,
      "it repairs what an event missed",
    ),
    carried: { when: "changed", ...asDuration },
  },
  enableHeadlessServices: {
    flag: "enable-headless-services",
    row: { type: "boolean", default: false, description: "Mirror headless Services pod by pod (StatefulSets)" },
    carried: { when: "changed" },
  },
  enableNamespaceCreation: {
    flag: "enable-namespace-creation",
    row: { type: "boolean", default: false, description: "Create a missing namespace instead of skipping its Services" },
    carried: { when: "changed" },
  },
  enableEndpointSlices: {
    flag: "enable-endpoint-slices",
    row: {
      type: "boolean",
      default: false,
      description: "Read the target's EndpointSlices instead of its Endpoints (deprecated from Kubernetes 1.33)",
    },
    carried: { when: "changed" },
  },
  mirrorEndpointSlices: {
    flag: "mirror-endpoint-slices",
    row: {
      type: "boolean",
      default: false,
      description:
        "Write mirrors' endpoints as EndpointSlices instead of Endpoints (deprecated from Kubernetes 1.33); existing mirrors are converted in place",
    },
    carried: { when: "changed" },
  },
  mirrorNameTemplate: {
    flag: "mirror-name-template",
    row: {
      type: "string",
      default: DEFAULT_MIRROR_NAME_TEMPLATE,
      value: "TEMPLATE",
      description: `Mirrors' names from {service}, {cluster} and {namespace}; a target's annotation ${MIRROR_NAME_ANNOTATION} names its own; a name taken or too long is refused, never overwritten or truncated`,
      schema: mirrorNameTemplate,
    },
    carried: { when: "changed", text: (t: string) => t },
  },
  namespaceSelector: {
    flag: "namespace-selector",
    row: {
      type: "string",
      default: "",
      value: "SELECTOR",
      description:
        "Mirror only Services in the target's Namespaces this label selector selects (default all namespaces); a namespace that stops matching loses its mirrors",
      schema: namespaceSelector,
    },
    carried: { when: "changed", text: (s: string) => s },
  },
  namespaceMap: {
    flag: "namespace-map",
    row: {
      type: "string",
      value: "TARGET=LOCAL,...",
      description: "Mirror a target namespace's Services into a differently named local namespace (default none: each keeps its name)",
      schema: v.optional(namespaceMap, ""),
    },
    carried: { when: "changed", text: (m: Readonly<Record<string, string>>) => formatNamespaceMap(m) },
  },
  probeService: {
    flag: "probe-service",
    row: {
      type: "string",
      description: "Local probe Service of the gateway",
      defaultText: "probe-gateway-<cluster>",
      value: "NAME",
      schema: unlessEmpty(objectName),
    },
    carried: { when: "changed", text: (name: string) => name },
  },
  probeDirect: {
    flag: "probe-direct",
    row: {
      type: "boolean",
      default: false,
      description: "Probe the gateway addresses themselves, not the probe Service (for running outside a cluster)",
    },
    carried: { when: "never" },
  },
  probeAddress: {
    flag: "probe-address",
    row: {
      type: "string",
      description:
        "Probe the gateway here instead (a stand-in or a port-forward; the Link's gateway address is then never contacted): host:port, or LINK=host:port,... per Link",
      schema: v.optional(probeAddressMap, ""),
    },
    carried: { when: "never" },
  },
  statusInterval: {
    flag: "status-interval",
    row: periodRow(
      "10s",
      "The fastest a steady gateway status is rewritten in the Link (a liveness change is written at once)",
      MIN_STATUS_INTERVAL_MS,
      "each one may write the Link",
      MAX_STATUS_INTERVAL_MS,
      "status.gateway would go stale",
    ),
    carried: { when: "changed", ...asDuration },
  },
  fastFailureDetection: {
    flag: "fast-failure-detection",
    row: {
      type: "boolean",
      default: false,
      description:
        "After a failed gateway probe, probe again every period/10 until the failure threshold decides (a dead gateway is noticed in ≤ 4 s at 3 s × 3)",
    },
    carried: { when: "changed" },
  },
  // 16: the limit client's usual best concurrency; a new mirror's two writes go together (docs/decisions.md#d130).
  workers: {
    flag: "workers",
    row: {
      type: "string",
      default: "16",
      description: "Services reconciled at once (never one Service twice at once)",
      schema: wholeNumber(1, "workers"),
    },
    carried: { when: "changed", text: (n: number) => String(n) },
  },
  // Off by default (docs/decisions.md): the workers bound what is in flight, and the server's
  // priority and fairness sheds the rest with 429s that mc waits out.
  kubeApiQps: {
    flag: "kube-api-qps",
    row: {
      type: "string",
      default: "0",
      description:
        "Requests per second to each API server, client-side (kube's --kube-api-qps; 0: no client-side limit, the server's 429s pace mc)",
      schema: rate,
    },
    carried: { when: "changed", text: (n: number) => String(n) },
  },
  kubeApiBurst: {
    flag: "kube-api-burst",
    row: {
      type: "string",
      default: "100",
      description: "Requests sent at once above --kube-api-qps before it paces them (kube's --kube-api-burst)",
      schema: wholeNumber(1, "requests"),
    },
    carried: { when: "changed", text: (n: number) => String(n) },
  },
} as const satisfies { [K in keyof MirrorSettings]: { flag: string; row: SettingRow; carried: Carried } };

type SettingRow =
  | { type: "string"; default?: string; description: string; schema: v.GenericSchema<any, unknown>; defaultText?: string; value?: string }
  | { type: "boolean"; default: boolean; description: string };

/** Each setting's default: its row's default through its row's check, once. */
export const DEFAULT_MIRROR_SETTINGS: Readonly<MirrorSettings> = Object.freeze(
  Object.fromEntries(
    Object.entries(MIRROR_SETTINGS).map(([field, { row }]) => [
      field,
      row.type === "boolean" ? row.default : v.parse(row.schema, "default" in row ? row.default : undefined),
    ]),
  ) as unknown as MirrorSettings,
);

/** The defaults with what `given` sets over them (a field given as undefined keeps its default). */
export function mirrorSettings(given: Partial<MirrorSettings> = {}): MirrorSettings {
  const set = Object.entries(given).filter(([, value]) => value !== undefined);
  return { ...DEFAULT_MIRROR_SETTINGS, ...Object.fromEntries(set) };
}

/** The settings a controller Deployment can carry (not those for a process outside the cluster). */
export type DeployedSettings = {
  [K in keyof typeof MIRROR_SETTINGS as (typeof MIRROR_SETTINGS)[K]["carried"]["when"] extends "never" ? never : K]?: MirrorSettings[K];
};

/** `mc serve`'s args for `settings` in a Deployment, in the table's order: the always-carried ones, and the others that differ from their default. */
export function settingsArgs(settings: DeployedSettings): string[] {
  const out: string[] = [];
  for (const [field, s] of Object.entries(MIRROR_SETTINGS) as Array<
    [keyof MirrorSettings, (typeof MIRROR_SETTINGS)[keyof MirrorSettings]]
  >) {
    const carried: Carried = s.carried;
    if (carried.when === "never") continue;
    const value = (settings as Partial<MirrorSettings>)[field] ?? DEFAULT_MIRROR_SETTINGS[field];
    const def = DEFAULT_MIRROR_SETTINGS[field];
    if (carried.when === "changed" && (value === def || (carried.text && carried.text(value as never) === carried.text(def as never))))
      continue;
    if (typeof value === "boolean") out.push(value ? `--${s.flag}` : `--${s.flag}=false`);
    else out.push(`--${s.flag}=${carried.text ? carried.text(value as never) : String(value)}`);
  }
  return out;
}

/** `--enable-endpoint-slices`: the flag of a controller that reads the target's EndpointSlices (mc check looks for it). */
export const ENDPOINT_SLICES_FLAG = `--${MIRROR_SETTINGS.enableEndpointSlices.flag}`;

/** `--enable-namespace-creation`: the flag of a controller that creates missing namespaces (mc check then wants namespaces create in its ClusterRole). */
export const NAMESPACE_CREATION_FLAG = `--${MIRROR_SETTINGS.enableNamespaceCreation.flag}`;

/** `--mirror-endpoint-slices`: a controller with it needs endpointslices in its ClusterRole (mc check looks for it). */
export const MIRROR_ENDPOINT_SLICES_FLAG = `--${MIRROR_SETTINGS.mirrorEndpointSlices.flag}`;
/** `--fast-failure-detection`, which `mc check` looks for in a controller's args. */
export const FAST_FAILURE_DETECTION_FLAG = `--${MIRROR_SETTINGS.fastFailureDetection.flag}`;
