// Every rendered built-in object passes kubernetes-models' validators (with unknown-field
// detection, through the sandbox's checkBuiltin); every Link passes our CRD's structural schema
// at every served version and parses back into the Link it was rendered from.
import { describe, expect, test } from "bun:test";
import { linkSchema } from "../../src/manifests/crd.ts";
import type { Manifest } from "../../src/manifests/meta.ts";
import { parseLink } from "../../src/model/link.ts";
import { LINK_VERSIONS } from "../../src/model/names.ts";
import { checkBuiltin, hasBuiltinSchema } from "../../src/sandbox/validation/builtin.ts";
import { pruneUnknown, validateCustom } from "../../src/sandbox/validation/structural.ts";
import type { JSONSchemaProps, KubeObject } from "../../src/sandbox/types.ts";
import { allCases, linkCases, renderCase } from "./cases.ts";

const POLICY_KINDS = new Set(["Server", "AuthorizationPolicy", "MeshTLSAuthentication", "NetworkAuthentication"]);

describe("rendered objects against the Kubernetes schemas", () => {
  test.each(allCases)("%s: every built-in object is valid and has no unknown fields", (name) => {
    for (const obj of renderCase(name)) {
      if (obj.kind === "Link" || POLICY_KINDS.has(obj.kind)) continue;
      expect(hasBuiltinSchema(obj.apiVersion, obj.kind)).toBe(true);
      const problems = checkBuiltin(obj as unknown as KubeObject);
      expect({ object: `${obj.kind} ${obj.metadata.name}`, ...problems }).toEqual({
        object: `${obj.kind} ${obj.metadata.name}`,
        unknown: [],
        invalid: [],
      });
    }
  });

  test("only Links and Linkerd's policy kinds lack a built-in schema", () => {
    const kinds = new Set(
      allCases
        .flatMap((n) => renderCase(n))
        .filter((o) => !hasBuiltinSchema(o.apiVersion, o.kind))
        .map((o) => o.kind),
    );
    expect([...kinds].sort()).toEqual(["AuthorizationPolicy", "Link", "MeshTLSAuthentication", "NetworkAuthentication", "Server"]);
  });
});

const links = (name: string): Manifest[] => renderCase(name).filter((o) => o.kind === "Link");

describe("rendered Links against the Link CRD", () => {
  for (const version of LINK_VERSIONS) {
    test.each(Object.keys(linkCases))(`%s: valid at ${version}`, (name) => {
      const schema = linkSchema(version) as JSONSchemaProps;
      for (const link of links(name)) {
        const obj = { ...link, apiVersion: `multicluster.linkerd.io/${version}` } as unknown as KubeObject;
        expect(validateCustom(obj, schema)).toEqual([]);
        // v1alpha1/2 do not know the exclusion lists; everything else is declared at every version.
        const removed = pruneUnknown(obj, schema).removed.filter((f) => !/^spec\.(excluded|federatedServiceSelector)/.test(f));
        expect(removed).toEqual([]);
      }
    });
  }

  test("v1alpha3 declares every field mc writes", () => {
    for (const name of Object.keys(linkCases)) {
      for (const link of links(name))
        expect(pruneUnknown(link as unknown as KubeObject, linkSchema("v1alpha3") as JSONSchemaProps).removed).toEqual([]);
    }
  });

  test.each(Object.keys(linkCases))("%s: parses back into the options it was rendered from", (name) => {
    const o = linkCases[name]!;
    const [link] = links(name);
    const parsed = parseLink(link);
    expect(parsed).toMatchObject({
      name: o.clusterName,
      namespace: o.namespace,
      targetClusterName: o.clusterName,
      targetClusterDomain: o.clusterDomain,
      clusterCredentialsSecret: `cluster-credentials-${o.clusterName}`,
      excludedAnnotations: o.spec.excludedAnnotations,
      excludedLabels: o.spec.excludedLabels,
    });
    if (o.gateway) {
      expect(parsed.gateway).toEqual({ addresses: o.gateway.addresses, port: o.gateway.port, identity: o.gateway.identity });
      expect(parsed.probe).toEqual({ ...o.gateway.probe, timeoutMs: 30_000, failureThreshold: 3 });
      expect(parsed.selector).toEqual(o.spec.selector);
    } else {
      expect([parsed.gateway, parsed.probe, parsed.selector]).toEqual([null, null, null]);
    }
    expect(parsed.remoteDiscoverySelector).toEqual(o.spec.remoteDiscoverySelector);
  });
});
