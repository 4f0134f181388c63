// The sandbox parses and matches selectors with its own copy (src/sandbox/selector.ts) so that it
// imports nothing of mc. These cases hold it to the same answers as mc's src/model/selector.ts:
// the same parse, the same match, the same error text (kube-apiserver's 400 body carries it).
import { describe, expect, test } from "bun:test";
import * as mc from "../../src/model/selector.ts";
import * as sandbox from "../../src/sandbox/selector.ts";

const LABELS: (Record<string, string> | undefined)[] = [undefined, {}, { app: "web", tier: "front", "mirror.linkerd.io/exported": "true" }, { app: "db", x: "" }];

const LABEL_SOURCES = [
  "",
  "app=web",
  "app==web",
  "app!=web",
  "app in (web,db)",
  "app notin (web, db)",
  "missing notin (x)",
  "tier",
  "!app",
  "x=",
  "mirror.linkerd.io/exported=true,app in (web),!gone",
  // malformed
  "app=we b",
  "=x",
  "a b c",
  "app in (a",
  "-bad=1",
  "a=b,,c=d",
  "app in (bad value)",
];

const FIELD_SOURCES = ["", "metadata.name=web,metadata.namespace!=kube-system", "metadata.name==web", " type = kubernetes.io/tls ", "metadata.name", "a=b,c"];

/** What a parser made of `source`: its value, or the error's class name and message. */
function outcome<T>(parse: (s: string) => T, source: string): { value?: T; error?: string } {
  try {
    return { value: parse(source) };
  } catch (err) {
    return { error: `${(err as Error).name}: ${(err as Error).message}` };
  }
}

describe("the sandbox's selectors agree with mc's", () => {
  test.each(LABEL_SOURCES)("label selector %p", (source) => {
    const ours = outcome(sandbox.parseLabelSelector, source);
    expect(ours).toEqual(outcome(mc.parseLabelSelector, source));
    if (ours.value) for (const labels of LABELS) expect(sandbox.matchesLabels(ours.value, labels)).toBe(mc.matchesLabels(ours.value, labels));
  });

  test.each(FIELD_SOURCES)("field selector %p", (source) => {
    expect(outcome(sandbox.parseFieldSelector, source)).toEqual(outcome(mc.parseFieldSelector, source));
  });

  test("a malformed selector throws the sandbox's own SelectorError", () => {
    expect(() => sandbox.parseLabelSelector("=x")).toThrow(sandbox.SelectorError);
    expect(() => sandbox.parseFieldSelector("metadata.name")).toThrow(sandbox.SelectorError);
  });
});
