// The Link CRD refuses what the Link parser refuses: probe periods under 1s and probe timeouts under 100ms, and either over 1h, as
// `pattern`s (kube-apiserver checks them on every write, with RE2; the sandbox with JavaScript's RegExp, the same for this syntax).
import { describe, expect, test } from "bun:test";
import { linkSchema } from "../../src/manifests/crd.ts";
import { parseDuration } from "../../src/model/duration.ts";
import { MAX_PROBE_PERIOD_MS, MAX_PROBE_TIMEOUT_MS, MIN_PROBE_PERIOD_MS, MIN_PROBE_TIMEOUT_MS } from "../../src/model/limits.ts";
import { parseLink } from "../../src/model/link.ts";
import { LINK_VERSIONS } from "../../src/model/names.ts";

// A pattern cannot add terms up, so it asks for one term at least the floor on its own and for no term
// over the ceiling: for the forms people write (one unit, or h/m/s combined) the two agree.

type Node = { properties?: Record<string, Node>; pattern?: string; allOf?: Node[] };
const probeField = (version: (typeof LINK_VERSIONS)[number], field: "period" | "timeout") =>
  (linkSchema(version) as Node).properties!.spec!.properties!.probeSpec!.properties![field]!;

const common = [
  "1ns",
  "999999999ns",
  "1000000000ns",
  "1us",
  "999999us",
  "1000000µs",
  "100000μs",
  "99999us",
  "1ms",
  "99ms",
  "100ms",
  "101ms",
  "500ms",
  "999ms",
  "1000ms",
  "1500ms",
  "0.5s",
  ".5s",
  "0.1s",
  "0.09s",
  "1s",
  "1.5s",
  "3s",
  "30s",
  "1m",
  "0.5m",
  "1m30s",
  "2m",
  "1h",
  "0.5h",
  "1h2m3s",
  "0s",
  "0",
  "-1s",
  "-3s",
  "+3s",
  "01s",
  "1s500ms",
  "500ms500ms",
  "50ms50ms",
  "1.0h",
  "1.01h",
  "2h",
  "1000h",
  "60m",
  "60.5m",
  "61m",
  "59m59s",
  "3600s",
  "3601s",
  "3599.9s",
  "90000s",
  "3600000ms",
  "3600001ms",
  "3600000000us",
  "3600000001µs",
  "3600000000000ns",
  "3600000000001ns",
  "4000000000000ns",
  "30m30m",
  "30m31m",
];

function parserTakes(field: "period" | "timeout", value: string): boolean {
  const probeSpec = {
    path: "/ready",
    port: "4191",
    period: field === "period" ? value : "3s",
    ...(field === "timeout" && { timeout: value }),
  };
  try {
    parseLink({
      apiVersion: "multicluster.linkerd.io/v1alpha3",
      kind: "Link",
      metadata: { name: "east" },
      spec: { targetClusterName: "east", clusterCredentialsSecret: "c", probeSpec },
    });
    return true;
  } catch {
    return false;
  }
}

describe.each([
  ["period", MIN_PROBE_PERIOD_MS, MAX_PROBE_PERIOD_MS],
  ["timeout", MIN_PROBE_TIMEOUT_MS, MAX_PROBE_TIMEOUT_MS],
] as const)("spec.probeSpec.%s", (field, min, max) => {
  test.each([...LINK_VERSIONS])(`in %s has a floor and a ceiling pattern`, (version) => {
    expect(probeField(version, field).pattern).toBeString();
    expect(probeField(version, field).allOf?.map((x) => typeof x.pattern)).toEqual(["string"]);
  });

  const node = probeField("v1alpha3", field);
  const patterns = [node.pattern!, ...node.allOf!.map((x) => x.pattern!)].map((p) => new RegExp(p, "u"));
  const pattern = { test: (value: string) => patterns.every((p) => p.test(value)) };

  test.each(common)(`%p: the patterns and the parser agree with the floor and the ceiling`, (value) => {
    let ms: number | undefined;
    try {
      ms = parseDuration(value);
    } catch {
      ms = undefined;
    }
    const within = ms !== undefined && ms >= min && ms <= max;
    // The documented exceptions: terms each within the limits that add up past one (the floor
    // pattern refuses a sum reaching the floor, the ceiling pattern takes a sum over the ceiling).
    const sums = value === (field === "period" ? "500ms500ms" : "50ms50ms") ? false : value === "30m31m" ? true : undefined;
    expect(pattern.test(value)).toBe(sums ?? within);
    expect(parserTakes(field, value)).toBe(within);
  });

  test(`every generated duration the pattern takes, the parser takes (${field})`, () => {
    const units = ["ns", "us", "ms", "s", "m", "h"];
    const numbers = [
      "0",
      "1",
      "9",
      "10",
      "99",
      "100",
      "999",
      "1000",
      "99999",
      "100000",
      "999999",
      "1000000",
      "999999999",
      "1000000000",
      "0.001",
      "0.01",
      "0.02",
      "0.1",
      "0.5",
      "1.5",
      ".5",
      ".001",
    ];
    let accepted = 0;
    for (const a of numbers)
      for (const u of units) {
        for (const value of [`${a}${u}`, `${a}${u}${a}${units[(units.indexOf(u) + 5) % 6]}`]) {
          if (!pattern.test(value)) continue;
          accepted++;
          expect({ value, ms: parseDuration(value) >= min }).toEqual({ value, ms: true });
          if (!/^\d*\.?\d*[a-zµμ]+$/u.test(value)) continue; // two terms: their sum may pass the ceiling (the parser refuses it)
          expect({ value, ms: parseDuration(value) <= max }).toEqual({ value, ms: true });
          expect({ value, parser: parserTakes(field, value) }).toEqual({ value, parser: true });
        }
      }
    expect(accepted).toBeGreaterThan(50);
  });
});
