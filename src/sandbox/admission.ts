// Field validation on the write path: built-in types against the maintained Kubernetes schemas
// (kubernetes-models, see validation.ts), custom resources against their CRD's structural schema
// (structural.ts), in the mode the client asked for (fieldValidation=Strict|Warn|Ignore).
import { admitStructural } from "./structural.ts";
import { deepCopy, type JSONSchemaProps, type KubeObject } from "./types.ts";
import { admitBuiltin, type FieldValidation } from "./validation.ts";

export { admitBuiltin };
export type { FieldValidation };

/** Custom resources: pruned, defaulted and validated by the CRD version's schema. */
export function admitCustom(obj: KubeObject, schema: JSONSchemaProps | undefined, mode: FieldValidation): { object: KubeObject; warnings: string[] } {
  if (!schema) return { object: deepCopy(obj), warnings: [] };
  return admitStructural(obj, schema, mode);
}
