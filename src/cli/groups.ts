// Flag rows several commands share, declared once: the extension's and Linkerd's namespaces,
// `-o/--output`, and durations (`--wait`, `--timeout`, intervals) parsed by the model's one
// duration check. A command may word the help text for itself; name, default and check stay.
import * as v from "valibot";
import { OUTPUT_FORMATS } from "../manifests/output.ts";
import { duration, type DurationRule } from "../model/duration.ts";
import { DEFAULT_LINKERD_NAMESPACE, DEFAULT_NAMESPACE } from "../model/names.ts";
import * as V from "../model/values.ts";

export { unlessEmpty } from "../model/values.ts";

/** `--namespace` (default linkerd-multicluster). */
export const namespaceFlag = (description = "Namespace of the multicluster extension", alias?: "n") =>
  ({ type: "string", ...(alias && { alias }), default: DEFAULT_NAMESPACE, description, schema: V.namespace }) as const;

/** `-L/--linkerd-namespace` (default linkerd). */
export const linkerdNamespaceFlag = (description = "Namespace of Linkerd's control plane") =>
  ({ type: "string", alias: "L", default: DEFAULT_LINKERD_NAMESPACE, description, schema: V.namespace }) as const;

/** `-o/--output`, one of `choices`; the first is the default. */
export const outputFlag = <const C extends readonly [string, ...string[]]>(choices: C) =>
  ({
    type: "string",
    alias: "o",
    default: choices[0],
    description: `Output format: ${choices.join(" or ")}`,
    schema: V.oneOf<C[number]>(choices),
  }) as const;

/** The output of commands that print manifests: `-o yaml|json`. */
export const MANIFEST_OUTPUT = outputFlag(OUTPUT_FORMATS);

/**
 * A Go duration flag (`--wait 30s`), to milliseconds; surrounding spaces are ignored. Every one
 * states its floor (`min`, 0 for "no wait"; the floors of loops are in src/model/limits.ts).
 */
export const durationFlag = (o: { default: string; description: string; alias?: string } & DurationRule & { min: number }) =>
  ({
    type: "string",
    ...(o.alias !== undefined && { alias: o.alias }),
    default: o.default,
    description: o.description,
    value: "DURATION",
    schema: v.pipe(v.string(), v.trim(), duration(o)),
  }) as const;

/** What a remote-access account may do beyond mirroring (`mc install`, `mc allow`); see docs/decisions.md#d26. */
export const REMOTE_ACCESS_FLAGS = {
  "endpoint-slices-access": {
    type: "boolean",
    default: false,
    description: "Also let the account list and watch EndpointSlices (for a controller run with --enable-endpoint-slices)",
  },
  "namespaces-access": {
    type: "boolean",
    default: false,
    description: "Also let the account list and watch Namespaces (for a controller run with --namespace-selector)",
  },
  "remote-discovery-access": {
    type: "boolean",
    default: false,
    description:
      "Also grant the reads Linkerd's destination controller makes for remote discovery (pods, replicasets, jobs, EndpointSlices, Servers)",
  },
} as const;
