// The Link's valibot schema: every served version's spec, its CRD defaults applied, each field's message naming the fix.
// Every scalar of a Link spec is a string, ports and numbers included.
import * as v from "valibot";
import { isAddress, parsePort, splitList, unusableGatewayAddress } from "./address.ts";
import { duration, formatDuration, shortDuration } from "./duration.ts";
import { MAX_PROBE_PERIOD_MS, MAX_PROBE_TIMEOUT_MS, MIN_PROBE_PERIOD_MS, MIN_PROBE_TIMEOUT_MS } from "./limits.ts";
import { DEFAULT_CLUSTER_DOMAIN, DEFAULT_LINKERD_NAMESPACE, isDns1123Label, LINK_GROUP, LINK_KIND, LINK_VERSIONS } from "./names.ts";
import { fromSelectorObject, SelectorError, type LabelSelectorObject } from "./selector.ts";

/** The CRD defaults of a probe spec. */
export const DEFAULT_PROBE_TIMEOUT_MS = 30_000;
export const DEFAULT_PROBE_FAILURE_THRESHOLD = 3;

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

export const LinkSchema = v.looseObject({
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

export type ParsedLink = v.InferOutput<typeof LinkSchema>;
