// Trust anchor bundles: Linkerd's `identityTrustAnchorsPEM` holds one or more PEM certificates.
// Two clusters share trust when their bundles have a certificate in common (during a rotation
// both carry the old and the new anchor). Pure: compares the base64 bodies, whitespace ignored.

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;

/** The certificates of a bundle, each as its base64 body without whitespace. */
export function anchorSet(pem: string): Set<string> {
  const out = new Set<string>();
  for (const m of pem.matchAll(PEM_BLOCK)) {
    const body = (m[1] ?? "").replace(/\s+/g, "");
    if (body) out.add(body);
  }
  return out;
}

export type AnchorComparison = "same" | "overlap" | "disjoint" | "local-empty" | "remote-empty";

export function compareAnchors(localPem: string, remotePem: string): AnchorComparison {
  const local = anchorSet(localPem);
  const remote = anchorSet(remotePem);
  if (local.size === 0) return "local-empty";
  if (remote.size === 0) return "remote-empty";
  const common = [...remote].filter((a) => local.has(a)).length;
  if (common === 0) return "disjoint";
  return common === local.size && common === remote.size ? "same" : "overlap";
}
