// Label and field selectors: parsed as kube parses them, and matched.
import { describe, expect, test } from "bun:test";
import {
  formatLabelSelector,
  fromSelectorObject,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  SelectorError,
  toSelectorObject,
} from "../../src/model/selector.ts";

const labels = { app: "web", tier: "front", "mirror.linkerd.io/exported": "true" };

describe("label selectors", () => {
  test.each([
    ["", true],
    ["app=web", true],
    ["app==web", true],
    ["app!=web", false],
    ["app!=db", true],
    ["app in (web,db)", true],
    ["app in (db)", false],
    ["app notin (db)", true],
    ["app notin (web, db)", false],
    ["missing notin (x)", true],
    ["tier", true],
    ["missing", false],
    ["!missing", true],
    ["!app", false],
    ["mirror.linkerd.io/exported=true", true],
    ["mirror.linkerd.io/exported=true,app in (web),!gone", true],
    ["mirror.linkerd.io/exported=true,app=db", false],
  ])("%p matches app=web,tier=front → %p", (source, expected) => {
    expect(matchesLabels(parseLabelSelector(source), labels)).toBe(expected);
  });

  test("a missing label never equals a value but satisfies !=", () => {
    expect(matchesLabels(parseLabelSelector("x=1"), undefined)).toBe(false);
    expect(matchesLabels(parseLabelSelector("x!=1"), undefined)).toBe(true);
  });

  test.each(["app=we b", "=x", "a b c", "app in (a", "-bad=1", "a=b,,c=d"])("rejects malformed selector %p", (source) => {
    expect(() => parseLabelSelector(source)).toThrow(SelectorError);
  });

  test("round-trips through metav1.LabelSelector and back to text", () => {
    const parsed = parseLabelSelector("a=1,b in (x,y),c notin (z),d,!e,f!=2");
    const obj = toSelectorObject(parsed);
    expect(obj.matchLabels).toEqual({ a: "1" });
    expect(obj.matchExpressions).toContainEqual({ key: "d", operator: "Exists" });
    const back = fromSelectorObject(obj);
    const cases: Record<string, string>[] = [
      { a: "1", b: "x", d: "" },
      { a: "1", b: "z", d: "" },
      { a: "1", b: "x", d: "", e: "" },
      { a: "1", b: "x", d: "", f: "2" },
    ];
    for (const l of cases) {
      expect(matchesLabels(back, l)).toBe(matchesLabels(parsed, l));
    }
    expect(formatLabelSelector(parseLabelSelector("a=1,b in (x,y),!e"))).toBe("a=1,b in (x,y),!e");
  });

  test("an unknown matchExpressions operator names the fix", () => {
    expect(() => fromSelectorObject({ matchExpressions: [{ key: "a", operator: "Equals" }] })).toThrow(/In, NotIn, Exists or DoesNotExist/);
  });
});

describe("field selectors", () => {
  test("parses = == and != terms", () => {
    expect(parseFieldSelector("metadata.name=web,metadata.namespace!=kube-system")).toEqual([
      { field: "metadata.name", op: "=", value: "web" },
      { field: "metadata.namespace", op: "!=", value: "kube-system" },
    ]);
    expect(parseFieldSelector("metadata.name==web")).toEqual([{ field: "metadata.name", op: "=", value: "web" }]);
    expect(parseFieldSelector("")).toEqual([]);
  });
  test("rejects a term without an operator", () => {
    expect(() => parseFieldSelector("metadata.name")).toThrow(SelectorError);
  });
});
