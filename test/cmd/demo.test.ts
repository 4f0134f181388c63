// The README's first command ends in `bun run demo`: it must work, end to end, and exit.
import { expect, test } from "bun:test";
import { mc } from "../helpers/mc.ts";

test("mc demo links two clusters, mirrors, follows gateway health and unexport, then exits 0", async () => {
  const r = await mc(["demo"]);
  expect(r.code).toBe(0);
  const out = r.stdout;
  expect(out).toMatch(/east's endpoints controller lists web's pods: 10\.244\.\d+\.\d+:8080, 10\.244\.\d+\.\d+:8080\n/);
  expect(out).toContain("✓ west has default/web-east");
  expect(out).toContain("west has no db-east (0 found)");
  expect(out).toMatch(/CLUSTER\s+ALIVE\s+NUM_SVC\s+LATENCY_P50\s+LATENCY_P95\s+LATENCY_P99\n\s+east\s+True\s+1\s+\d+ms/);
  expect(out).toContain("endpoints are not ready, and mc gateways says ALIVE False");
  expect(out).toContain("web-east is ready again and mc gateways says ALIVE True");
  expect(out).toContain("east's web pods fail their readiness probes: web-east has no endpoints");
  expect(out).toContain("west's web-east is gone");
  expect(out).toMatch(
    /✓ west has ServiceImport default\/web \(same name, ClusterSetIP [0-9.]+, from east\), its EndpointSlice at [0-9.]+:\d+ \(east's gateway\)\n/,
  );
  expect(out).toMatch(/Done in \d+\.\ds\.\n$/);
}, 60_000);
