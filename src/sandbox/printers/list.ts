// The built-in printers, by group and resource: an explicit list of what each printer module
// exports. A resource not listed here prints with the default convertor (crd.ts), as
// kube-apiserver's own resources without a printer do.
import { CORE_PRINTERS } from "./core.ts";
import { GROUP_PRINTERS } from "./groups.ts";
import { POD_PRINTERS } from "./pods.ts";
import type { Printer } from "./types.ts";

const printers = new Map<string, Printer>(
  [...CORE_PRINTERS, ...POD_PRINTERS, ...GROUP_PRINTERS].map(([group, plural, printer]) => [`${group}/${plural}`, printer]),
);

/** The built-in printer for `group`/`plural`, if any. */
export const builtinPrinter = (group: string, plural: string): Printer | undefined => printers.get(`${group}/${plural}`);
