// The shapes of server-side Table conversion (meta.k8s.io/v1 Table) and of a printer: what
// table.ts builds and every printer module returns. Types only, so the printers and the table
// builder depend on this file and never on each other.
import type { KubeObject, ObjectMeta } from "../types.ts";

export type Cell = string | number | boolean | null;

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface TableRow {
  cells: Cell[];
  conditions?: TableRowCondition[];
  object: KubeObject | PartialObjectMetadata | null;
}

interface PartialObjectMetadata {
  apiVersion: string;
  kind: "PartialObjectMetadata";
  metadata: ObjectMeta;
}

export interface Table {
  kind: "Table";
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

export interface TableOptions {
  now: Date;
  /** What each row carries: PartialObjectMetadata (the default), the whole object, or null. */
  includeObject?: "None" | "Metadata" | "Object";
  /** The list's metadata; without it a single object's resourceVersion is used. */
  listMeta?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  tableVersion?: "v1" | "v1beta1";
  /** Leave out the column definitions (TableOptions.noHeaders; watch events after the first). */
  noHeaders?: boolean;
}

/** How one resource prints: its columns and, per object, one cell per column. */
export interface Printer {
  columns: TableColumnDefinition[];
  cells(obj: KubeObject, now: Date): Cell[];
  conditions?(obj: KubeObject): TableRowCondition[] | undefined;
}

/** One built-in printer: the group and resource it prints, and how. */
export type PrinterEntry = readonly [group: string, plural: string, printer: Printer];
