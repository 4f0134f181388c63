// The recording Proxy behind unknown-field detection: a validator runs over a read-only view of
// the input that notes every key it reads and every node whose keys it enumerates; the keys it
// never looked at are the unknown fields (see builtin.ts).

/** One error of a kubernetes-models (ajv) validator. */
export interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
}
export type Validator = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

interface Trace {
  read: Set<string>;
  enumerated: boolean;
  kids: Map<string, { trace: Trace; proxy: object }>;
}

const newTrace = (): Trace => ({ read: new Set(), enumerated: false, kids: new Map() });

/** A read-only view of `target` that records into `trace` what the validator looks at. */
function traced(target: object, trace: Trace): object {
  const refuse = (): boolean => false;
  return new Proxy(target, {
    get(t, key, receiver) {
      const value: unknown = Reflect.get(t, key, receiver);
      if (typeof key !== "string") return value;
      trace.read.add(key);
      if (value === null || typeof value !== "object" || !Object.hasOwn(t, key)) return value;
      let kid = trace.kids.get(key);
      if (!kid) {
        const childTrace = newTrace();
        kid = { trace: childTrace, proxy: traced(value, childTrace) };
        trace.kids.set(key, kid);
      }
      return kid.proxy; // one proxy per child: identity stays stable across reads
    },
    has(t, key) {
      if (typeof key === "string") trace.read.add(key);
      return Reflect.has(t, key);
    },
    getOwnPropertyDescriptor(t, key) {
      if (typeof key === "string") trace.read.add(key);
      return Reflect.getOwnPropertyDescriptor(t, key);
    },
    ownKeys(t) {
      trace.enumerated = true;
      return Reflect.ownKeys(t);
    },
    set: refuse,
    deleteProperty: refuse,
    defineProperty: refuse,
  });
}

/** A key of the input that the validator never read. */
interface Stray {
  parent: Record<string, unknown>;
  key: string;
  path: string;
}

export const childPath = (path: string, key: string): string => (path ? `${path}.${key}` : key);
export const indexPath = (path: string, index: number): string => `${path}[${index}]`;

function collectStrays(value: unknown, trace: Trace, path: string, out: Stray[], alsoKnown?: ReadonlySet<string>): void {
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const kid = trace.kids.get(String(i));
      if (kid) collectStrays(item, kid.trace, indexPath(path, i), out, alsoKnown);
    });
    return;
  }
  if (!trace.enumerated && trace.read.size === 0) return; // free-form, or never inspected
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    const p = childPath(path, key);
    if (!trace.enumerated && !trace.read.has(key)) {
      if (!alsoKnown?.has(key)) out.push({ parent: obj, key, path: p });
      continue;
    }
    const kid = trace.kids.get(key);
    if (kid) collectStrays(obj[key], kid.trace, p, out, alsoKnown);
  }
}

export interface Inspection {
  strays: Stray[];
  errors: AjvError[];
}

/**
 * Runs `validate` over `value` through the recording Proxy. Paths are prefixed with `base`;
 * `alsoKnown` keys are known wherever they appear.
 */
export function inspect(validate: Validator, value: object, base = "", alsoKnown?: ReadonlySet<string>): Inspection {
  const trace = newTrace();
  const ok = validate(traced(value, trace));
  const strays: Stray[] = [];
  collectStrays(value, trace, base, strays, alsoKnown);
  return { strays, errors: ok ? [] : [...(validate.errors ?? [])] };
}
