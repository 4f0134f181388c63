// The conditions mc writes on a local ServiceExport (KEP-1645): Valid (NoService, InvalidServiceType), Ready (the import exists here with
// this cluster in it), Conflict (from the merge of every exporting cluster's view, "n/m clusters disagree, using … from the oldest export
// in cluster …"). A condition keeps its lastTransitionTime while its status stays. Pure.
import { EXPORT_CONDITIONS, REASONS, type Condition, type ServiceExportObject } from "./api.ts";
import { conflictCondition, judgeExport, type ExportedService, type ExportJudgement, type MergedImport } from "./merge.ts";

export interface ExportFacts {
  judged: ExportJudgement;
  /** The import merged from every cluster's view (undefined: none yet). */
  merged: MergedImport | undefined;
  /** Whether this cluster's ServiceImport exists and lists this cluster. */
  imported: boolean;
  cluster: string;
}

/** The export's conditions as they should be, given the ones it has and the time now. */
export function exportConditions(exp: ServiceExportObject, f: ExportFacts, now: string): Condition[] {
  const had = new Map((exp.status?.conditions ?? []).map((c) => [c.type, c]));
  const generation = exp.metadata.generation;
  const cond = (type: string, status: Condition["status"], reason: string, message: string): Condition => {
    const before = had.get(type);
    return {
      type,
      status,
      reason,
      message,
      lastTransitionTime: before && before.status === status ? before.lastTransitionTime : now,
      ...(generation !== undefined ? { observedGeneration: generation } : {}),
    };
  };
  if ("invalid" in f.judged) {
    return [
      cond(EXPORT_CONDITIONS.valid, "False", f.judged.invalid.reason, f.judged.invalid.message),
      cond(EXPORT_CONDITIONS.ready, "False", REASONS.pending, "the export is not valid"),
    ];
  }
  const out = [
    cond(EXPORT_CONDITIONS.valid, "True", REASONS.valid, "the Service can be exported"),
    f.imported
      ? cond(EXPORT_CONDITIONS.ready, "True", REASONS.ready, `imported as ServiceImport ${exp.metadata.namespace}/${exp.metadata.name}`)
      : cond(EXPORT_CONDITIONS.ready, "False", REASONS.pending, "the ServiceImport is not written yet"),
  ];
  if (f.merged) {
    const c = conflictCondition(f.merged);
    out.push(cond(EXPORT_CONDITIONS.conflict, c.status, c.reason, c.message));
  }
  return out;
}

/** Whether two condition lists say the same (times included). */
function sameConditions(a: readonly Condition[] | undefined, b: readonly Condition[]): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b);
}

/** The export's conditions as this cluster's importer judges it now; undefined when they are what it already has. */
export function changedConditions(
  cluster: string,
  exp: ServiceExportObject,
  f: { service: ExportedService | undefined; imported: boolean; merged: MergedImport | undefined; nowMs: number },
): Condition[] | undefined {
  const judged = judgeExport(cluster, exp, f.service);
  const now = new Date(f.nowMs).toISOString().replace(/\.\d+Z$/, "Z");
  const conditions = exportConditions(exp, { judged, merged: f.merged, imported: f.imported, cluster }, now);
  return sameConditions(exp.status?.conditions, conditions) ? undefined : conditions;
}
