// The built-in printers by group and resource. The table-printers-*.ts modules register theirs
// when loaded; table.ts loads them and falls back to the default convertor for the rest.
import type { Printer } from "./table.ts";

const printers = new Map<string, Printer>();

/** Registers (or replaces) how objects of `group`/`plural` print. */
export function registerPrinter(group: string, plural: string, printer: Printer): void {
  printers.set(`${group}/${plural}`, printer);
}

/** The built-in printer registered for `group`/`plural`, if any. */
export const builtinPrinter = (group: string, plural: string): Printer | undefined => printers.get(`${group}/${plural}`);
