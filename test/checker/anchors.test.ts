// Trust anchor bundles: parsed into a set and compared between clusters, as `mc check` does.
import { describe, expect, test } from "bun:test";
import { anchorSet, compareAnchors } from "../../src/checker/anchors.ts";

const pem = (body: string) => `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,8}/g)!.join("\n")}\n-----END CERTIFICATE-----\n`;
const A = pem("AAAAaaaa1111");
const B = pem("BBBBbbbb2222");

describe("trust anchor bundles", () => {
  test("a bundle is the set of its certificates, whitespace ignored", () => {
    expect([...anchorSet(A + B)]).toEqual(["AAAAaaaa1111", "BBBBbbbb2222"]);
    expect(compareAnchors(A, A.replaceAll("\n", "\r\n"))).toBe("same");
  });

  test("equal bundles are the same, a common anchor is an overlap, none in common is disjoint", () => {
    expect(compareAnchors(A + B, B + A)).toBe("same");
    expect(compareAnchors(A, A + B)).toBe("overlap");
    expect(compareAnchors(A, B)).toBe("disjoint");
  });

  test("an empty bundle on either side is named", () => {
    expect(compareAnchors("", A)).toBe("local-empty");
    expect(compareAnchors(A, "not a pem")).toBe("remote-empty");
  });
});
