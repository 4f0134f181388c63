// The rendered manifests, byte for byte (YAML and one JSON List). UPDATE_GOLDEN=1 rewrites them.
import { describe, expect, test } from "bun:test";
import { formatManifests, parseManifests } from "../../src/manifests/output.ts";
import { renderAllow } from "../../src/manifests/install.ts";
import { allCases, renderCase, VERSION } from "./cases.ts";
import { expectGolden } from "./golden.ts";

describe("rendered manifests match their golden files", () => {
  test.each(allCases)("%s", (name) => {
    expectGolden(`${name}.yaml`, formatManifests(renderCase(name), "yaml"));
  });

  test("mc allow renders the namespace and one remote access account", () => {
    expectGolden(
      "allow.yaml",
      formatManifests(
        renderAllow({ namespace: "linkerd-multicluster", serviceAccount: "linkerd-service-mirror-remote-access-west", version: VERSION }),
        "yaml",
      ),
    );
  });

  test("-o json is one v1 List holding the same objects", () => {
    const objects = renderCase("link-default");
    const json = formatManifests(objects, "json");
    expectGolden("link-default.json", json);
    expect(JSON.parse(json)).toMatchObject({ apiVersion: "v1", kind: "List" });
    expect(parseManifests(json)).toEqual(parseManifests(formatManifests(objects, "yaml")));
  });
});

describe("the YAML stream", () => {
  test("has no anchors or aliases, so every consumer reads the objects the same way", () => {
    for (const name of allCases) expect(formatManifests(renderCase(name), "yaml")).not.toMatch(/^\s*[\w-]+: [&*]\w/m);
  });

  test("renders the same objects twice in a row (no shared, mutated state)", () => {
    expect(formatManifests(renderCase("install-default"), "yaml")).toBe(formatManifests(renderCase("install-default"), "yaml"));
  });
});
