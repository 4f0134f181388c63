// `mc install --controllers east,north --controller-set east.log-level=debug,north.ha=true`: the controllers the install renders (Linkerd
// 2.18's chart `controllers[]`), each with the install's defaults (`controllerDefaults`) and its own overrides, as helm's `--set` spells a
// value but with mc's flag names: LINK.SETTING=VALUE, comma-separated (a value may hold commas: see entriesOf).
import * as v from "valibot";
import { UserError } from "../errors.ts";
import type { InstallController } from "../manifests/install-controllers.ts";
import type { ControllerOptions } from "../manifests/service-mirror.ts";
import { MIRROR_SETTINGS, type MirrorSettings } from "../model/mirror-settings.ts";
import * as V from "../model/values.ts";

// A setting is one of the Deployment's own (image, log level and format, HA, the gateway's probe) or
// any mirroring setting a Deployment carries (src/model/mirror-settings.ts), checked by the same
// schema as `mc serve`'s flag. Pure.

const LOG_LEVELS = ["error", "warn", "info", "debug", "trace"] as const;
const bool = v.pipe(
  v.string(),
  v.check((s) => V.TRUE_WORDS.has(s) || V.FALSE_WORDS.has(s), "must be true or false"),
  v.transform((s) => V.TRUE_WORDS.has(s)),
);

interface Setting {
  schema: v.GenericSchema<string, unknown>;
  set(c: InstallController, value: unknown): void;
}

/** The chart's `controllerDefaults.gateway.probe.port`: the target gateway's probe (proxy admin) port. */
export const DEFAULT_PROBE_PORT = 4191;

/** The Deployment's own settings. */
const OWN: Record<string, Setting> = {
  image: { schema: V.image, set: (c, x) => void (c.controller.image = x as string) },
  "log-level": { schema: V.oneOf(LOG_LEVELS), set: (c, x) => void (c.controller.logLevel = x as string) },
  "log-format": { schema: V.oneOf(["plain", "json"] as const), set: (c, x) => void (c.controller.logFormat = x as "plain" | "json") },
  ha: { schema: bool, set: (c, x) => void (c.controller.ha = x as boolean) },
  gateway: { schema: bool, set: (c, x) => void (c.probePort = x ? (c.probePort ?? DEFAULT_PROBE_PORT) : null) },
  "probe-port": { schema: V.port, set: (c, x) => void (c.probePort = x as number) },
};

/** The mirroring settings a Deployment carries, by flag (the probe Service is the install's: probe-<link>). */
const MIRRORING: Record<string, Setting> = Object.fromEntries(
  Object.entries(MIRROR_SETTINGS)
    .filter(([field, s]) => s.carried.when !== "never" && field !== "probeService")
    .map(([field, s]) => [
      s.flag,
      {
        schema: (s.row.type === "boolean" ? bool : s.row.schema) as v.GenericSchema<string, unknown>,
        set: (c: InstallController, x: unknown) =>
          void (c.controller.settings = { ...c.controller.settings, [field as keyof MirrorSettings]: x }),
      },
    ]),
);

const SETTINGS: Record<string, Setting> = { ...OWN, ...MIRRORING };

export const CONTROLLER_SETTINGS = Object.keys(SETTINGS);

const SET_EXAMPLE = "e.g. --controller-set east.log-level=debug,north.ha=true";

/**
 * `LINK.SETTING=VALUE,…` split into entries. A value may hold commas (`east.namespace-map=a=b,c=d`,
 * `east.namespace-selector=team in (a,b)`): a comma starts a new entry only where what follows it reads
 * `LINK.SETTING=` with a Link of --controllers or a setting that exists; anything else continues the value before it.
 */
function entriesOf(set: string, names: readonly string[]): string[] {
  const entries: string[] = [];
  for (const piece of set.split(",")) {
    const next = /^\s*([^.=]+)\.([^=]+)=/.exec(piece);
    if (entries.length === 0 || (next && (names.includes(next[1]!) || next[2]!.trim() in SETTINGS))) entries.push(piece);
    else entries[entries.length - 1] += `,${piece}`;
  }
  return entries.map((e) => e.trim()).filter(Boolean);
}

/** The controllers for `names`, each from `defaults` and then its entries of `set` (`LINK.SETTING=VALUE,…`). */
export function installControllers(names: readonly string[], set: string, defaults: ControllerOptions): InstallController[] {
  const controllers = names.map(
    (clusterName): InstallController => ({ clusterName, controller: structuredClone(defaults), probePort: DEFAULT_PROBE_PORT }),
  );
  for (const entry of entriesOf(set, names)) {
    const m = /^([^.=]+)\.([^=]+)=(.*)$/s.exec(entry);
    if (!m) throw new UserError(`--controller-set: each entry is LINK.SETTING=VALUE, ${SET_EXAMPLE}; got ${JSON.stringify(entry)}`);
    const [, link, setting, value] = m as unknown as [string, string, string, string];
    const controller = controllers.find((c) => c.clusterName === link);
    if (!controller)
      throw new UserError(
        `--controller-set: ${JSON.stringify(link)} is not in --controllers (${names.join(",") || "empty"}); add it there, or fix the name`,
      );
    const row = SETTINGS[setting];
    if (!row) throw new UserError(`--controller-set: ${link}.${setting}: no such setting; one of ${CONTROLLER_SETTINGS.join(", ")}`);
    const parsed = v.safeParse(row.schema, value);
    if (!parsed.success)
      throw new UserError(`--controller-set: ${link}.${setting}: ${parsed.issues[0].message}, got ${JSON.stringify(value)}`);
    row.set(controller, parsed.output);
  }
  return controllers;
}
