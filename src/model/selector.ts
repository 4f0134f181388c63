// Kubernetes label selectors (kubectl's string syntax and metav1.LabelSelector) and field
// selectors, parsed once and matched many times. Pure: no I/O.

export type Requirement =
  | { key: string; op: "=" | "!="; value: string }
  | { key: string; op: "in" | "notin"; values: string[] }
  | { key: string; op: "exists" | "!" };

/** A parsed label selector: every requirement must hold. An empty list matches everything. */
export type LabelSelector = Requirement[];

export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SelectorError";
  }
}

const KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkKey(key: string, source: string): string {
  const name = key.includes("/") ? key.slice(key.indexOf("/") + 1) : key;
  if (!KEY.test(key) || name.length > 63 || key.length > 316) {
    throw new SelectorError(`invalid label key "${key}" in selector "${source}"`);
  }
  return key;
}

function checkValue(value: string, source: string): string {
  if (!VALUE.test(value) || value.length > 63) {
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

const KEY_RULE = "an optional DNS-subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit";
const VALUE_RULE = "at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, or empty";

function isLabelKey(key: string): boolean {
  const name = key.includes("/") ? key.slice(key.indexOf("/") + 1) : key;
  return KEY.test(key) && name.length <= 63 && key.length <= 316;
}

function isLabelValue(value: string): boolean {
  return VALUE.test(value) && value.length <= 63;
}

/**
 * Converts a metav1.LabelSelector, validated with kube-apiserver's rules (label keys and values,
 * operators, values present exactly for In/NotIn), so a selector the API server would answer with
 * 400 BadRequest is refused here, naming the field. `undefined` stays undefined (callers decide
 * what "none" means).
 */
export function fromSelectorObject(selector: LabelSelectorObject): LabelSelector {
  const out: Requirement[] = [];
  for (const [key, raw] of Object.entries(selector.matchLabels ?? {})) {
    const value = String(raw);
    if (!isLabelKey(key)) throw new SelectorError(`matchLabels: ${JSON.stringify(key)} is not a valid label key (${KEY_RULE})`);
    if (!isLabelValue(value)) throw new SelectorError(`matchLabels[${JSON.stringify(key)}]: ${JSON.stringify(value)} is not a valid label value (${VALUE_RULE})`);
    out.push({ key, op: "=", value });
  }
  (selector.matchExpressions ?? []).forEach((expr, i) => {
    const at = `matchExpressions[${i}]`;
    if (!isLabelKey(expr.key)) throw new SelectorError(`${at}.key: ${JSON.stringify(expr.key)} is not a valid label key (${KEY_RULE})`);
    const values = expr.values ?? [];
    const bad = values.find((value) => !isLabelValue(value));
    if (bad !== undefined) throw new SelectorError(`${at}.values: ${JSON.stringify(bad)} is not a valid label value (${VALUE_RULE})`);
    switch (expr.operator) {
      case "In":
      case "NotIn":
        if (values.length === 0) {
          throw new SelectorError(`${at}.values: must not be empty when operator is ${expr.operator} (list the label values to match)`);
        }
        out.push({ key: expr.key, op: expr.operator === "In" ? "in" : "notin", values });
        break;
      case "Exists":
      case "DoesNotExist":
        if (values.length > 0) throw new SelectorError(`${at}.values: must be empty when operator is ${expr.operator}`);
        out.push({ key: expr.key, op: expr.operator === "Exists" ? "exists" : "!" });
        break;
      default:
        throw new SelectorError(`invalid selector operator "${expr.operator}" for key "${expr.key}" (use In, NotIn, Exists or DoesNotExist)`);
    }
  });
  return out;
}

/** The metav1.LabelSelector for a parsed selector (for writing a Link's `spec.selector`). */
export function toSelectorObject(selector: LabelSelector): LabelSelectorObject {
  const matchLabels: Record<string, string> = {};
  const matchExpressions: NonNullable<LabelSelectorObject["matchExpressions"]> = [];
  for (const r of selector) {
    if (r.op === "=") matchLabels[r.key] = r.value;
    else if (r.op === "!=") matchExpressions.push({ key: r.key, operator: "NotIn", values: [r.value] });
    else if (r.op === "in") matchExpressions.push({ key: r.key, operator: "In", values: r.values });
    else if (r.op === "notin") matchExpressions.push({ key: r.key, operator: "NotIn", values: r.values });
    else if (r.op === "exists") matchExpressions.push({ key: r.key, operator: "Exists" });
    else matchExpressions.push({ key: r.key, operator: "DoesNotExist" });
  }
  const out: LabelSelectorObject = {};
  if (Object.keys(matchLabels).length > 0) out.matchLabels = matchLabels;
  if (matchExpressions.length > 0) out.matchExpressions = matchExpressions;
  return out;
}

/** kubectl's string form of a selector. */
export function formatLabelSelector(selector: LabelSelector): string {
  return selector
    .map((r) => {
      switch (r.op) {
        case "=":
        case "!=":
          return `${r.key}${r.op}${r.value}`;
        case "in":
        case "notin":
          return `${r.key} ${r.op} (${r.values.join(",")})`;
        case "exists":
          return r.key;
        case "!":
          return `!${r.key}`;
      }
    })
    .join(",");
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
