// Kubernetes label and field selectors: kubectl's string syntax parsed the way kube-apiserver parses a request's labelSelector= and
// fieldSelector=, and matched against labels. A library of Kubernetes conventions, not of mc: both mc's model (src/model/selector.ts adds
// metav1.LabelSelector objects) and the sandbox import it, and it imports nothing.

export type Requirement =
  | { key: string; op: "=" | "!="; value: string }
  | { key: string; op: "in" | "notin"; values: string[] }
  | { key: string; op: "exists" | "!" };

/** A parsed label selector: every requirement must hold. An empty list matches everything. */
export type LabelSelector = Requirement[];

export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SelectorError";
  }
}

const KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** A valid label key: an optional DNS-subdomain prefix and '/', then a name of at most 63 characters. */
export function isLabelKey(key: string): boolean {
  const name = key.includes("/") ? key.slice(key.indexOf("/") + 1) : key;
  return KEY.test(key) && name.length <= 63 && key.length <= 316;
}

/** A valid label value: at most 63 characters, alphanumeric at both ends, or empty. */
export function isLabelValue(value: string): boolean {
  return VALUE.test(value) && value.length <= 63;
}

function checkKey(key: string, source: string): string {
  if (!isLabelKey(key)) {
    throw new SelectorError(`invalid label key "${key}" in selector "${source}"`);
  }
  return key;
}

function checkValue(value: string, source: string): string {
  if (!isLabelValue(value)) {
    throw new SelectorError(`invalid label value "${value}" in selector "${source}"`);
  }
  return value;
}

/** Splits on commas that are not inside a parenthesised value set. */
function splitTerms(source: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === "(") depth++;
    else if (ch === ")") depth--;
    else if (ch === "," && depth === 0) {
      terms.push(source.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(source.slice(start));
  return terms.map((t) => t.trim());
}

/** Parses kubectl's selector syntax: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`. */
export function parseLabelSelector(source: string): LabelSelector {
  const trimmed = source.trim();
  if (trimmed === "") return [];
  return splitTerms(trimmed).map((term): Requirement => {
    if (term === "") throw new SelectorError(`empty term in selector "${source}"`);
    const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
    if (set) {
      const values = set[3]!
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== "")
        .map((v) => checkValue(v, source));
      return { key: checkKey(set[1]!, source), op: set[2] as "in" | "notin", values };
    }
    const cmp = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (cmp) {
      const op = cmp[2] === "!=" ? "!=" : "=";
      return { key: checkKey(cmp[1]!, source), op, value: checkValue(cmp[3]!.trim(), source) };
    }
    if (term.startsWith("!")) return { key: checkKey(term.slice(1).trim(), source), op: "!" };
    if (/^\S+$/.test(term)) return { key: checkKey(term, source), op: "exists" };
    throw new SelectorError(`cannot parse selector term "${term}" in "${source}"`);
  });
}

export function matchesLabels(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  for (const r of selector) {
    const has = Object.hasOwn(l, r.key);
    const value = l[r.key];
    switch (r.op) {
      case "=":
        if (value !== r.value) return false;
        break;
      case "!=":
        if (value === r.value) return false;
        break;
      case "in":
        if (!has || !r.values.includes(value!)) return false;
        break;
      case "notin":
        if (has && r.values.includes(value!)) return false;
        break;
      case "exists":
        if (!has) return false;
        break;
      case "!":
        if (has) return false;
        break;
    }
  }
  return true;
}

export interface FieldRequirement {
  field: string;
  op: "=" | "!=";
  value: string;
}

/** Parses a field selector: `metadata.name=x,metadata.namespace!=y`. */
export function parseFieldSelector(source: string): FieldRequirement[] {
  const trimmed = source.trim();
  if (trimmed === "") return [];
  return trimmed.split(",").map((term) => {
    const m = /^\s*([A-Za-z0-9_.\-/]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(term);
    if (!m) throw new SelectorError(`invalid field selector "${term}"`);
    return { field: m[1]!, op: m[2] === "!=" ? "!=" : "=", value: m[3]! };
  });
}
