// `mc install --controllers east,north --controller-set east.log-level=debug,north.ha=true`: the
// controllers the install renders (Linkerd 2.18's chart `controllers[]`), each with the install's
// defaults (`controllerDefaults`) and its own overrides, as helm's `--set` spells a value but
// with mc's flag names: LINK.SETTING=VALUE, comma-separated. Each value is checked by the same
// schema as the flag of that name. Pure.
import * as v from "valibot";
import { UserError } from "../errors.ts";
import type { InstallController } from "../manifests/install-controllers.ts";
import type { ControllerOptions } from "../manifests/service-mirror.ts";
import { MIRROR_SETTINGS as S, type DeployedSettings } from "../model/mirror-settings.ts";
import * as V from "../model/values.ts";

const LOG_LEVELS = ["error", "warn", "info", "debug", "trace"] as const;
const bool = v.pipe(
  v.string(),
  v.check((s) => V.TRUE_WORDS.has(s) || V.FALSE_WORDS.has(s), "must be true or false"),
  v.transform((s) => V.TRUE_WORDS.has(s)),
);

/** A mirroring setting of the controller's `mc serve` (src/model/mirror-settings.ts), checked by `schema`. */
function setting<K extends keyof DeployedSettings>(field: K, schema: v.GenericSchema<string, DeployedSettings[K]>) {
  return { schema, set: (c: InstallController, x: DeployedSettings[K]) => void (c.controller.settings = { ...c.controller.settings, [field]: x }) };
}

/** What a controller may override, by flag name, and where the value goes. */
const SETTINGS = {
  image: { schema: V.image, set: (c, x: string) => void (c.controller.image = x) },
  "log-level": { schema: V.oneOf(LOG_LEVELS), set: (c, x: string) => void (c.controller.logLevel = x) },
  "log-format": { schema: V.oneOf(["plain", "json"] as const), set: (c, x: "plain" | "json") => void (c.controller.logFormat = x) },
  "event-requeue-limit": setting("eventRequeueLimit", S.eventRequeueLimit.row.schema),
  ha: { schema: bool, set: (c, x: boolean) => void (c.controller.ha = x) },
  "enable-endpoint-slices": setting("enableEndpointSlices", bool),
  "fast-failure-detection": setting("fastFailureDetection", bool),
  gateway: { schema: bool, set: (c, x: boolean) => void (c.probePort = x ? (c.probePort ?? DEFAULT_PROBE_PORT) : null) },
  "probe-port": { schema: V.port, set: (c, x: number) => void (c.probePort = x) },
} satisfies Record<string, { schema: v.GenericSchema<string, any>; set: (c: InstallController, x: never) => void }>;

/** The chart's `controllerDefaults.gateway.probe.port`: the target gateway's probe (proxy admin) port. */
export const DEFAULT_PROBE_PORT = 4191;

export const CONTROLLER_SETTINGS = Object.keys(SETTINGS);

const SET_EXAMPLE = "e.g. --controller-set east.log-level=debug,north.ha=true";

/** The controllers for `names`, each from `defaults` and then its entries of `set` (`LINK.SETTING=VALUE,…`). */
export function installControllers(names: readonly string[], set: string, defaults: ControllerOptions): InstallController[] {
  const controllers = names.map((clusterName): InstallController => ({ clusterName, controller: structuredClone(defaults), probePort: DEFAULT_PROBE_PORT }));
  for (const entry of set.split(",").map((e) => e.trim()).filter(Boolean)) {
    const m = /^([^.=]+)\.([^=]+)=(.*)$/s.exec(entry);
    if (!m) throw new UserError(`--controller-set: each entry is LINK.SETTING=VALUE, ${SET_EXAMPLE}; got ${JSON.stringify(entry)}`);
    const [, link, setting, value] = m as unknown as [string, string, string, string];
    const controller = controllers.find((c) => c.clusterName === link);
    if (!controller) throw new UserError(`--controller-set: ${JSON.stringify(link)} is not in --controllers (${names.join(",") || "empty"}); add it there, or fix the name`);
    const row = SETTINGS[setting as keyof typeof SETTINGS];
    if (!row) throw new UserError(`--controller-set: ${link}.${setting}: no such setting; one of ${CONTROLLER_SETTINGS.join(", ")}`);
    const parsed = v.safeParse(row.schema as v.GenericSchema<string, unknown>, value);
    if (!parsed.success) throw new UserError(`--controller-set: ${link}.${setting}: ${parsed.issues[0].message}, got ${JSON.stringify(value)}`);
    (row.set as (c: InstallController, x: unknown) => void)(controller, parsed.output);
  }
  return controllers;
}
