// Field validation on the write path: built-in types against the maintained Kubernetes schemas
// (kubernetes-models), custom resources against their CRD's structural schema, in the mode
// the client asked for (fieldValidation=Strict|Warn|Ignore).
import { checkBuiltin, enforceFieldValidation, type FieldValidation } from "./validation.ts";
import { admitStructural } from "./structural.ts";
import { deepCopy, type JSONSchemaProps, type KubeObject } from "./types.ts";

export type { FieldValidation };

export interface Admitted {
  object: KubeObject;
  warnings: string[];
}

/** Unknown fields of a built-in type are rejected (Strict), or dropped with a warning (Warn) or silently (Ignore). */
export function admitBuiltin(obj: KubeObject, mode: FieldValidation): Admitted {
  const problems = checkBuiltin(obj);
  const warnings = enforceFieldValidation(problems, mode, obj);
  const object = deepCopy(obj);
  for (const path of problems?.unknown ?? []) dropPath(object, path);
  return { object, warnings };
}

/** Custom resources: pruned, defaulted and validated by the CRD version's schema. */
export function admitCustom(obj: KubeObject, schema: JSONSchemaProps | undefined, mode: FieldValidation): Admitted {
  if (!schema) return { object: deepCopy(obj), warnings: [] };
  return admitStructural(obj, schema, mode);
}

/** Deletes `spec.ports[0].foo`-style paths (what a Go decoder would never have read). */
export function dropPath(obj: unknown, path: string): void {
  const parts = [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]!));
  let node: unknown = obj;
  for (let i = 0; i < parts.length - 1; i++) {
    node = (node as Record<string | number, unknown> | undefined)?.[parts[i]!];
    if (node === undefined || node === null) return;
  }
  const last = parts[parts.length - 1];
  if (last !== undefined && node && typeof node === "object") delete (node as Record<string | number, unknown>)[last];
}
