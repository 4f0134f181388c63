// Admission on the write path: field validation in the mode the client asked for, built-in defaults, and the addresses kube refuses.
import { deepCopy, type JSONSchemaProps, type KubeObject, type ResourceType } from "../types.ts";
import { admitBuiltin, type FieldValidation } from "../validation/builtin.ts";
import { validateEndpointAddresses } from "../validation/endpoints.ts";
import { admitStructural } from "../validation/structural.ts";
import { admitDeployment, admitNamespace, admitSecret, validateLease } from "./defaults.ts";
import { admitService, type Allocator } from "./services.ts";

// Admission on the write path: field validation in the mode the client asked for
// (fieldValidation=Strict|Warn|Ignore) — built-in types against the maintained Kubernetes
// schemas (validation/builtin.ts), custom resources against their CRD's structural schema
// (validation/structural.ts) — then the defaults kube-apiserver's registry strategies and
// admission plugins give built-in kinds (services.ts, defaults.ts), and the addresses kube refuses
// in Endpoints and EndpointSlices (validation/endpoints.ts).

export interface Admitted {
  object: KubeObject;
  warnings: string[];
}

/** The object as it will be stored (a copy: `obj` is not changed) and the warnings for the client. */
export function admit(
  type: ResourceType,
  obj: KubeObject,
  previous: KubeObject | undefined,
  mode: FieldValidation,
  alloc: Allocator,
): Admitted {
  if (type.crd) return admitCustom(obj, type.crd.schema, mode);
  const result = admitBuiltin(obj, mode);
  const o = result.object;
  dropEmptyMaps(o);
  switch (type.kind) {
    case "Secret":
      admitSecret(o);
      break;
    case "Lease":
      validateLease(o);
      break;
    case "Service":
      admitService(o, previous, alloc);
      break;
    case "Namespace":
      admitNamespace(o);
      break;
    case "Deployment":
      admitDeployment(o, previous);
      break;
    case "Endpoints":
    case "EndpointSlice":
      validateEndpointAddresses(o);
      break;
  }
  return result;
}

/** Custom resources: pruned, defaulted and validated by the CRD version's schema. */
function admitCustom(obj: KubeObject, schema: JSONSchemaProps | undefined, mode: FieldValidation): Admitted {
  if (!schema) return { object: deepCopy(obj), warnings: [] };
  const admitted = admitStructural(obj, schema, mode);
  dropEmptyMaps(admitted.object);
  return admitted;
}

/** Empty labels and annotations are not kept (Go's omitempty drops an empty map). Mutates `obj`. */
function dropEmptyMaps(obj: KubeObject): void {
  const m = obj.metadata as Record<string, unknown> | undefined;
  if (!m) return;
  for (const key of ["labels", "annotations"]) {
    const v = m[key];
    if (v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0) delete m[key];
  }
}
