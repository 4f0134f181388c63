// `mc serve`'s mirroring flags: the rows of src/model/mirror-settings.ts under their flag names,
// whose parsed values are a MirrorSettings as they are (the type check below says so: a field
// without a row, or a row whose flag is not the field's name in kebab-case, fails to compile).
import { MIRROR_SETTINGS, type MirrorSettings } from "../model/mirror-settings.ts";
import { valuesOf, type FlagValues } from "./flags.ts";

type Settings = typeof MIRROR_SETTINGS;

/** The mirroring settings' rows, by flag name (spread into mc serve's table). */
export type MirrorSettingFlags = { [K in keyof Settings as Settings[K]["flag"]]: Settings[K]["row"] };

export const MIRROR_SETTING_FLAGS = Object.fromEntries(Object.values(MIRROR_SETTINGS).map((s) => [s.flag, s.row])) as MirrorSettingFlags;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const rowsAreSettings: Same<FlagValues<MirrorSettingFlags>, MirrorSettings> = true;
void rowsAreSettings;

/** The MirrorSettings among a command's parsed values. */
export function settingsOf(values: Record<string, unknown>): MirrorSettings {
  return valuesOf(MIRROR_SETTING_FLAGS, values);
}
