// Kubernetes label selectors as mc uses them: kubectl's string syntax and matching come from
// src/lib/label-selector.ts (shared with the sandbox); this module adds metav1.LabelSelector objects
// (a Link's spec.selector), validated with kube-apiserver's rules, and kubectl's string form. Pure.
import { isLabelKey, isLabelValue, SelectorError, type LabelSelector, type Requirement } from "../lib/label-selector.ts";
export { matchesLabels, parseFieldSelector, parseLabelSelector, SelectorError } from "../lib/label-selector.ts";
export type { LabelSelector } from "../lib/label-selector.ts";

export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

const KEY_RULE =
  "an optional DNS-subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit";
const VALUE_RULE = "at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, or empty";

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
    if (!isLabelValue(value))
      throw new SelectorError(`matchLabels[${JSON.stringify(key)}]: ${JSON.stringify(value)} is not a valid label value (${VALUE_RULE})`);
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
        throw new SelectorError(
          `invalid selector operator "${expr.operator}" for key "${expr.key}" (use In, NotIn, Exists or DoesNotExist)`,
        );
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

/**
 * One selector every object matching any of `selectors` also matches — what a single watch can
 * ask the server for when a controller needs the union (a label selector cannot say "or"). The
 * result may match more; callers filter with the exact selectors. A single selector is its own
 * cover; several share a cover when each requires one same key positively (`k=v`, `k in (…)`,
 * `k`): `k in (values…)`, or `k` if any of them only requires it to exist. `undefined`: no
 * cover narrower than everything (watch unfiltered).
 */
export function coveringSelector(selectors: readonly LabelSelector[]): LabelSelector | undefined {
  const all = selectors.filter((s) => s.length > 0);
  if (all.length === 0 || all.length < selectors.length) return undefined;
  const first = all[0]!;
  if (all.every((s) => formatLabelSelector(s) === formatLabelSelector(first))) return first;
  const positive = (s: LabelSelector, key: string): Requirement | undefined =>
    s.find((r) => r.key === key && (r.op === "=" || r.op === "in" || r.op === "exists"));
  for (const candidate of first) {
    const reqs = all.map((s) => positive(s, candidate.key));
    if (reqs.some((r) => r === undefined)) continue;
    if (reqs.some((r) => r!.op === "exists")) return [{ key: candidate.key, op: "exists" }];
    const values = new Set(reqs.flatMap((r) => (r!.op === "=" ? [r!.value] : r!.op === "in" ? r!.values : [])));
    return [{ key: candidate.key, op: "in", values: [...values].sort() }];
  }
  return undefined;
}

/**
 * Why no set of labels can match this selector (`a in ()`; `a=x,a=y`; `a,!a`; `a=x,a notin (x)`),
 * or undefined when some can. An empty selector matches everything here; whether a Link's empty
 * selector means "nothing" is the caller's rule.
 */
export function impossibility(selector: LabelSelector): string | undefined {
  const keys = new Map<string, { exists: boolean; absent: boolean; allowed?: Set<string>; excluded: Set<string> }>();
  for (const r of selector) {
    const k = keys.get(r.key) ?? { exists: false, absent: false, excluded: new Set<string>() };
    keys.set(r.key, k);
    const allow = (values: string[]) => {
      k.exists = true;
      k.allowed = new Set(k.allowed ? values.filter((v) => k.allowed!.has(v)) : values);
    };
    switch (r.op) {
      case "=":
        allow([r.value]);
        break;
      case "in":
        if (r.values.length === 0) return `${r.key} in () lists no values`;
        allow(r.values);
        break;
      case "exists":
        k.exists = true;
        break;
      case "!":
        k.absent = true;
        break;
      case "!=":
        k.excluded.add(r.value);
        break;
      case "notin":
        for (const v of r.values) k.excluded.add(v);
        break;
    }
  }
  for (const [key, k] of keys) {
    if (k.exists && k.absent) return `${key} must both exist and not exist`;
    if (k.allowed && [...k.allowed].every((v) => k.excluded.has(v))) return `no value of ${key} meets every requirement on it`;
  }
  return undefined;
}
